"""The pick store on its own: a real SQLite database, no HTTP."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine

from server.store.picks import PickStore, is_token, new_token, pick_store_for


def test_store_creates_reads_and_replaces(tmp_path: Path) -> None:
    moments = iter(
        [datetime(2026, 4, 1, 8, tzinfo=UTC), datetime(2026, 4, 1, 9, tzinfo=UTC)]
    )
    store = PickStore(
        create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"),
        clock=lambda: next(moments),
    )

    created = store.create("conf", ["a", "b"])
    replaced = store.replace(created.token, ["c"])

    assert is_token(created.token)
    assert store.get(created.token) == replaced
    assert replaced is not None
    assert (replaced.sessions, replaced.conference) == (("c",), "conf")
    assert replaced.updated == datetime(2026, 4, 1, 9, tzinfo=UTC)


def test_unknown_or_malformed_tokens_find_nothing(tmp_path: Path) -> None:
    store = PickStore(create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"))

    assert store.get("A" * 24) is None
    assert store.get("../x") is None
    assert store.replace("A" * 24, ["a"]) is None


def test_the_table_is_created_once_and_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'picks.sqlite'}"
    token = PickStore(create_engine(url)).create("conf", ["a"]).token

    reopened = PickStore(create_engine(url))

    found = reopened.get(token)
    assert found is not None and found.sessions == ("a",)


def test_a_store_without_an_engine_gets_a_private_memory_database() -> None:
    picks = pick_store_for(object())

    token = picks.create("conf", ["a"]).token

    found = picks.get(token)
    assert found is not None and found.sessions == ("a",)


def test_tokens_never_start_with_a_dash_so_the_cli_takes_them_as_values() -> None:
    tokens = [new_token() for _ in range(2000)]

    assert [t for t in tokens if t.startswith("-")] == []
    assert all(is_token(t) for t in tokens)
    assert len(set(tokens)) == 2000
