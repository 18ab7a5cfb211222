"""Leases on attached calendars in a real store, SQLite and PostgreSQL: one sync per target, the
generation a job was queued for, backoff, the per-host limit, and records only by the lease's
owner; and which targets want a sync."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, insert, select, update

from server.jobs import sync_leases
from server.jobs.sync_leases import Claimed, Refused, host_of
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.caldav_wanted import Wanted, want_for_conference, wanted
from server.store.rows import to_db_time
from server.store.tables import caldav_targets, picks

NOW = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=60)


def add_target(
    engine: Engine, url: str, token: str, *, wanted_generation: int = 1, due_since: datetime | None = None
) -> int:
    with engine.begin() as conn:
        key = conn.execute(
            insert(caldav_targets).values(
                conference="pytorch-eu-2026",
                pick_token=token,
                url=url,
                username="alice",
                password="encrypted",
                state="active",
                created=to_db_time(NOW),
                updated=to_db_time(NOW),
                wanted_generation=wanted_generation,
                synced_generation=0,
                attempts=0,
                next_attempt_at=None if due_since is None else to_db_time(due_since),
            )
        ).inserted_primary_key
    assert key is not None
    return int(key[0])


def row(engine: Engine, target: int) -> dict[str, object]:
    with engine.connect() as conn:
        return dict(conn.execute(select(caldav_targets).where(caldav_targets.c.id == target)).mappings().one())


def claim(store: Store, target: int, generation: int = 1, owner: str = "a", per_host: int = 4) -> Claimed | Refused:
    return sync_leases.claim(store.engine, target, generation, owner, NOW, LEASE, per_host)


def test_one_claim_at_a_time(store: Store) -> None:
    target = add_target(store.engine, "https://dav.example.org/alice/cal/", "t1")

    first, second = claim(store, target, owner="a"), claim(store, target, owner="b")

    assert isinstance(first, Claimed) and (first.generation, first.owner) == (1, "a")
    assert second is Refused.NOTHING


def test_an_expired_lease_is_taken_over(store: Store) -> None:
    target = add_target(store.engine, "https://dav.example.org/alice/cal/", "t1")
    claim(store, target, owner="dead")

    later = sync_leases.claim(store.engine, target, 1, "b", NOW + LEASE + timedelta(seconds=1), LEASE, 4)

    assert isinstance(later, Claimed) and later.owner == "b"


def test_a_synced_generation_is_not_claimed_again(store: Store) -> None:
    target = add_target(store.engine, "https://dav.example.org/alice/cal/", "t1")
    first = claim(store, target)
    assert isinstance(first, Claimed)
    assert sync_leases.finish(store.engine, first, {"last_result": "ok"}, NOW, done=True)

    again = claim(store, target, generation=1)

    assert again is Refused.NOTHING
    assert (row(store.engine, target)["synced_generation"], row(store.engine, target)["lease_owner"]) == (1, None)


def test_only_the_owner_records(store: Store) -> None:
    target = add_target(store.engine, "https://dav.example.org/alice/cal/", "t1")
    stale = claim(store, target, owner="slow")
    assert isinstance(stale, Claimed)
    newer = sync_leases.claim(store.engine, target, 1, "fast", NOW + 2 * LEASE, LEASE, 4)
    assert isinstance(newer, Claimed)

    recorded = sync_leases.finish(store.engine, stale, {"last_result": "ok"}, NOW, done=True)

    assert not recorded
    assert row(store.engine, target)["synced_generation"] == 0


def test_a_target_in_backoff_waits(store: Store) -> None:
    target = add_target(store.engine, "https://dav.example.org/alice/cal/", "t1")
    first = claim(store, target)
    assert isinstance(first, Claimed)
    retry_at = NOW + timedelta(seconds=30)
    sync_leases.finish(store.engine, first, {"attempts": 1, "next_attempt_at": to_db_time(retry_at)}, NOW, done=False)

    early = claim(store, target)
    due = sync_leases.claim(store.engine, target, 1, "b", retry_at, LEASE, 4)

    assert early is Refused.NOTHING
    assert isinstance(due, Claimed) and due.attempts == 1


def test_a_want_written_by_a_clock_ahead_of_ours_is_claimed(store: Store) -> None:
    target = add_target(store.engine, "https://dav.example.org/alice/cal/", "t1")
    with store.engine.begin() as conn:
        conn.execute(update(caldav_targets).values(next_attempt_at=to_db_time(NOW + timedelta(seconds=2))))

    assert isinstance(claim(store, target), Claimed)


def test_per_host_limit_counts_live_leases_on_that_host_only(store: Store) -> None:
    same = [add_target(store.engine, f"https://DAV.example.org/u{i}/cal/", f"t{i}") for i in range(3)]
    other = add_target(store.engine, "https://dav.example.org:8443/u9/cal/", "t9")
    assert [type(claim(store, t, owner=f"o{t}", per_host=2)) for t in same[:2]] == [Claimed, Claimed]

    third = claim(store, same[2], per_host=2)
    elsewhere = claim(store, other, per_host=2)
    later = sync_leases.claim(store.engine, same[2], 1, "x", NOW + LEASE + timedelta(seconds=1), LEASE, 2)

    assert third is Refused.HOST_BUSY
    assert isinstance(elsewhere, Claimed)
    assert isinstance(later, Claimed)  # the two leases ran out


def test_host_of_names_scheme_host_and_port() -> None:
    assert [host_of(u) for u in ("https://Dav.Example.org/a/", "http://h:8080/a/", "http://h/b/")] == [
        "https://dav.example.org:443/",
        "http://h:8080/",
        "http://h:80/",
    ]


def add_picks(engine: Engine, token: str, sessions: list[str], conference: str = "pytorch-eu-2026") -> None:
    with engine.begin() as conn:
        conn.execute(
            insert(picks).values(
                token=token, conference=conference, sessions=sessions, created=to_db_time(NOW), updated=to_db_time(NOW)
            )
        )


def test_a_new_version_wants_a_sync_of_the_calendars_holding_a_session_it_changed(store: Store) -> None:
    holding = add_target(store.engine, "https://dav.example.org/a/cal/", "t1", wanted_generation=0)
    also = add_target(store.engine, "https://dav.example.org/b/cal/", "t2", wanted_generation=0)
    add_target(store.engine, "https://dav.example.org/c/cal/", "t3", wanted_generation=0)
    add_picks(store.engine, "t1", ["s1", "s2"])
    add_picks(store.engine, "t2", ["s3"])
    add_picks(store.engine, "t3", ["s4"])

    with store.engine.begin() as conn:
        counted = want_for_conference(conn, "pytorch-eu-2026", {"s2", "s3", "s9"}, NOW)
        elsewhere = want_for_conference(conn, "another-conference", {"s4"}, NOW)

    assert wanted(store.engine) == (Wanted(holding, 1), Wanted(also, 1))
    assert (counted, elsewhere) == (2, 0)


def test_a_picks_change_wants_a_sync_of_that_calendar_only(store: Store) -> None:
    add_target(store.engine, "https://dav.example.org/a/cal/", "t1", wanted_generation=0)
    second = add_target(store.engine, "https://dav.example.org/b/cal/", "t2", wanted_generation=0)

    changed = CaldavTargets(store.engine).want_sync("t2")

    assert changed == [second]
    assert wanted(store.engine) == (Wanted(second, 1),)


def test_overdue_wants_are_those_waiting_too_long_with_no_live_lease(store: Store) -> None:
    waiting = add_target(store.engine, "https://dav.example.org/a/cal/", "t1", due_since=NOW - timedelta(minutes=5))
    held = add_target(store.engine, "https://dav.example.org/b/cal/", "t2", due_since=NOW - timedelta(minutes=5))
    fresh = add_target(store.engine, "https://dav.example.org/c/cal/", "t3", due_since=NOW)
    claim(store, held)

    overdue = wanted(store.engine, overdue=(NOW, NOW - timedelta(seconds=30)))

    assert overdue == (Wanted(waiting, 1),)
    assert fresh not in {w.target for w in overdue}


def test_a_lease_that_ran_out_is_overdue_at_once(store: Store) -> None:
    target = add_target(store.engine, "https://dav.example.org/a/cal/", "t1", due_since=NOW)
    claim(store, target, owner="killed")
    after = NOW + LEASE + timedelta(seconds=1)

    overdue = wanted(store.engine, overdue=(after, after - timedelta(minutes=5)))

    assert overdue == (Wanted(target, 1),)


def test_racing_claims_never_pass_the_per_host_limit(store: Store) -> None:
    targets = [add_target(store.engine, f"https://dav.example.org/u{i}/cal/", f"t{i}") for i in range(12)]

    def take(target: int) -> Claimed | Refused:
        return sync_leases.claim(store.engine, target, 1, f"o{target}", NOW, LEASE, 3)

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(take, targets))

    assert sum(isinstance(r, Claimed) for r in results) == 3
    assert sum(r is Refused.HOST_BUSY for r in results) == 9
