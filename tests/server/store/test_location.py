"""Where the store lives, read without SQLAlchemy: `--db`, $CONFCAL_DB, the default file, and the
file a SQLite URL names, as SQLAlchemy reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import make_url

from server.store.location import resolve_url, sqlite_file


def test_url_is_used_as_is(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'b.sqlite'}"

    assert resolve_url(url) == url


def test_environment_variable_is_the_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFCAL_DB", str(tmp_path / "env.sqlite"))

    assert resolve_url(None) == f"sqlite:///{tmp_path / 'env.sqlite'}"


def test_default_is_a_file_in_the_user_data_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFCAL_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))

    url = resolve_url(None)

    assert url == f"sqlite:///{tmp_path / 'data' / 'confcal' / 'confcal.sqlite'}"
    assert (tmp_path / "data" / "confcal").is_dir()


def test_the_file_of_a_path_given_is_that_path(tmp_path: Path) -> None:
    target = tmp_path / "store.sqlite"
    target.touch()

    assert sqlite_file(resolve_url(str(target))) == target


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///{dir}/plain.sqlite",
        "sqlite:///{dir}/with%20space.sqlite",
        "sqlite+pysqlite:///{dir}/plain.sqlite",
        "sqlite:///{dir}/plain.sqlite?timeout=3",
    ],
)
def test_the_file_of_a_sqlite_url_is_the_one_sqlalchemy_opens(url: str, tmp_path: Path) -> None:
    (tmp_path / "plain.sqlite").touch()
    (tmp_path / "with space.sqlite").touch()
    given = url.format(dir=tmp_path)

    found = sqlite_file(given)

    assert found == Path(str(make_url(given).database))


@pytest.mark.parametrize(
    "url", ["sqlite://", "sqlite:///:memory:", "postgresql+psycopg://confcal@localhost/confcal", "sqlite:////nowhere/x"]
)
def test_a_store_that_is_not_a_sqlite_file_there_has_no_file(url: str) -> None:
    assert sqlite_file(url) is None
