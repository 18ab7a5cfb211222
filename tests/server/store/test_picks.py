"""The pick store on its own: a real SQLite database, no HTTP."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import create_engine, select

from feeds.model import Conference, Schedule, Session
from server.errors import StoreBusy
from server.store import Store, tables
from server.store.expiry import KEEP_AFTER_END
from server.store.picks import PickStore, is_token, new_token, pick_store_for
from server.web.demo import seed_demo


def test_store_creates_reads_and_replaces(tmp_path: Path) -> None:
    moments = iter([datetime(2026, 4, 1, 8, tzinfo=UTC), datetime(2026, 4, 1, 9, tzinfo=UTC)])
    store = PickStore(
        create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"),
        clock=lambda: next(moments),
    )

    created = store.create("conf", ["a", "b"])
    replaced = store.replace(created.token, ["c"])

    assert is_token(created.token)
    assert store.get(created.token) == replaced
    assert replaced is not None
    assert (replaced.sessions, replaced.conference) == (("c",), "conf")
    assert replaced.updated == datetime(2026, 4, 1, 9, tzinfo=UTC)


def test_unknown_or_malformed_tokens_find_nothing(tmp_path: Path) -> None:
    store = PickStore(create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"))

    assert store.get("A" * 24) is None
    assert store.get("../x") is None
    assert store.replace("A" * 24, ["a"]) is None


def test_the_table_is_created_once_and_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'picks.sqlite'}"
    token = PickStore(create_engine(url)).create("conf", ["a"]).token

    reopened = PickStore(create_engine(url))

    found = reopened.get(token)
    assert found is not None and found.sessions == ("a",)


def test_a_store_without_an_engine_gets_a_private_memory_database() -> None:
    picks = pick_store_for(object())

    token = picks.create("conf", ["a"]).token

    found = picks.get(token)
    assert found is not None and found.sessions == ("a",)


def test_tokens_never_start_with_a_dash_so_the_cli_takes_them_as_values() -> None:
    tokens = [new_token() for _ in range(2000)]

    assert [t for t in tokens if t.startswith("-")] == []
    assert all(is_token(t) for t in tokens)
    assert len(set(tokens)) == 2000


# Expiry: the demo conference ends on 7 April 2026 (Paris), at 2026-04-07 22:00 UTC.
MARCH = datetime(2026, 3, 1, tzinfo=UTC)
OVER = datetime(2026, 4, 7, 22, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def demo_conference_slug(store: Store) -> str:
    (summary,) = store.conferences()
    return summary.slug


@pytest.fixture
def demo_store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "store.sqlite"))
    seed_demo(opened)
    yield opened
    opened.close()


def test_purge_keeps_sets_read_or_changed_recently_and_drops_the_rest(demo_store: Store) -> None:
    clock = Clock(MARCH)
    picks = PickStore(demo_store.engine, clock=clock)
    slug = demo_conference_slug(demo_store)
    abandoned, subscribed, edited = (picks.create(slug, ["a"]).token for _ in range(3))
    elsewhere = picks.create("a-conference-not-in-the-store", ["a"]).token
    clock.now = datetime(2026, 5, 1, tzinfo=UTC)
    picks.replace(edited, ["b"])
    picks.touch([subscribed], datetime(2026, 6, 1, 15, tzinfo=UTC))

    early = picks.purge(OVER + KEEP_AFTER_END - timedelta(seconds=1))
    first = picks.purge(OVER + KEEP_AFTER_END)
    after_first = {t for t in (abandoned, subscribed, edited, elsewhere) if picks.get(t)}
    second = picks.purge(datetime(2026, 6, 1, tzinfo=UTC) + KEEP_AFTER_END)

    assert (early, first, second) == (0, 1, 2)
    assert after_first == {subscribed, edited, elsewhere}
    assert picks.get(elsewhere) is not None
    assert picks.get(subscribed) is None and picks.get(edited) is None


def test_a_night_conferences_sets_are_kept_until_its_last_night_is_over(tmp_path: Path) -> None:
    # Its days change at 06:00 (Berlin, +01:00): the talk at 01:00 on the 31st is the 30th's,
    # and the conference is over at 05:00 UTC on the 31st, not at midnight before that talk.
    berlin = ZoneInfo("Europe/Berlin")
    night = Conference("Night Congress", "Europe/Berlin", date(2024, 12, 30), date(2024, 12, 30), day_change=time(6))
    late = datetime(2024, 12, 31, 1, tzinfo=berlin)
    store = Store.open(str(tmp_path / "store.sqlite"))
    store.ingest(Schedule(night, (Session("late", "Late talk", late, late + timedelta(hours=1)),)))
    picks = PickStore(store.engine, clock=Clock(datetime(2024, 12, 1, tzinfo=UTC)))
    token = picks.create(night.slug, ["late"]).token

    at_midnight = picks.purge(datetime(2024, 12, 30, 23, tzinfo=UTC) + KEEP_AFTER_END)
    at_six = picks.purge(datetime(2024, 12, 31, 5, tzinfo=UTC) + KEEP_AFTER_END)

    assert (at_midnight, at_six) == (0, 1)
    assert picks.get(token) is None
    store.close()


def test_touch_writes_the_day_once_and_ignores_unknown_tokens(demo_store: Store) -> None:
    picks = PickStore(demo_store.engine, clock=Clock(MARCH))
    token = picks.create("x", ["a"]).token

    picks.touch([token, "A" * 24, "not a token"], datetime(2026, 6, 1, 15, tzinfo=UTC))
    picks.touch([token], datetime(2026, 6, 1, 18, tzinfo=UTC))

    with demo_store.engine.connect() as conn:
        stored = conn.execute(select(tables.picks.c.last_access)).scalar_one()
    assert stored == datetime(2026, 6, 1, tzinfo=UTC)  # aware UTC, like every stored instant


def test_an_older_picks_table_gets_the_last_access_column(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    old = create_engine(url)
    with old.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE personal_picks (token VARCHAR(64) PRIMARY KEY, conference VARCHAR(200)"
            " NOT NULL, sessions JSON NOT NULL, created DATETIME NOT NULL, updated DATETIME NOT NULL)"
        )
        conn.exec_driver_sql(
            "INSERT INTO personal_picks VALUES ('" + "T" * 24 + "', 'conf', '[\"a\"]',"
            " '2026-03-01 00:00:00.000000', '2026-03-01 00:00:00.000000')"
        )
    old.dispose()

    picks = PickStore(create_engine(url))
    picks.touch(["T" * 24], datetime(2026, 6, 1, tzinfo=UTC))

    found = picks.get("T" * 24)
    assert found is not None and found.sessions == ("a",)


def test_a_locked_database_is_store_busy_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "locked.sqlite"
    picks = PickStore(create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.1}))
    token = picks.create("conf", ["a"]).token
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer, e.g. an ingest, holds the lock
    try:
        with pytest.raises(StoreBusy, match="cannot write pick sets now: database is locked"):
            picks.replace(token, ["b"])
        with pytest.raises(StoreBusy):
            picks.create("conf", ["c"])
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    found = picks.get(token)
    assert found is not None and found.sessions == ("a",)


def test_get_many_reads_the_sets_that_exist_in_one_call(tmp_path: Path) -> None:
    store = PickStore(create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"))
    sets = [store.create("conf", [f"s{i}"]) for i in range(3)]

    found = store.get_many([sets[0].token, sets[2].token, new_token(), "not a token"])

    assert found == {sets[0].token: sets[0], sets[2].token: sets[2]}
