"""A locked or unreachable database as `StoreBusy`, named in our words with the driver's first line,
for the stores that read and write in short transactions of their own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import OperationalError

from server.errors import StoreBusy


def first_line(exc: BaseException) -> str:
    """The driver's own message, first line only: the rest is SQL and parameters."""
    message = str(getattr(exc, "orig", None) or exc)
    return message.splitlines()[0] if message else type(exc).__name__


def read_rows(engine: Engine, query: Any, what: str) -> list[Any]:
    """Every row of `query`, or `StoreBusy` saying `what` could not be read."""
    try:
        with engine.connect() as conn:
            return list(conn.execute(query).all())
    except OperationalError as exc:
        raise StoreBusy(f"cannot read {what} now: {first_line(exc)}") from exc


@contextmanager
def writing(engine: Engine, what: str) -> Iterator[Connection]:
    """One transaction, committed on leaving; `StoreBusy` saying `what` could not be written."""
    try:
        with engine.begin() as conn:
            yield conn
    except OperationalError as exc:
        raise StoreBusy(f"cannot write {what} now: {first_line(exc)}") from exc
