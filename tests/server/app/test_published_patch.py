"""A snapshot made from the one before it, patching the feeds of the sessions that changed, is
the snapshot made from scratch: the same feeds in the same order, with the same names, sessions
and bytes; feeds no changed session is in are the previous snapshot's own objects."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from feeds.catalogue import CANCELLED_GRACE, FeedKind
from feeds.model import Schedule, Session, Speaker, Status, Track
from server.snapshot.large_feeds import Handover
from server.snapshot.patch import BIG
from server.snapshot.persistent import Chunked
from server.snapshot.published import Published
from tests.helpers.demo_changes import lone_speakers_session, repeated_weekly

NOW = datetime(2026, 4, 1, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)

Change = Callable[[Schedule], Schedule]


def with_session(schedule: Schedule, at: int, change: Callable[[Session], Session]) -> Schedule:
    """`schedule` with its session at `at` changed; every other session the same object."""
    sessions = list(schedule.sessions)
    sessions[at] = change(sessions[at])
    return dataclasses.replace(schedule, sessions=tuple(sorted(sessions, key=lambda s: (s.start, s.title, s.id))))


def moved_a_day(schedule: Schedule) -> Schedule:
    return with_session(
        schedule, 3, lambda s: dataclasses.replace(s, start=s.start + timedelta(days=1), end=s.end + timedelta(days=1))
    )


def retitled(schedule: Schedule) -> Schedule:
    return with_session(schedule, 5, lambda s: dataclasses.replace(s, title="A New Title"))


def new_speaker(schedule: Schedule) -> Schedule:
    return with_session(schedule, 7, lambda s: dataclasses.replace(s, speakers=(*s.speakers, Speaker("Zoë Newcomer"))))


def renamed_track_first(schedule: Schedule) -> Schedule:
    """A session's track spelled otherwise (same slug, a name sorting first: the feed is renamed)."""

    def change(s: Session) -> Session:
        assert s.track is not None
        return dataclasses.replace(s, track=Track(s.track.name.lower(), s.track.slug))

    at = next(i for i, s in enumerate(schedule.sessions) if s.track is not None)
    return with_session(schedule, at, change)


def only_track_left(schedule: Schedule) -> Schedule:
    """Every session of one track moved to a new track: the old track's feed ends."""
    first = next(s.track for s in schedule.sessions if s.track is not None)
    sessions = tuple(
        dataclasses.replace(s, track=Track("Brand New Track")) if s.track == first else s for s in schedule.sessions
    )
    return dataclasses.replace(schedule, sessions=sessions)


def speaker_swapped(schedule: Schedule) -> Schedule:
    """A speaker replaced by another in every session of theirs: the speaker's feed ends."""
    leaving = next(s.speakers[0] for s in schedule.sessions if len(s.speakers) == 1)
    coming = Speaker("Ada Example")
    sessions = tuple(
        dataclasses.replace(s, speakers=tuple(coming if p == leaving else p for p in s.speakers))
        if leaving in s.speakers
        else s
        for s in schedule.sessions
    )
    return dataclasses.replace(schedule, sessions=sessions)


def added(schedule: Schedule) -> Schedule:
    base = schedule.sessions[2]
    extra = dataclasses.replace(base, id="ffff000001", title="A Late Addition", source_id=None)
    return dataclasses.replace(schedule, sessions=(*schedule.sessions, extra))


def cancelled(schedule: Schedule) -> Schedule:
    return with_session(
        schedule, 9, lambda s: dataclasses.replace(s, status=Status.CANCELLED, modified=NOW - timedelta(days=1))
    )


CHANGES = [moved_a_day, retitled, new_speaker, renamed_track_first, only_track_left, speaker_swapped, added, cancelled]


def shape(published: Published) -> list[tuple[object, list[str]]]:
    return [(feed.spec, [s.id for s in feed.sessions]) for feed in published.feeds]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__)
def test_a_patched_snapshot_is_the_snapshot_made_from_scratch(demo_schedule: Schedule, change: Change) -> None:
    previous = Published(demo_schedule, now=NOW, lazy=True)
    schedule = change(demo_schedule)

    patched = Published(schedule, now=LATER, previous=previous, lazy=True)

    fresh = Published(schedule, now=LATER, lazy=True)
    assert shape(patched) == shape(fresh)
    assert [f.representation.body for f in patched.feeds] == [f.representation.body for f in fresh.feeds]


def written_since(before: Schedule, after: Schedule) -> list[Session]:
    """The sessions of `after` that are not `before`'s own objects, as Store.read_since names them."""
    held = {id(s) for s in before.sessions}
    return [s for s in after.sessions if id(s) not in held]


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__)
def test_a_snapshot_patched_from_the_sessions_written_is_the_snapshot_made_from_scratch(
    demo_schedule: Schedule, change: Change
) -> None:
    previous = Published(demo_schedule, now=NOW, lazy=True)
    schedule = change(demo_schedule)

    patched = Published(
        schedule, now=LATER, previous=previous, lazy=True, written=written_since(demo_schedule, schedule)
    )

    fresh = Published(schedule, now=LATER, lazy=True)
    assert shape(patched) == shape(fresh)
    assert [f.representation.body for f in patched.feeds] == [f.representation.body for f in fresh.feeds]
    assert dict(patched.sessions_by_id) == dict(fresh.sessions_by_id)
    assert all(patched.feed(f.spec.kind.value, f.spec.slug) is f for f in patched.feeds)


def test_feeds_without_a_changed_session_are_the_previous_snapshots_own(demo_schedule: Schedule) -> None:
    previous = Published(demo_schedule, now=NOW, lazy=True)
    schedule = retitled(demo_schedule)
    (changed,) = {s.id for s in schedule.sessions} - {s.id for s in demo_schedule.sessions if s in schedule.sessions}

    patched = Published(
        schedule, now=LATER, previous=previous, lazy=True, written=written_since(demo_schedule, schedule)
    )

    kept = [f for f in patched.feeds if all(s.id != changed for s in f.sessions)]
    remade = [f for f in patched.feeds if any(s.id == changed for s in f.sessions)]
    assert len(kept) > len(remade) > 1
    assert all(f is previous.feed(f.spec.kind.value, f.spec.slug) for f in kept)
    assert all(f is not previous.feed(f.spec.kind.value, f.spec.slug) for f in remade)


@pytest.mark.parametrize("change", [only_track_left, speaker_swapped], ids=lambda c: c.__name__)
def test_a_feed_its_sessions_leave_ends_in_a_patch(demo_schedule: Schedule, change: Change) -> None:
    previous = Published(demo_schedule, now=NOW, lazy=True)
    schedule = change(demo_schedule)

    patched = Published(schedule, now=LATER, previous=previous, lazy=True)

    gone = {(f.spec.kind, f.spec.slug) for f in previous.feeds} - {(f.spec.kind, f.spec.slug) for f in patched.feeds}
    assert len(gone) == 1
    assert patched.catalogue.touched is not None
    assert gone <= patched.catalogue.touched  # a static build looks for its files by its path
    assert shape(patched) == shape(Published(schedule, now=LATER, lazy=True))


def test_a_feed_that_loses_the_session_naming_it_takes_its_next_name_in_a_patch(demo_schedule: Schedule) -> None:
    # One session spells the track so that it sorts first, and the feed is named after it; then
    # it spells it as every other session does again.
    at = next(i for i, s in enumerate(demo_schedule.sessions) if s.track is not None)
    spelled = with_session(
        demo_schedule,
        at,
        lambda s: dataclasses.replace(s, track=Track(s.track.name.upper(), s.track.slug)),  # type: ignore[union-attr]
    )
    at = next(i for i, s in enumerate(spelled.sessions) if s not in demo_schedule.sessions)
    previous = Published(spelled, now=NOW, lazy=True)
    schedule = with_session(spelled, at, lambda s: next(d for d in demo_schedule.sessions if d.id == s.id))

    patched = Published(schedule, now=LATER, previous=previous, lazy=True)

    fresh = Published(schedule, now=LATER, lazy=True)
    assert patched.catalogue.touched is not None
    assert [f.spec for f in patched.feeds] == [f.spec for f in fresh.feeds] != [f.spec for f in previous.feeds]
    assert shape(patched) == shape(fresh)


def test_a_feed_a_session_no_longer_shown_may_name_is_made_from_scratch(demo_schedule: Schedule) -> None:
    # The speaker's other session was withdrawn past its grace: the catalogue still names the
    # speaker's feed from it, and no feed's sessions tell that.
    at = lone_speakers_session(demo_schedule)
    lone = demo_schedule.sessions[at]
    hidden = dataclasses.replace(
        lone,
        id="ffff000002",
        source_id=None,
        status=Status.CANCELLED,
        modified=NOW - CANCELLED_GRACE - timedelta(days=1),
    )
    before = dataclasses.replace(demo_schedule, sessions=(*demo_schedule.sessions, hidden))
    previous = Published(before, now=NOW, lazy=True)
    schedule = with_session(before, at, lambda s: dataclasses.replace(s, speakers=(Speaker("Ada Example"),)))

    patched = Published(schedule, now=LATER, previous=previous, lazy=True)

    assert patched.catalogue.touched is None
    assert shape(patched) == shape(Published(schedule, now=LATER, lazy=True))
    assert patched.feed("speaker", lone.speakers[0].slug) is not None


def test_past_a_cancellations_grace_period_the_snapshot_is_made_from_scratch(demo_schedule: Schedule) -> None:
    withdrawn = cancelled(demo_schedule)
    previous = Published(withdrawn, now=NOW, lazy=True)
    after_grace = NOW + CANCELLED_GRACE + timedelta(days=2)
    schedule = retitled(withdrawn)

    patched = Published(schedule, now=after_grace, previous=previous, lazy=True)

    assert shape(patched) == shape(Published(schedule, now=after_grace, lazy=True))
    assert len(patched.feed("all", "").sessions) == len(previous.feed("all", "").sessions) - 1  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def large_schedule(demo_schedule: Schedule) -> Schedule:
    """Enough sessions that the whole conference's feed is held in chunks."""
    return repeated_weekly(demo_schedule, BIG)


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__)
def test_a_patched_snapshot_of_a_large_conference_is_the_snapshot_made_from_scratch(
    large_schedule: Schedule, change: Change
) -> None:
    previous = Published(large_schedule, now=NOW, lazy=True)
    large = [f for f in previous.feeds if isinstance(f.members, Chunked)]
    rendered_before = [f.representation for f in large]  # what the patched feeds are made from
    schedule = change(large_schedule)

    patched = Published(
        schedule, now=LATER, previous=previous, lazy=True, written=written_since(large_schedule, schedule)
    )

    eager = Published(schedule, now=LATER)  # every feed by feeds.ical.render_calendar
    assert len(rendered_before) == len(large) > 0
    assert shape(patched) == shape(eager)
    made = [(f.spec, f.representation.body, f.representation.last_modified) for f in patched.feeds]
    assert made == [(f.spec, f.representation.body, f.representation.last_modified) for f in eager.feeds]
    assert dict(patched.sessions_by_id) == dict(eager.sessions_by_id)


def test_a_large_feeds_unchanged_chunks_are_shared_with_the_previous_snapshot(large_schedule: Schedule) -> None:
    previous = Published(large_schedule, now=NOW, lazy=True)
    schedule = retitled(large_schedule)

    patched = Published(
        schedule, now=LATER, previous=previous, lazy=True, written=written_since(large_schedule, schedule)
    )

    before, after = previous.catalogue.members[FeedKind.ALL, ""], patched.catalogue.members[FeedKind.ALL, ""]
    assert isinstance(before, Chunked) and isinstance(after, Chunked)
    assert sum(a is not b for a, b in zip(before.chunks, after.chunks, strict=True)) == 1


def test_a_large_feed_not_rendered_yet_counts_the_previous_bytes_it_holds_until_let_go(
    large_schedule: Schedule,
) -> None:
    previous = Published(large_schedule, now=NOW, lazy=True)
    size = len(previous.feeds[0].representation.body)
    schedule = retitled(large_schedule)
    patched = Published(
        schedule, now=LATER, previous=previous, lazy=True, written=written_since(large_schedule, schedule)
    )
    new = patched.feeds[0]
    assert new.handover is not None
    counted = (patched.rendered.size, new.handover.held())

    new.let_go()

    assert counted == (size, size)
    assert (new.handover.held(), new.rendered) == (0, False)


def test_the_feeds_a_served_snapshot_replaced_keep_no_bytes(large_schedule: Schedule) -> None:
    previous = Published(large_schedule, now=NOW, lazy=True)
    previous.warm()
    schedule = retitled(large_schedule)
    patched = Published(
        schedule, now=LATER, previous=previous, lazy=True, written=written_since(large_schedule, schedule)
    )
    replaced = [f for f in previous.feeds if not any(f is g for g in patched.feeds)]

    patched.warm()  # as the server does once the snapshot is served

    assert len(replaced) > 0
    assert [f.rendered for f in replaced] == [False] * len(replaced)


def test_a_large_feeds_parts_once_taken_over_are_held_by_the_successor_alone(large_schedule: Schedule) -> None:
    previous = Published(large_schedule, now=NOW, lazy=True)
    whole = previous.feeds[0]
    size = len(whole.representation.body)
    assert whole.handover is not None
    successor = Handover(whole.handover)
    offered = successor.held()

    taken = successor.take_before()

    assert (offered, taken is not None) == (size, True)
    assert Handover(whole.handover).held() == 0
