"""Pick sets remembered for a second: read back at once after a local write, re-read after
`ttl`, unknown tokens never kept, and the number kept bounded."""

from __future__ import annotations

from datetime import UTC, datetime

from server.app.pick_cache import PickCache
from server.store.picks import PickSet

UPDATED = datetime(2026, 4, 1, tzinfo=UTC)


def pick_set(token: str, *sessions: str) -> PickSet:
    return PickSet(token, "conf", sessions, UPDATED)


def test_a_kept_set_is_served_until_ttl_then_read_again() -> None:
    now = [100.0]
    cache = PickCache(ttl=1.0, clock=lambda: now[0])
    kept = cache.keep(pick_set("a", "s1"))

    now[0] = 101.0
    fresh = cache.get("a")
    now[0] = 101.5
    stale = cache.get("a")

    assert (fresh, stale) == (kept, None)


def test_a_replacement_kept_here_is_read_back_at_once() -> None:
    cache = PickCache()
    cache.keep(pick_set("a", "s1"))

    cache.keep(pick_set("a", "s2"))

    assert cache.get("a") == pick_set("a", "s2")


def test_unknown_tokens_are_not_kept_and_the_number_kept_is_bounded() -> None:
    cache = PickCache(max_sets=2)

    cache.keep(None)
    for token in ("a", "b", "c"):
        cache.keep(pick_set(token))

    assert [cache.get(t) for t in ("a", "b", "c")] == [None, pick_set("b"), pick_set("c")]
