"""The sync state's row, as plain data: what the pusher wrote for one UID in one calendar.

Kept apart from the table (state.py, SQLAlchemy) so the pure planner (plan.py) can take rows
without importing any database module.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


def digest(ics: bytes) -> str:
    return hashlib.sha256(ics).hexdigest()


@dataclass(frozen=True)
class StateRow:
    uid: str
    name: str
    etag: str
    revision: int
    digest: str
