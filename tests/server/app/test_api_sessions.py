"""`/api/sessions` joined from one chunk per day (what a static build keeps): the same bytes as
one json.dumps of the whole document."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from feeds.exports.chunks import Texts, rendered
from feeds.model import Schedule, Session
from feeds.pipeline import load_schedule
from server.links import Site
from server.snapshot.api import sessions_body, sessions_representation
from server.snapshot.published import Published
from server.web.demo import demo_schedule
from tests.helpers.held_texts import HeldTexts

SITE = Site.of("https://cal.example.org")
NOW = datetime(2026, 4, 1, tzinfo=UTC)


def published(shared_data: Path) -> Published:
    schedule = load_schedule([str(shared_data / "ccc_38c3_2024_schedule.xml")], None).schedule
    return Published(schedule, now=NOW, base_url=SITE.base_url)


def test_the_days_chunks_join_to_one_dump_of_the_whole_document(shared_data: Path) -> None:
    snapshot = published(shared_data)
    seen: list[tuple[int, bool]] = []

    def kept(day: tuple[Session, ...], first: bool, make: Callable[[Texts[Session]], bytes]) -> bytes:
        seen.append((len(day), first))
        return make(rendered)

    body = sessions_body(snapshot, SITE, kept)

    document = json.loads(body)
    assert body == json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert body == sessions_representation(snapshot, SITE).body
    assert [first for _, first in seen] == [True] + [False] * (len(seen) - 1)
    assert len(seen) == 4  # 38C3's four days
    assert sum(count for count, _ in seen) == len(document["sessions"]) == len(snapshot.schedule.sessions)


def test_a_day_joined_from_kept_entries_is_the_same_and_renders_only_the_entries_not_kept(shared_data: Path) -> None:
    snapshot = published(shared_data)
    keeper: HeldTexts[Session] = HeldTexts(lambda session: session.id)

    def kept(day: tuple[Session, ...], first: bool, make: Callable[[Texts[Session]], bytes]) -> bytes:
        return make(keeper)

    whole = sessions_body(snapshot, SITE, kept)
    everything, dropped = list(keeper.rendered), snapshot.schedule.sessions[7].id
    keeper.rendered.clear()
    del keeper.held[dropped]

    again = sessions_body(snapshot, SITE, kept)

    assert (whole, again) == (sessions_representation(snapshot, SITE).body,) * 2
    assert sorted(everything) == sorted(s.id for s in snapshot.schedule.sessions)
    assert keeper.rendered == [dropped]


def test_no_sessions_is_an_empty_list() -> None:
    snapshot = Published(Schedule(demo_schedule().conference, ()), now=NOW, base_url=SITE.base_url)

    assert sessions_body(snapshot, SITE) == b'{"sessions":[]}'
