"""Pick sets kept by the server: read back at once after a local write, re-read after `ttl`
unless a refresh confirmed them, replaced and deleted sets seen at the refresh (which reads only
the sets the store's change log names), unknown and idle tokens not kept, and the number kept
bounded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, delete, event

from server.snapshot.pick_cache import PickCache
from server.store import Store, tables
from server.store.expiry import KEEP_AFTER_END
from server.store.picks import PickSet, PickStore, is_token
from server.web.demo import seed_demo

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


def test_refresh_rereads_every_kept_set_and_drops_the_deleted(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}")
    here, other_process = PickStore(engine), PickStore(engine)
    cache = PickCache()
    kept = cache.keep(here.create("conf", ["s1"]))
    gone = cache.keep(here.create("conf", ["s2"]))
    assert kept is not None and gone is not None
    replaced = other_process.replace(kept.token, ["s3"])
    with engine.begin() as conn:
        conn.execute(delete(tables.picks).where(tables.picks.c.token == gone.token))
    before = (cache.get(kept.token), cache.get(gone.token))

    cache.refresh(here)

    assert before == (kept, gone)
    assert (cache.get(kept.token), cache.get(gone.token)) == (replaced, None)


def test_refresh_confirms_a_set_so_it_outlives_ttl(tmp_path: Path) -> None:
    store = PickStore(create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"))
    now = [100.0]
    cache = PickCache(ttl=2.0, clock=lambda: now[0])
    kept = cache.keep(store.create("conf", ["s1"]))
    assert kept is not None

    now[0] = 101.5
    cache.refresh(store)
    now[0] = 103.0

    assert cache.get(kept.token) == kept


def test_a_set_nobody_asked_for_is_dropped_not_reread(tmp_path: Path) -> None:
    store = PickStore(create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"))
    now = [100.0]
    cache = PickCache(ttl=1000.0, idle=60.0, clock=lambda: now[0])
    asked = cache.keep(store.create("conf", ["s1"]))
    idle = cache.keep(store.create("conf", ["s2"]))
    assert asked is not None and idle is not None

    now[0] = 130.0
    cache.get(asked.token)  # only `asked` is asked for
    now[0] = 161.0
    cache.refresh(store)

    assert (cache.get(asked.token), cache.get(idle.token)) == (asked, None)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def test_one_refresh_sees_a_replaced_a_new_and_a_purged_set_reading_only_those(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "store.sqlite"))
    seed_demo(store)
    (summary,) = store.conferences()
    # The demo conference ended on 7 April 2026; a set nobody read goes this long after.
    purge_at = datetime(2026, 4, 7, 22, tzinfo=UTC) + KEEP_AFTER_END
    clock = Clock(datetime(2026, 3, 1, tzinfo=UTC))
    here, other_process = PickStore(store.engine, clock=clock), PickStore(store.engine, clock=clock)
    cache = PickCache()
    kept = [cache.keep(here.create(summary.slug, [f"s{i}"])) for i in range(5)]
    replaced, purged, *unchanged = (k.token for k in kept if k is not None)
    cache.refresh(here)  # the first refresh reads every kept set
    clock.now = purge_at - timedelta(hours=1)
    here.touch([replaced, *unchanged], clock.now)
    cache.refresh(here)
    new = other_process.create(summary.slug, ["n"])
    cache.keep(here.get(new.token))  # asked for here: the route reads it
    replacement = other_process.replace(replaced, ["r"])
    assert other_process.purge(purge_at) == 1
    asked: list[str] = []

    def note_tokens(conn: Any, cursor: Any, statement: str, parameters: Any, *rest: Any) -> None:
        if "FROM personal_picks" in statement:
            asked.extend(p for p in parameters if isinstance(p, str) and is_token(p))

    event.listen(store.engine, "before_cursor_execute", note_tokens)
    cache.refresh(here)
    event.remove(store.engine, "before_cursor_execute", note_tokens)

    assert sorted(asked) == sorted([replaced, purged, new.token])
    assert [cache.get(t) for t in (replaced, purged, new.token)] == [replacement, None, new]
    assert [cache.get(t) for t in unchanged] == kept[2:]
    store.close()


def test_a_set_read_before_a_change_and_kept_after_the_refresh_that_saw_it_is_read_again(tmp_path: Path) -> None:
    # A request reads a set from the store, another process replaces it, a refresh sees the
    # change while the request has not kept the set yet: the next refresh must not trust it.
    engine = create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}")
    here, other_process = PickStore(engine), PickStore(engine)
    token = here.create("conf", ["s1"]).token
    cache = PickCache()
    cache.refresh(here)
    read_before = here.get(token)
    replacement = other_process.replace(token, ["s2"])
    cache.refresh(here)
    cache.keep(read_before)

    cache.refresh(here)

    assert cache.get(token) == replacement
