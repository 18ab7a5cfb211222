"""A conference's rendered feeds are kept within a byte limit (server.snapshot.published.Rendered):
past it the feeds not asked for lately let go of their bytes, and a feed let go is made again,
the same bytes and ETag, when asked for."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from feeds.model import Schedule
from server.snapshot.published import Published, Rendered

NOW = datetime(2026, 4, 1, tzinfo=UTC)


def test_warming_stops_at_the_limit_and_the_feeds_left_are_made_when_asked_for(demo_schedule: Schedule) -> None:
    whole = Published(demo_schedule, now=NOW, lazy=True)
    whole.warm()
    sizes = [len(f.representation.body) for f in whole.feeds]
    limit = sum(sizes) // 3
    published = Published(demo_schedule, now=NOW, lazy=True, rendered=Rendered(limit))

    published.warm()

    kept = [f for f in published.feeds if f.rendered]
    assert 0 < len(kept) < len(published.feeds)
    assert published.rendered.size == sum(len(f.representation.body) for f in kept)
    assert published.rendered.size < limit + max(sizes)
    assert [f.representation.body for f in published.feeds] == [f.representation.body for f in whole.feeds]


def test_warming_fills_the_room_left_and_stops_at_the_first_feed_that_does_not_fit(demo_schedule: Schedule) -> None:
    whole = Published(demo_schedule, now=NOW, lazy=True)
    whole.warm()
    limit = sum(len(f.representation.body) for f in whole.feeds) // 3
    published = Published(demo_schedule, now=NOW, lazy=True, rendered=Rendered(limit))
    asked = published.feeds[-1]
    _ = asked.representation

    published.warm()

    kept = [f for f in published.feeds if f.rendered]
    assert asked in kept
    assert published.rendered.size == sum(len(f.representation.body) for f in kept)
    assert published.rendered.size <= limit
    # Each feed kept rendered once, and one more that did not fit, where warming stopped.
    assert sum(f.renders for f in published.feeds) == len(kept) + 1


def test_a_feed_asked_for_is_kept_over_one_that_was_not(demo_schedule: Schedule) -> None:
    published = Published(demo_schedule, now=NOW, lazy=True, rendered=Rendered(10**9))
    asked, other, third, last = published.feeds[1:5]
    sizes = [len(f.representation.body) for f in (asked, other, third)]  # made in this order
    _ = asked.representation  # asked for again since
    published.rendered.limit = sizes[0] + sizes[2] + len(Published(demo_schedule, now=NOW).feeds[4].representation.body)

    _ = last.representation  # over the limit: the oldest not asked for since goes

    assert (asked.rendered, other.rendered, third.rendered, last.rendered) == (True, False, True, True)
    assert published.rendered.size == published.rendered.limit


def test_a_feed_let_go_is_made_again_with_the_same_bytes_and_etag(demo_schedule: Schedule) -> None:
    published = Published(demo_schedule, now=NOW, lazy=True, rendered=Rendered(1))
    first, second = published.feeds[0], published.feeds[1]
    before = first.representation
    _ = second.representation  # over the limit: the other one goes

    gone = (first.rendered, first.made())
    again = first.representation

    assert gone == (False, None)
    assert (again.body, again.etag, first.renders) == (before.body, before.etag, 2)


def test_the_next_snapshot_counts_in_the_same_limit(demo_schedule: Schedule) -> None:
    previous = Published(demo_schedule, now=NOW, lazy=True, rendered=Rendered(10**9))

    following = Published(demo_schedule, now=NOW, previous=previous, lazy=True)

    assert following.rendered is previous.rendered


def test_feeds_a_new_snapshot_replaced_no_longer_count(demo_schedule: Schedule) -> None:
    previous = Published(demo_schedule, now=NOW, lazy=True, rendered=Rendered(10**9))
    previous.warm()
    sessions = list(demo_schedule.sessions)
    sessions[5] = dataclasses.replace(sessions[5], title="A New Title")
    schedule = dataclasses.replace(demo_schedule, sessions=tuple(sessions))

    patched = Published(schedule, now=NOW, previous=previous, lazy=True, written=[sessions[5]])

    kept = sum(len(f.representation.body) for f in previous.feeds if any(f is g for g in patched.feeds))
    assert 0 < kept < sum(len(f.representation.body) for f in previous.feeds)
    assert patched.rendered.size == kept


def test_the_reminder_variants_kept_stay_within_a_quarter_of_the_feeds_limit(demo_schedule: Schedule) -> None:
    size = len(Published(demo_schedule, now=NOW).feed("all").representation.body)  # type: ignore[union-attr]
    published = Published(demo_schedule, now=NOW, lazy=True, rendered=Rendered(4 * (2 * size + size // 2)))
    everything = published.feed("all")
    assert everything is not None
    variants = [published.filtered(everything, [("alarm", str(minutes))]) for minutes in (5, 10, 15, 20)]

    again = [published.filtered(everything, [("alarm", str(minutes))]) for minutes in (15, 20, 5)]

    # The last two are kept (the same objects); the first two went past the limit, made anew.
    assert [a is v for a, v in zip(again, variants[2:] + variants[:1], strict=True)] == [True, True, False]
    assert again[2].body == variants[0].body
