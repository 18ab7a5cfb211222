"""Secrets at rest: the CalDAV passwords the server keeps, encrypted with Fernet (`cryptography`).

Fernet is AES-128-CBC with an HMAC-SHA256 over the whole token, so a stored password can neither
be read nor altered without the key. Keys, in the order they are looked for:

1. `CONFCAL_SECRET_KEY`: one or more Fernet keys, comma-separated. The first encrypts; every one
   is tried to decrypt (MultiFernet). That is the rotation story: put a new key first, keep the
   old one after it, run `confcal caldav rotate-key` (every stored password re-encrypted with
   the first key), then drop the old key.
2. `CONFCAL_SECRET_KEY_FILE`: a file holding the same list, one key a line (or comma-separated).
   Created with one new key (mode 0600) if it does not exist.
3. For a SQLite store: `<store name without suffix>.secret-key` beside the store file, created
   on first use with mode 0600. Its name does not start with the store's file name, so copying
   `confcal.sqlite*` does not copy the key along.

A PostgreSQL (or any non-file) store has no "beside", so it needs 1 or 2; without them
`key_for` raises `SecretKeyMissing` with one line saying so. A key file readable by anyone but
its owner is refused, as ssh refuses such a private key.

Passwords travel as `Password` (defined here, below the store and the push service that both
carry it), whose repr and str never show the value: in a log line, an exception message or a traceback's locals it prints as
`Password('***')`. `reveal()` is called only to encrypt it and where it leaves for the server.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from sqlalchemy import Engine

from server.errors import ServerError

_HIDDEN = "***"


class Password:
    """A password that only `reveal()` gives back; repr, str and format show `***`."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Password({_HIDDEN!r})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Password) and other._value == self._value

    def __hash__(self) -> int:
        # Equal passwords hash alike.
        return hash(self._value)


KEY_ENV: Final = "CONFCAL_SECRET_KEY"
KEY_FILE_ENV: Final = "CONFCAL_SECRET_KEY_FILE"
KEY_FILE_SUFFIX: Final = ".secret-key"


class SecretError(ServerError):
    """Base of the failures around stored secrets."""


class SecretKeyMissing(SecretError):
    """No key is configured and none can be created beside the store."""


class SecretKeyInvalid(SecretError):
    """A configured key is not a Fernet key, or its file is unsafe or unreadable."""


class SecretUndecryptable(SecretError):
    """A stored secret was encrypted with a key that is no longer configured (or was altered)."""


# The name this module's first version gave its own secret type; one type now (for code
# written against that version).
Secret = Password


class Cipher:
    """Encrypts with the first key, decrypts with any (MultiFernet)."""

    def __init__(self, keys: list[bytes]) -> None:
        if not keys:
            raise SecretKeyInvalid("no secret key given")
        self._fernet = MultiFernet([Fernet(k) for k in keys])
        self._first = keys[0]

    def encrypt(self, password: Password) -> str:
        return self._fernet.encrypt(password.reveal().encode("utf-8")).decode("ascii")

    def decrypt(self, token: str) -> Password:
        try:
            return Password(self._fernet.decrypt(token.encode("ascii")).decode("utf-8"))
        except (InvalidToken, UnicodeError):
            raise SecretUndecryptable(
                "a stored password cannot be decrypted with the configured keys "
                f"(was the old key dropped from {KEY_ENV} too early?)"
            ) from None

    def digest(self, purpose: str, text: str) -> str:
        """A keyed HMAC-SHA256 of `text` (hex) under a key derived for `purpose` from the first
        key (HKDF, RFC 5869): finds or names a secret (an e-mail address) without storing it,
        and cannot be reversed by hashing guesses without the key."""
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose.encode("utf-8")).derive(self._first)
        signer = hmac.HMAC(key, hashes.SHA256())
        signer.update(text.encode("utf-8"))
        return signer.finalize().hex()

    def rotate(self, token: str) -> str:
        """The same password, encrypted with the first key (MultiFernet.rotate)."""
        try:
            return self._fernet.rotate(token.encode("ascii")).decode("ascii")
        except InvalidToken:
            raise SecretUndecryptable("a stored password cannot be decrypted with the configured keys") from None


def new_key() -> str:
    return Fernet.generate_key().decode("ascii")


def parse_keys(text: str, where: str) -> list[bytes]:
    """Keys separated by commas or newlines; each must be a Fernet key (32 url-safe base64 bytes).
    The message names where the list came from and the key's position, never the key."""
    keys = [k.strip() for k in text.replace("\n", ",").split(",") if k.strip()]
    if not keys:
        raise SecretKeyInvalid(f"{where} holds no key")
    for number, key in enumerate(keys, 1):
        try:
            Fernet(key.encode("ascii"))
        except (ValueError, UnicodeError):
            raise SecretKeyInvalid(
                f"{where}: key {number} is not a Fernet key (44 url-safe base64 characters; "
                "make one with `confcal caldav new-key`)"
            ) from None
    return [k.encode("ascii") for k in keys]


def key_file_beside(database: str) -> Path:
    path = Path(database)
    return path.with_name(path.stem + KEY_FILE_SUFFIX)


def key_for(engine: Engine, environ: Mapping[str, str] | None = None) -> Cipher:
    """The cipher for the store behind `engine` (see the module docstring for the order)."""
    env = os.environ if environ is None else environ
    if env.get(KEY_ENV, "").strip():
        return Cipher(parse_keys(env[KEY_ENV], KEY_ENV))
    if env.get(KEY_FILE_ENV, "").strip():
        return Cipher(read_or_create(Path(env[KEY_FILE_ENV]).expanduser()))
    url = engine.url
    if url.get_backend_name() == "sqlite":
        if url.database in (None, "", ":memory:"):
            # Nothing outlives the process, so neither need the key.
            return Cipher([Fernet.generate_key()])
        return Cipher(read_or_create(key_file_beside(url.database)))
    raise SecretKeyMissing(
        f"a {url.get_backend_name()} store needs {KEY_ENV} or {KEY_FILE_ENV} to keep CalDAV "
        "passwords (make a key with `confcal caldav new-key`)"
    )


def read_or_create(path: Path) -> list[bytes]:
    """The keys in `path`, creating it with one new key (mode 0600) if it does not exist. Two
    processes starting at once both end up with the one file that won the race."""
    if not path.exists():
        _create(path)
    try:
        info = path.stat()
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise SecretKeyInvalid(
                f"key file {path} is accessible to others (mode {stat.S_IMODE(info.st_mode):o}); chmod 600 {path}"
            )
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SecretKeyInvalid(f"cannot read key file {path}: {reason}") from None
    return parse_keys(text, f"key file {path}")


def _create(path: Path) -> None:
    # Written to a private temporary file, then linked into place: link() fails if the name
    # exists, so the file is never seen half-written and a racing process's key is never replaced.
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # mode 0600
    except OSError as exc:
        raise SecretKeyInvalid(f"cannot create key file {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(new_key() + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.link(temporary, path)
    except FileExistsError:
        pass
    except OSError as exc:
        raise SecretKeyInvalid(f"cannot create key file {path}: {exc.strerror}") from None
    finally:
        os.unlink(temporary)
