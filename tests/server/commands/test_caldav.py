"""`confcal caldav new-key` and `rotate-key`: rotating the key of the stored CalDAV passwords."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from server.cli import main
from server.crypto import KEY_ENV, Cipher, Password, SecretUndecryptable, new_key
from server.store import Store
from server.store.caldav_targets import CaldavTargets

NOW = datetime(2026, 4, 1, 9, tzinfo=UTC)


def test_new_key_prints_a_fernet_key(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["caldav", "new-key"])

    key = capsys.readouterr().out.strip()
    assert code == 0
    assert Cipher([key.encode()]).decrypt(Cipher([key.encode()]).encrypt(Password("x"))) == Password("x")


def test_rotate_key_reencrypts_so_the_old_key_can_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db, old, new = str(tmp_path / "store.sqlite"), new_key(), new_key()
    monkeypatch.setenv(KEY_ENV, old)
    with Store.open(db) as store:
        target = CaldavTargets(store.engine).attach("c", "t" * 24, "https://x.test/c/", "me", Password("pw"), NOW)
    monkeypatch.setenv(KEY_ENV, f"{new},{old}")

    code = main(["caldav", "rotate-key", "--db", db])

    monkeypatch.setenv(KEY_ENV, new)
    with Store.open(db) as store:
        credentials = CaldavTargets(store.engine).credentials(target.id)
    monkeypatch.setenv(KEY_ENV, old)
    with Store.open(db) as store, pytest.raises(SecretUndecryptable):
        CaldavTargets(store.engine).credentials(target.id)
    assert (code, capsys.readouterr().out) == (0, "re-encrypted 1 stored password\n")
    assert credentials is not None and credentials.password == Password("pw")
