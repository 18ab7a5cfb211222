"""server.crypto: keys from the environment, a key file, or one created beside a SQLite store;
rotation with MultiFernet; errors that name no key."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from server.crypto import (
    KEY_ENV,
    KEY_FILE_ENV,
    Cipher,
    Password,
    SecretKeyInvalid,
    SecretKeyMissing,
    SecretUndecryptable,
    key_file_beside,
    key_for,
    new_key,
)

PASSWORD = "hunter2-app-password"


def test_the_first_key_encrypts_and_every_key_decrypts() -> None:
    old, new = new_key(), new_key()
    sealed_with_old = Cipher([old.encode()]).encrypt(Password(PASSWORD))
    both = Cipher([new.encode(), old.encode()])

    rotated = both.rotate(sealed_with_old)

    assert both.decrypt(sealed_with_old) == Password(PASSWORD)
    assert Cipher([new.encode()]).decrypt(rotated) == Password(PASSWORD)
    assert PASSWORD not in sealed_with_old


def test_a_dropped_key_is_a_one_line_error() -> None:
    sealed = Cipher([new_key().encode()]).encrypt(Password(PASSWORD))

    with pytest.raises(SecretUndecryptable) as caught:
        Cipher([new_key().encode()]).decrypt(sealed)

    assert "\n" not in str(caught.value)


def test_keys_from_the_environment_comma_separated(tmp_path: Path) -> None:
    old, new = new_key(), new_key()
    sealed = Cipher([old.encode()]).encrypt(Password(PASSWORD))
    engine = create_engine(f"sqlite:///{tmp_path / 'store.sqlite'}")

    cipher = key_for(engine, {KEY_ENV: f" {new} , {old} "})

    assert cipher.decrypt(sealed) == Password(PASSWORD)
    assert Cipher([new.encode()]).decrypt(cipher.encrypt(Password("x"))) == Password("x")
    assert not key_file_beside(str(tmp_path / "store.sqlite")).exists()


def test_a_bad_key_names_its_position_not_its_value(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'store.sqlite'}")

    with pytest.raises(SecretKeyInvalid) as caught:
        key_for(engine, {KEY_ENV: f"{new_key()},not-a-key-at-all"})

    assert str(caught.value) == (
        f"{KEY_ENV}: key 2 is not a Fernet key (44 url-safe base64 characters; make one with `confcal caldav new-key`)"
    )


def test_a_sqlite_store_gets_a_private_key_file_beside_it_once(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'confcal.sqlite'}")

    first = key_for(engine, {})
    sealed = first.encrypt(Password(PASSWORD))
    second = key_for(engine, {})

    path = tmp_path / "confcal.secret-key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert second.decrypt(sealed) == Password(PASSWORD)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["confcal.secret-key"]


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "key"
    path.write_text(new_key() + "\n")
    path.chmod(0o644)

    with pytest.raises(SecretKeyInvalid) as caught:
        key_for(create_engine("sqlite://"), {KEY_FILE_ENV: str(path)})

    assert str(caught.value) == f"key file {path} is accessible to others (mode 644); chmod 600 {path}"


def test_an_explicit_key_file_is_created_and_holds_a_key_list(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    made = key_for(create_engine("sqlite://"), {KEY_FILE_ENV: str(path)})
    sealed = made.encrypt(Password(PASSWORD))
    path.write_text(new_key() + "\n" + path.read_text())

    rotated = key_for(create_engine("sqlite://"), {KEY_FILE_ENV: str(path)})

    assert rotated.decrypt(sealed) == Password(PASSWORD)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_postgresql_without_a_configured_key_is_a_one_line_error() -> None:
    engine = create_engine("postgresql+psycopg://confcal@localhost/confcal")

    with pytest.raises(SecretKeyMissing) as caught:
        key_for(engine, {})

    assert str(caught.value) == (
        "a postgresql store needs CONFCAL_SECRET_KEY or CONFCAL_SECRET_KEY_FILE to keep CalDAV "
        "passwords (make a key with `confcal caldav new-key`)"
    )
