"""Where the store lives: `--db PATH_OR_URL`, else $CONFCAL_DB, else a SQLite file in the user's
data directory. A value containing "://" is a SQLAlchemy URL (e.g. postgresql+psycopg://...);
anything else is a SQLite file path. And how long a connection to a SQLite store waits for its
lock (server.store.engine says why).

Read without SQLAlchemy, so a command can start checking its store file
(server.store.integrity) while SQLAlchemy and the rest of its code load.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from server.errors import StoreError

ENV_VAR = "CONFCAL_DB"
DEFAULT_FILE = "confcal.sqlite"
# Longer than the write phase of a 20,000-session ingest on a slow, busy machine; short enough
# that a request waiting for the lock still gets an answer (503) within a client's patience.
BUSY_TIMEOUT_S = 20.0
# What `resolve_url` makes of a file path: the path (absolute) follows.
_FILE_URL = "sqlite:///"


def default_path() -> Path:
    return Path(platformdirs.user_data_dir("confcal")) / DEFAULT_FILE


def resolve_url(target: str | None) -> str:
    """The SQLAlchemy URL for a `--db` value (None: environment, then the default file)."""
    if not target:
        target = os.environ.get(ENV_VAR) or None
    if not target:
        path = default_path()
        # Only the default location is created for the user; an explicit path must exist.
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return _FILE_URL + str(path)
    if "://" in target:
        return target
    path = Path(target).expanduser().absolute()
    if not path.parent.is_dir():
        raise StoreError(f"cannot open store {target}: directory {path.parent} does not exist")
    if path.is_dir():
        raise StoreError(f"cannot open store {target}: it is a directory")
    return _FILE_URL + str(path)


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite store URL that exists; None for any other store, or none yet."""
    path = _made_path(url)
    if path is None:
        # A URL given as one (a driver, a query, escapes): read as SQLAlchemy reads it, which
        # loads SQLAlchemy here; the URLs `resolve_url` makes of paths need none of it.
        from sqlalchemy import make_url

        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
            return None
        path = Path(parsed.database)
    return path if path.exists() else None


def _made_path(url: str) -> Path | None:
    """The path of a URL as `resolve_url` makes it of an absolute path, which SQLAlchemy reads as
    that path; None for any URL it could read otherwise (a query, a percent escape)."""
    if not url.startswith(_FILE_URL + "/"):
        return None
    path = url[len(_FILE_URL) :]
    return None if "?" in path or "%" in path else Path(path)
