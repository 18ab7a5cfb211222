"""Where the store lives: `--db PATH_OR_URL`, else $CONFCAL_DB, else a SQLite file in the user's
data directory. A value containing "://" is a SQLAlchemy URL (e.g. postgresql+psycopg://...);
anything else is a SQLite file path."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from sqlalchemy import Engine, create_engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from server.errors import StoreError

ENV_VAR = "CONFCAL_DB"
DEFAULT_FILE = "confcal.sqlite"


def default_path() -> Path:
    return Path(platformdirs.user_data_dir("confcal")) / DEFAULT_FILE


def resolve_url(target: str | None) -> str:
    """The SQLAlchemy URL for a `--db` value (None: environment, then the default file)."""
    if not target:
        target = os.environ.get(ENV_VAR) or None
    if not target:
        path = default_path()
        # Only the default location is created for the user; an explicit path must exist.
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
    if "://" in target:
        return target
    path = Path(target).expanduser().absolute()
    if not path.parent.is_dir():
        raise StoreError(f"cannot open store {target}: directory {path.parent} does not exist")
    if path.is_dir():
        raise StoreError(f"cannot open store {target}: it is a directory")
    return f"sqlite:///{path}"


def display(url: str) -> str:
    """The URL with any password masked, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def make_engine(url: str) -> Engine:
    try:
        return create_engine(url)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise StoreError(f"cannot open store {display(url)}: {exc}") from exc
