"""A build's entries of the files it made, part of them on disk (server/site/build_spill.py),
read as one mapping, and a build of several conferences with them spilled between each: the
same site and record as a build holding them all."""

from __future__ import annotations

import dataclasses
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from feeds.model import Conference
from server.site import build_spill
from server.site.build_record import record_path
from server.site.build_spill import Spilled
from server.store import Store
from server.web.demo import demo_schedule
from tests.helpers.build_inspection import build_store, directories, file_bytes

BASE = "https://cal.example.org"
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_entries_spilled_read_as_those_held() -> None:
    made = Spilled(spill_past=1)
    made["a.ics"] = ("ka", "da")
    made["b.ics"] = (None, "db")

    made.spill()
    made["c.ics"] = ("kc", "dc")

    assert (made["a.ics"], made.get("b.ics"), made["c.ics"]) == (("ka", "da"), (None, "db"), ("kc", "dc"))
    assert ("a.ics" in made, "c.ics" in made, "d.ics" in made, made.get("d.ics")) == (True, True, False, None)
    assert sorted(made.items()) == [("a.ics", ("ka", "da")), ("b.ics", (None, "db")), ("c.ics", ("kc", "dc"))]
    assert (len(made), sorted(made)) == (3, ["a.ics", "b.ics", "c.ics"])
    made.close()


def test_an_entry_made_again_after_it_was_spilled_is_the_one_read() -> None:
    made = Spilled(spill_past=0)
    made["a.ics"] = ("old", "d1")
    made.spill()

    made["a.ics"] = ("new", "d2")

    assert (made["a.ics"], list(made.items())) == (("new", "d2"), [("a.ics", ("new", "d2"))])
    made.close()


def test_entries_no_more_than_the_limit_stay_in_memory() -> None:
    made = Spilled(spill_past=2)
    made["a.ics"] = ("k", "d")
    made["b.ics"] = ("k", "d")

    made.spill()
    made.close()

    assert made["a.ics"] == ("k", "d")  # still held: closing removed nothing


def test_the_entries_of_sorted_paths_come_in_their_order_whether_held_or_spilled() -> None:
    made = Spilled(spill_past=0)
    for path in ("a.ics", "b.ics", "d.ics", "e.ics"):
        made[path] = ("k", path)
    made.spill()
    made["c.ics"] = ("k", "c held")
    made["d.ics"] = ("k", "d held")

    found = list(made.among(["b.ics", "c.ics", "d.ics", "e.ics"]))

    assert found == [
        ("b.ics", ("k", "b.ics")),
        ("c.ics", ("k", "c held")),
        ("d.ics", ("k", "d held")),
        ("e.ics", ("k", "e.ics")),
    ]
    made.close()


def test_a_missing_entry_is_a_key_error() -> None:
    made = Spilled(spill_past=0)
    made["a.ics"] = ("k", "d")
    made.spill()

    with pytest.raises(KeyError):
        made["b.ics"]
    made.close()


def three_conferences(path: Path) -> Store:
    """A store at `path` holding the demo as three conferences, a month apart."""
    store = Store.open(str(path))
    for number, day in enumerate((date(2026, 4, 7), date(2026, 5, 5), date(2026, 6, 2))):
        conference = Conference(f"Conf {number}", "Europe/Paris", day, day + timedelta(days=1))
        store.ingest(dataclasses.replace(demo_schedule(), conference=conference), now=NOW - timedelta(days=1))
    return store


def recorded_rows(out: Path) -> list[tuple[str, str | None, str, str | None]]:
    """Every file's row in the record beside `out`, but for when a joined file was written."""
    with sqlite3.connect(record_path(out)) as db:
        rows = db.execute("SELECT path, key, digest, uses FROM files ORDER BY path").fetchall()
    return [(path, key, made.partition(":")[0], uses) for path, key, made, uses in rows]


BuiltSite = tuple[dict[str, bytes], set[str], list[tuple[str, str | None, str, str | None]]]


def built_twice(out: Path) -> BuiltSite:
    """Build a store of three conferences into `out`, drop a session of the second one and make
    the last one the default, build again; the site's files, directories and record."""
    with three_conferences(out.with_suffix(".sqlite")) as store:
        first, second, third = store.conferences()
        build_store(store, out, now=NOW, base_url=BASE, default=first.slug)
        schedule = store.live(second.slug)
        assert schedule is not None
        store.ingest(dataclasses.replace(schedule, sessions=schedule.sessions[1:]), now=NOW)
        build_store(store, out, now=NOW + timedelta(hours=1), base_url=BASE, default=third.slug)
    return file_bytes(out), directories(out), recorded_rows(out)


def test_a_build_spilling_between_conferences_writes_the_site_and_record_of_one_holding_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = built_twice(tmp_path / "held")
    monkeypatch.setattr(build_spill, "SPILL_PAST", 0)

    spilled = built_twice(tmp_path / "spilled")

    assert spilled == held
    assert len(held[2]) > 100
