"""One error base for the server package; subclasses are named for the condition."""

from __future__ import annotations


class ServerError(Exception):
    """Base of every expected failure in server code; the CLI prints it as one line."""


class StoreError(ServerError):
    """The store cannot be opened or written."""


class IngestRefused(ServerError):
    """An ingest was refused (e.g. it would cancel too much of the live schedule without --force)."""


class StoreBusy(StoreError):
    """The store is locked by another writer or unreachable for now; trying later may work."""
