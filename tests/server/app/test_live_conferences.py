"""A server of many conferences: a conference's snapshot is made when a request asks for it, kept
in step with the store while it is asked for, and let go when idle or when too many are held;
the default conference's is made at start and always kept."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from feeds.model import Schedule
from server.snapshot.live import IDLE, Live, NoSuchConference
from server.store import Store, removal
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http

INGESTED = datetime(2026, 3, 30, 12, tzinfo=UTC)
SLUGS = ("first-conf", "second-conf", "third-conf", "fourth-conf")


class Ticks:
    """A monotonic clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def named(schedule: Schedule, slug: str) -> Schedule:
    return dataclasses.replace(schedule, conference=dataclasses.replace(schedule.conference, slug=slug))


@pytest.fixture
def four(tmp_path: Path, small_schedule: Schedule) -> Iterator[Store]:
    """Four conferences of Tiny Conf's sessions; the first ingested is the default."""
    opened = Store.open(str(tmp_path / "four.sqlite"))
    for slug in SLUGS:
        opened.ingest(named(small_schedule, slug), now=INGESTED)
    yield opened
    opened.close()


def titles(live: Live, slug: str) -> list[str]:
    return sorted(s.title for s in live.current(slug).schedule.sessions)


def held(live: Live) -> list[str]:
    return sorted(live.served.snapshots)


def test_refresh_makes_the_default_conference_alone(four: Store) -> None:
    live = Live(four, clock=lambda: NOW)

    live.refresh()

    assert held(live) == ["first-conf"]
    assert [c.slug for c in live.served.summaries] == list(SLUGS)


def test_a_request_for_a_conference_makes_its_snapshot(four: Store) -> None:
    app = create_app(four, clock=lambda: NOW)
    http = Http(app)
    http.get("/feeds/all.ics")

    reply = http.get("/c/third-conf/feeds/all.ics")

    assert reply.status == 200
    assert reply.content.count(b"BEGIN:VEVENT") == 4  # the cancelled one within its grace period
    assert held(app.state.live) == ["first-conf", "third-conf"]


def test_a_conference_made_on_request_serves_what_a_server_holding_it_from_start_serves(four: Store) -> None:
    loaded = Http(create_app(four, clock=lambda: NOW))
    default = Http(create_app(four, clock=lambda: NOW, default="second-conf"))
    default.get("/feeds/all.ics")

    reply = loaded.get("/c/second-conf/feeds/track/compilers.ics")

    expected = default.get("/c/second-conf/feeds/track/compilers.ics")
    assert (reply.status, reply.content, reply.headers["etag"]) == (200, expected.content, expected.headers["etag"])


def test_an_idle_conferences_snapshot_is_let_go(four: Store) -> None:
    ticks = Ticks()
    live = Live(four, clock=lambda: NOW, idle=60.0, timer=ticks)
    live.refresh()
    live.current("second-conf")
    ticks.now += 30
    live.current("third-conf")
    ticks.now += 31

    gone = live.let_go_idle()

    assert gone == 1
    assert held(live) == ["first-conf", "third-conf"]


def test_the_default_conferences_snapshot_is_never_let_go(four: Store) -> None:
    ticks = Ticks()
    live = Live(four, clock=lambda: NOW, idle=60.0, keep=0, timer=ticks)
    live.refresh()
    ticks.now += 3600

    gone = live.let_go_idle()

    assert (gone, held(live)) == (0, ["first-conf"])


def test_asking_for_a_conference_keeps_it_from_being_idle(four: Store) -> None:
    ticks = Ticks()
    live = Live(four, clock=lambda: NOW, idle=60.0, timer=ticks)
    live.refresh()
    live.current("second-conf")
    ticks.now += 50
    live.snapshot("second-conf")
    ticks.now += 50

    gone = live.let_go_idle()

    assert (gone, held(live)) == (0, ["first-conf", "second-conf"])


def test_the_fast_feed_path_keeps_a_conference_from_being_idle(four: Store) -> None:
    ticks = Ticks()
    app = create_app(four, clock=lambda: NOW, timer=ticks)
    live = app.state.live
    http = Http(app)
    http.get("/c/second-conf/feeds/all.ics")  # made, rendered: later requests take the fast path
    ticks.now += IDLE - 1
    http.get("/c/second-conf/feeds/all.ics")
    ticks.now += 2

    gone = live.let_go_idle()

    assert (gone, held(live)) == (0, ["first-conf", "second-conf"])


def test_beyond_keep_the_least_recently_asked_for_is_let_go(four: Store) -> None:
    ticks = Ticks()
    live = Live(four, clock=lambda: NOW, keep=2, timer=ticks)
    live.refresh()
    for slug in ("second-conf", "third-conf"):
        live.current(slug)
        ticks.now += 1
    live.current("second-conf")
    ticks.now += 1

    live.current("fourth-conf")

    assert held(live) == ["first-conf", "fourth-conf", "second-conf"]


def test_a_conference_let_go_is_served_again_with_the_same_bytes_and_etag(four: Store) -> None:
    ticks = Ticks()
    app = create_app(four, clock=lambda: NOW, timer=ticks)
    live = app.state.live
    http = Http(app)
    before = http.get("/c/third-conf/feeds/all.ics")
    ticks.now += IDLE + 1
    assert live.let_go_idle() == 1

    after = http.get("/c/third-conf/feeds/all.ics")

    assert (after.content, after.headers["etag"]) == (before.content, before.headers["etag"])
    assert held(live) == ["first-conf", "third-conf"]


def test_a_held_conference_follows_its_ingests(four: Store, small_schedule: Schedule) -> None:
    live = Live(four, clock=lambda: NOW)
    live.refresh()
    live.current("third-conf")
    first, *rest = small_schedule.sessions
    retitled = dataclasses.replace(small_schedule, sessions=(dataclasses.replace(first, title="Reopening"), *rest))

    four.ingest(named(retitled, "third-conf"), now=INGESTED)
    swapped = live.refresh()

    assert swapped is True
    assert titles(live, "third-conf") == ["Compilers <script>", "Dropped talk", "Kernels", "Reopening"]


def test_an_ingest_of_a_conference_not_held_makes_nothing(four: Store, small_schedule: Schedule) -> None:
    live = Live(four, clock=lambda: NOW)
    live.refresh()
    first, *rest = small_schedule.sessions
    retitled = dataclasses.replace(small_schedule, sessions=(dataclasses.replace(first, title="Reopening"), *rest))

    four.ingest(named(retitled, "fourth-conf"), now=INGESTED)
    live.refresh()

    assert held(live) == ["first-conf"]
    assert titles(live, "fourth-conf") == ["Compilers <script>", "Dropped talk", "Kernels", "Reopening"]


def test_a_conference_removed_is_served_no_more_after_the_next_refresh_though_it_held_no_newest_version(
    four: Store,
) -> None:
    live = Live(four, clock=lambda: NOW)
    live.refresh()
    live.current("second-conf")

    removal.remove(four.engine, "second-conf", now=INGESTED)
    swapped = live.refresh()

    assert swapped is True
    assert held(live) == ["first-conf"]
    assert [c.slug for c in live.served.summaries] == ["first-conf", "third-conf", "fourth-conf"]


def test_a_snapshot_loaded_or_let_go_keeps_what_was_made_of_the_list_of_conferences(four: Store) -> None:
    live = Live(four, clock=lambda: NOW, keep=1)
    live.refresh()
    made = live.served.made

    live.current("second-conf")
    live.current("third-conf")  # lets second-conf go: one kept besides the default

    assert held(live) == ["first-conf", "third-conf"]
    assert live.served.made is made


def test_a_conference_ingested_since_the_last_refresh_is_found_by_its_first_request(
    four: Store, small_schedule: Schedule
) -> None:
    live = Live(four, clock=lambda: NOW)
    live.refresh()
    four.ingest(named(small_schedule, "fifth-conf"), now=INGESTED)

    found = live.current("fifth-conf")

    assert found.schedule.conference.slug == "fifth-conf"


class HeldChanges:
    """The store, counting `changes()` reads and holding the first until `release` is set."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.reads = 0
        self.reading = threading.Event()
        self.release = threading.Event()

    def changes(self) -> tuple[int, int]:
        self.reads += 1
        if self.reads == 1:
            self.reading.set()
            self.release.wait(timeout=30)
        return self.store.changes()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_requests_for_unknown_slugs_arriving_during_a_store_read_share_the_next_one(four: Store) -> None:
    store = HeldChanges(four)
    live = Live(store, clock=lambda: NOW)
    began = [threading.Event() for _ in range(8)]
    unknown: list[str] = []

    def ask(began: threading.Event) -> None:
        began.set()
        try:
            live.current("nope")
        except NoSuchConference:
            unknown.append("nope")

    first = threading.Thread(target=live.refresh)
    first.start()
    assert store.reading.wait(timeout=30)
    asked = [threading.Thread(target=ask, args=(event,)) for event in began]
    for thread in asked:
        thread.start()
    assert all(event.wait(timeout=30) for event in began)
    time.sleep(0.2)  # from there each reads the count of refreshes begun, then waits for the lock

    store.release.set()
    for thread in (first, *asked):
        thread.join(timeout=30)

    assert unknown == ["nope"] * 8
    assert store.reads == 2


def test_requests_for_invented_slugs_leave_nothing_behind(four: Store) -> None:
    live = Live(four, clock=lambda: NOW)
    live.refresh()

    for n in range(100):
        with pytest.raises(NoSuchConference):
            live.current(f"invented-{n}")

    assert live._loads == {}
