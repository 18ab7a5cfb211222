"""The five PyTorch Conference Europe 2026 pages merge into the schedule the site shows."""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from feeds.demo import DEMO_DIR
from feeds.pipeline import Loaded

TIME_LINE = re.compile(r"^\w+ April (\d+), 2026 (\d\d):(\d\d) - (\d\d):(\d\d) CEST$", re.M)


def test_exactly_28_sessions(seed_loaded: Loaded) -> None:
    assert len(seed_loaded.schedule.sessions) == 28


def test_training_systems_track_holds_six_two_only_through_the_filter(seed_loaded: Loaded) -> None:
    sessions = [s for s in seed_loaded.schedule.sessions if s.track and s.track.name == "Training Systems"]
    assert len(sessions) == 6
    assert {s.title for s in sessions} >= {
        "Training Embedding Model Resiliently for Multimodal Model Inference Routing",
        "TorchStore: What We Learned Building Distributed Storage Solutions for AysncRL",
    }


def test_levels(seed_loaded: Loaded) -> None:
    levels = Counter(s.level.name if s.level else None for s in seed_loaded.schedule.sessions)
    assert levels == {"Intermediate": 21, "Advanced": 5, "Any": 2}


def test_four_rooms(seed_loaded: Loaded) -> None:
    rooms = {s.room.name for s in seed_loaded.schedule.sessions if s.room}
    assert rooms == {"Master Stage", "Junior Stage", "Founders Cafe", "Central Room"}


def test_42_distinct_speakers_with_spelling_variants_merged(seed_loaded: Loaded) -> None:
    names = sorted({p.name for s in seed_loaded.schedule.sessions for p in s.speakers})
    assert len(names) == 42
    assert [n for n in names if n.startswith("Amir")] == ["Amir Afzali"]
    assert [n for n in names if n.startswith("Daniel Holanda")] == ["Daniel Holanda"]
    assert "Peter Staar" in names


def test_speaker_slugs_are_unique_and_readable(seed_loaded: Loaded) -> None:
    speakers = {p for s in seed_loaded.schedule.sessions for p in s.speakers}
    assert len({p.slug for p in speakers}) == len(speakers)
    assert next(p.slug for p in speakers if p.name == "Valérian Rey") == "valerian-rey"


def test_page_003_is_reported_not_scheduled(seed_loaded: Loaded) -> None:
    reported = [w for w in seed_loaded.warnings if w.source.endswith("003_8d12cb28771c542b.txt")]
    assert len(reported) == 1
    assert "cannot be placed" in reported[0].message
    assert not any("PyTorch Monarch introduces" in s.description for s in seed_loaded.schedule.sessions)


def test_page_004_merged_not_duplicated(seed_loaded: Loaded) -> None:
    matches = [s for s in seed_loaded.schedule.sessions if "Trillion-Parameter" in s.title]
    assert len(matches) == 1
    assert [p.name for p in matches[0].speakers] == ["Songlin Jiang"]
    assert matches[0].room is not None and matches[0].room.name == "Junior Stage"


def test_every_time_equals_the_pages_cest_wall_time_in_utc(seed_loaded: Loaded) -> None:
    expected: set[tuple[datetime, datetime]] = set()
    for page in sorted(Path(DEMO_DIR).glob("*.txt")):
        for day, h1, m1, h2, m2 in TIME_LINE.findall(page.read_text(encoding="utf-8")):
            base = datetime(2026, 4, int(day), tzinfo=timezone.utc) - timedelta(hours=2)
            expected.add(
                (base + timedelta(hours=int(h1), minutes=int(m1)), base + timedelta(hours=int(h2), minutes=int(m2)))
            )
    actual = {(s.start.astimezone(timezone.utc), s.end.astimezone(timezone.utc)) for s in seed_loaded.schedule.sessions}
    assert actual == expected
    paris = ZoneInfo("Europe/Paris")
    assert {s.start.astimezone(paris).tzname() for s in seed_loaded.schedule.sessions} == {"CEST"}


def test_lightning_talk_is_a_kind_not_part_of_the_title(seed_loaded: Loaded) -> None:
    torchjd = next(s for s in seed_loaded.schedule.sessions if s.title.startswith("TorchJD"))
    assert (torchjd.kind, torchjd.title) == ("lightning talk", "TorchJD: Jacobian Descent in PyTorch")
    assert Counter(s.kind for s in seed_loaded.schedule.sessions) == {"talk": 15, "lightning talk": 13}


def test_conference_from_the_pages_not_the_wrong_header_year(seed_loaded: Loaded) -> None:
    conference = seed_loaded.schedule.conference
    assert (conference.name, conference.timezone) == ("PyTorch Conference Europe 2026", "Europe/Paris")
    assert (conference.start_date.isoformat(), conference.end_date.isoformat()) == ("2026-04-07", "2026-04-07")


def test_speaker_order_follows_the_title_line(seed_loaded: Loaded) -> None:
    docling = next(s for s in seed_loaded.schedule.sessions if "Docling" in s.title)
    assert [p.name for p in docling.speakers] == ["Mingxuan Zhao", "Peter Staar", "Carol Chen"]
    peter = docling.speakers[1]
    assert (peter.affiliation, peter.bio) == ("IBM", None)
