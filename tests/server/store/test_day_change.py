"""The conference's day change is stored with it and changes with a re-ingest."""

from __future__ import annotations

import dataclasses
from datetime import time
from pathlib import Path

from server.store import Store
from server.web.demo import demo_schedule


def test_the_day_change_is_stored_and_follows_a_reingest(tmp_path: Path) -> None:
    schedule = demo_schedule()
    night = dataclasses.replace(schedule, conference=dataclasses.replace(schedule.conference, day_change=time(6)))
    later = dataclasses.replace(schedule, conference=dataclasses.replace(schedule.conference, day_change=time(4, 30)))

    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(night)
        first = store.live()
        store.ingest(later)
        second = store.live()

    assert (first and first.conference.day_change, second and second.conference.day_change) == (time(6), time(4, 30))
