"""One change to the demo conference, as the pages would bring it: a session moved by an hour. For
the tests that follow a change from ingest to an attached calendar (tests/server/jobs, tests/deploy).
`shifted` makes such a change on the model, for tests that build from a Schedule."""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from collections.abc import Collection
from datetime import timedelta
from pathlib import Path

from feeds.demo import DEMO_DIR
from feeds.model import Schedule

SLUG = "pytorch-conference-europe-2026"
MOVED_TITLE = "Parameterized CUDA Graph Launch in PyTorch: CUDA Graphs Without the Pain"
MOVED_PAGE = "002_f0fe97cd188ad8b4.txt"
OTHER_TITLES = ("Helion 1.0: A High-Level DSL for Performance Portable Kernels", "TorchJD: Jacobian Descent in PyTorch")
_BEFORE = "Tuesday April 7, 2026 12:00 - 12:25 CEST"
_AFTER = "Tuesday April 7, 2026 13:00 - 13:25 CEST"


def moved_pages(work: Path) -> Path:
    """A copy of the demo pages in `work` with MOVED_TITLE moved from 12:00 to 13:00 CEST."""
    folder = work / "pages"
    shutil.copytree(DEMO_DIR, folder)
    page = folder / MOVED_PAGE
    text = page.read_text(encoding="utf-8")
    assert text.count(_BEFORE) == 2
    page.write_text(text.replace(_BEFORE, _AFTER), encoding="utf-8")
    return folder


def shifted(schedule: Schedule, ids: Collection[str], by: timedelta) -> Schedule:
    """`schedule` with the sessions `ids` name starting and ending `by` later."""
    return dataclasses.replace(
        schedule,
        sessions=tuple(
            dataclasses.replace(s, start=s.start + by, end=s.end + by) if s.id in ids else s for s in schedule.sessions
        ),
    )


def repeated_weekly(schedule: Schedule, at_least: int) -> Schedule:
    """`schedule`'s sessions over and over, a week apart, with ids of their own, until there are
    more than `at_least`: a conference whose whole feed is held in chunks when `at_least` is
    server.snapshot.patch.BIG."""
    copies = at_least // len(schedule.sessions) + 2
    sessions = [
        dataclasses.replace(s, id=f"{s.id}{n:04d}", start=s.start + timedelta(weeks=n), end=s.end + timedelta(weeks=n))
        for n in range(copies)
        for s in schedule.sessions
    ]
    return dataclasses.replace(schedule, sessions=tuple(sorted(sessions, key=lambda s: (s.start, s.title, s.id))))


def lone_speakers_session(schedule: Schedule) -> int:
    """The place in `schedule` of a session by one speaker who gives no other: given to another
    speaker, it ends that speaker's feed."""
    talks = Counter(speaker.slug for s in schedule.sessions for speaker in s.speakers)
    return next(at for at, s in enumerate(schedule.sessions) if len(s.speakers) == 1 and talks[s.speakers[0].slug] == 1)
