from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from feeds import urls
from feeds.catalogue import FeedKind
from feeds.ical import uid
from feeds.model import Schedule
from feeds.query import FeedQuery, select
from server.snapshot.conditional import Representation
from server.snapshot.published import Published, last_modified
from tests.helpers.app_helpers import NOW, paris


def test_every_catalogue_feed_is_rendered_with_its_path(
    small_schedule: Schedule,
) -> None:
    published = Published(small_schedule, now=NOW)

    paths = [feed.path for feed in published.feeds]

    assert paths[0] == "feeds/all.ics"
    assert "feeds/track/compilers.ics" in paths
    assert "feeds/room/side-room.ics" in paths
    assert paths == [urls.feed(feed.spec) for feed in published.feeds]


def test_the_feeds_of_a_kind_are_the_catalogues_of_that_kind_in_its_order(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)

    rooms = published.feeds_of(FeedKind.ROOM)

    assert rooms == tuple(f for f in published.feeds if f.spec.kind is FeedKind.ROOM)
    assert [f.path for f in rooms] == ["feeds/room/main-hall.ics", "feeds/room/side-room.ics"]


def test_all_feed_keeps_a_recent_cancellation(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)

    feed = published.feed("all")

    assert feed is not None
    assert [s.id for s in feed.sessions] == [
        "aaaa000001",
        "aaaa000002",
        "aaaa000003",
        "aaaa000004",
    ]
    assert feed.representation.body.count(b"BEGIN:VEVENT") == 4
    assert feed.representation.body.count(b"STATUS:CANCELLED") == 1


def test_cancellation_past_its_grace_period_is_dropped(
    small_schedule: Schedule,
) -> None:
    published = Published(small_schedule, now=NOW + timedelta(days=60))

    feed = published.feed("all")

    assert feed is not None
    assert [s.id for s in feed.sessions] == ["aaaa000001", "aaaa000002", "aaaa000003"]


def test_last_modified_is_the_newest_session_change(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)

    feed = published.feed("all")

    assert feed is not None
    assert feed.representation.last_modified == datetime(2026, 3, 20, tzinfo=UTC)
    assert last_modified([]) is None


def test_a_change_rerenders_only_the_changed_event_and_feeds(
    small_schedule: Schedule,
) -> None:
    first = Published(small_schedule, now=NOW)
    renders_before = first.cache.renders
    moved = dataclasses.replace(
        small_schedule.sessions[1], start=paris(10, 15), end=paris(10, 45), revision=1,
        modified=datetime(2026, 3, 25, tzinfo=UTC),
    )  # fmt: skip
    changed = dataclasses.replace(
        small_schedule,
        sessions=(small_schedule.sessions[0], moved, *small_schedule.sessions[2:]),
    )

    second = Published(changed, now=NOW, previous=first)

    assert second.cache.renders - renders_before == 1
    untouched, touched = ("track", "core"), ("track", "compilers")
    old_core, new_core = first.feed(*untouched), second.feed(*untouched)
    old_compilers, new_compilers = first.feed(*touched), second.feed(*touched)
    assert old_core is not None and new_core is not None
    assert old_compilers is not None and new_compilers is not None
    assert new_core.representation is old_core.representation
    assert new_compilers.representation.etag != old_compilers.representation.etag


def test_same_content_gives_same_bytes_without_shared_state(
    small_schedule: Schedule,
) -> None:
    first = Published(small_schedule, now=NOW)
    second = Published(small_schedule, now=NOW + timedelta(hours=1))

    assert [f.representation.body for f in first.feeds] == [f.representation.body for f in second.feeds]


def test_filters_narrow_across_parameters(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)
    everything = published.feed("all")
    assert everything is not None

    rep = published.filtered(everything, [("track", "compilers"), ("level", "beginner")])

    assert rep.body.count(b"BEGIN:VEVENT") == 1
    assert b"UID:" + uid(small_schedule.conference, small_schedule.sessions[2]).encode() in rep.body


def test_repeated_parameter_widens(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)
    everything = published.feed("all")
    assert everything is not None

    one_room = published.filtered(everything, [("room", "main-hall")])
    two_rooms = published.filtered(everything, [("room", "main-hall"), ("room", "side-room")])

    assert (
        one_room.body.count(b"BEGIN:VEVENT"),
        two_rooms.body.count(b"BEGIN:VEVENT"),
    ) == (2, 4)


def test_filter_within_a_feed_cannot_widen_it(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)
    main_hall = published.feed("room", "main-hall")
    assert main_hall is not None

    rep = published.filtered(main_hall, [("room", "side-room")])

    assert rep.body.count(b"BEGIN:VEVENT") == 0


def test_equal_filters_share_one_rendering(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)
    everything = published.feed("all")
    assert everything is not None

    first = published.filtered(everything, [("level", "advanced")])
    second = published.filtered(everything, [("level", "advanced")])

    assert first is second


def test_session_download_is_one_event_with_the_feed_uid(
    small_schedule: Schedule,
) -> None:
    published = Published(small_schedule, now=NOW)
    session = small_schedule.sessions[1]

    rep = published.session_download(session)

    assert rep.body.count(b"BEGIN:VEVENT") == 1
    expected_uid = uid(small_schedule.conference, session).encode()
    assert b"UID:" + expected_uid in rep.body
    everything = published.feed("all")
    assert everything is not None and b"UID:" + expected_uid in everything.representation.body
    assert dict(rep.headers) == {"content-disposition": 'attachment; filename="compilers-script.ics"'}


def test_feed_members_match_select_for_every_feed(demo_schedule: Schedule) -> None:
    published = Published(demo_schedule, now=NOW)

    for feed in published.feeds:
        query = FeedQuery.from_params([]).for_spec(feed.spec)
        assert list(feed.sessions) == select(demo_schedule, query, now=NOW), feed.path


def test_rebuild_without_a_change_renders_nothing_and_keeps_every_body(
    demo_schedule: Schedule,
) -> None:
    first = Published(demo_schedule, now=NOW)
    renders = first.cache.renders

    second = Published(demo_schedule, now=NOW, previous=first)

    assert second.cache.renders == renders
    assert all(a.representation is b.representation for a, b in zip(first.feeds, second.feeds, strict=True))


def test_a_lazy_snapshot_renders_a_feed_only_when_asked_and_the_same_bytes(
    small_schedule: Schedule,
) -> None:
    lazy = Published(small_schedule, now=NOW, lazy=True)
    rendered_before = lazy.cache.renders

    body = lazy.feeds[0].representation.body

    assert rendered_before == 0
    assert body == Published(small_schedule, now=NOW).feeds[0].representation.body


def test_a_snapshot_without_documents_makes_each_document_anew_and_keeps_what_they_share(
    small_schedule: Schedule,
) -> None:
    published = Published(small_schedule, now=NOW, documents=False)
    made: list[str] = []

    def document() -> Representation:
        made.append("document")
        return Representation(b"page", "text/html")

    def shared() -> dict[str, str]:
        made.append("shared")
        return {}

    for _ in range(2):
        published.memo("page", document)
        published.memo("cards", shared)

    assert made == ["document", "shared", "document"]


def test_a_snapshot_keeps_the_documents_it_made(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)
    made: list[str] = []

    def document() -> Representation:
        made.append("document")
        return Representation(b"page", "text/html")

    first, second = published.memo("page", document), published.memo("page", document)

    assert (made, second is first) == (["document"], True)


def test_memoized_is_what_memo_made_and_nothing_before(small_schedule: Schedule) -> None:
    published = Published(small_schedule, now=NOW)
    made = Representation(b"page", "text/html; charset=utf-8")

    before = published.memoized(("page", 1))
    published.memo(("page", 1), lambda: made)

    assert (before, published.memoized(("page", 1)), published.memoized(("page", 2))) == (None, made, None)
