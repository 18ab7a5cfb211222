"""The Sched page reader: pages of one snapshot joined into records, defects kept for the ingest."""

from __future__ import annotations

from pathlib import Path

from feeds.sources.documents import Document
from feeds.sources.sched_page import READER

DAMAGED = Path(__file__).resolve().parents[2] / "fixtures" / "sched" / "damaged"

LIST_PAGE = """This schedule is automatically displayed in CEST (UTC/GMT +2).
Type: Systems clear filter
Tuesday, April 7
\u0020
11:00 CEST

Typed Talk - Ada Lovelace, Engines
Tuesday April 7, 2026 11:00 - 11:30 CEST
About it.
Tuesday April 7, 2026 11:00 - 11:30 CEST
Room 1
\u00a0 • Audience Level Beginner
\u00a0 • Slides Attached No
\u0020
"""


def test_filter_header_gives_the_track_and_the_bullet_the_level() -> None:
    batch = READER.read([Document("list.txt", LIST_PAGE)], "Europe/Paris")

    (record,) = batch.sessions
    assert (record.title, record.room, record.track, record.level) == ("Typed Talk", "Room 1", "Systems", "Beginner")


def test_damaged_page_reports_its_defect_and_keeps_the_others() -> None:
    path = DAMAGED / "hour_25.txt"

    batch = READER.read([Document(str(path), path.read_text(encoding="utf-8"))], "Europe/Paris")

    assert len(batch.sessions) == 5
    assert [str(d) for d in batch.defects] == [
        f"{path}:74: Bringing Google’s Colossus to PyTorch: Rapid Storage via fsspec to Keep GPUs Busy: "
        "unreadable time line 'Tuesday April 7, 2026 25:00 - 12:10 CEST' (hour must be in 0..23); the session is left out"
    ]
