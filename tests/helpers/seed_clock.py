"""The instant the interop tests read the seed schedule at: before the conference, so every
session is still to come and no feed leaves one out as past."""

from __future__ import annotations

from datetime import UTC, datetime

NOW = datetime(2026, 4, 1, tzinfo=UTC)
