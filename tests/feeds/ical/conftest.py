"""Hand-built schedules for the rendering tests: a Paris conference like the seed one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from feeds.model import Conference, Level, Room, Session, Speaker, Track

CEST = timezone(timedelta(hours=2))

MakeSession = Callable[..., Session]


@pytest.fixture
def conference() -> Conference:
    return Conference(
        name="PyTorch Conference Europe 2026",
        timezone="Europe/Paris",
        start_date=date(2026, 4, 7),
        end_date=date(2026, 4, 7),
        venue="Paris, France",
        city="Paris, France",
    )


@pytest.fixture
def make_session() -> MakeSession:
    """A seed-like session at 7 April 2026, 11:45-11:55 CEST; keyword arguments override."""

    def make(**overrides: Any) -> Session:
        fields: dict[str, Any] = {
            "id": "torchjd",
            "title": "Lightning Talk: TorchJD: Jacobian Descent in PyTorch",
            "start": datetime(2026, 4, 7, 11, 45, tzinfo=CEST),
            "end": datetime(2026, 4, 7, 11, 55, tzinfo=CEST),
            "kind": "Lightning Talk",
            "room": Room("Master Stage"),
            "track": Track("Training Systems"),
            "level": Level("Intermediate"),
            "description": "Jacobian descent (JD) is an extension of gradient descent.",
            "speakers": (
                Speaker("Pierre Quinton", affiliation="EPFL"),
                Speaker("Valérian Rey", affiliation="Simplex Lab"),
            ),
            "revision": 1,
            "modified": datetime(2026, 3, 1, 9, 30, tzinfo=UTC),
        }
        fields.update(overrides)
        return Session(**fields)

    return make
