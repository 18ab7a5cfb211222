"""A static build keeps the schedule it read (build_schedule.py): the next build of the conference
reads only the rows written since, and gets what reading every row gives; it patches the feeds'
members the last build kept, and gets what making them from scratch gives."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event

from feeds.model import Link, Schedule
from server.site.build_output import Output
from server.site.build_schedule import read_schedule
from server.snapshot.patch import Catalogue
from server.snapshot.published import Published
from server.store import Store
from server.store.store import RowWrites
from server.web.demo import demo_schedule
from tests.helpers.demo_changes import shifted

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
SLUG = demo_schedule().conference.slug


# A schedule read, with the versions and what wrote each row (RowWrites).
Found = tuple[Schedule | None, dict[int, str], dict[str, int]]


class Read:
    """One build's read of the conference from `store`, its output at `root`: the schedule, what
    wrote its rows and the SQL statements the store ran for it."""

    def __init__(self, store: Store, root: Path, now: datetime = NOW) -> None:
        self.statements: list[str] = []
        event.listen(store.engine, "before_cursor_execute", self._statement)
        try:
            output = Output(root)
            self.writes = RowWrites()
            read = read_schedule(store, output, SLUG, self.writes, now)
            self.schedule = read.schedule if read is not None else None
            self.patched = read.catalogue if read is not None else None
            if read is not None:
                read.keep(Published(read.schedule, now=now, lazy=True, known=read.catalogue).catalogue, now)
            output.put("index.html", "page", lambda: b"a page")  # a build writes files too
            output.finish(())
        finally:
            event.remove(store.engine, "before_cursor_execute", self._statement)

    def _statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.statements.append(statement)

    @property
    def found(self) -> Found:
        return self.schedule, self.writes.versions, self.writes.rows

    @property
    def every_row(self) -> bool:
        """Whether every session row was read (not only those written since a version)."""
        return any("FROM schedule_session" in s and "schedule_session.version >" not in s for s in self.statements)


def from_scratch(schedule: Schedule | None, now: datetime = NOW) -> tuple[object, ...]:
    """A catalogue made from every session of `schedule` at `now`, in comparable form."""
    assert schedule is not None
    return comparable(Published(schedule, now=now, lazy=True).catalogue)


def comparable(catalogue: Catalogue | None) -> tuple[object, ...]:
    """Every feed's spec and members, and until when they hold."""
    assert catalogue is not None
    members = {key: tuple(group) for key, group in catalogue.members.items()}
    return catalogue.specs, members, catalogue.until


def live(store: Store) -> Found:
    """What reading every row gives: the schedule, the versions and what wrote each row."""
    writes = RowWrites()
    return store.live(SLUG, writes), writes.versions, writes.rows


def test_a_rebuild_reads_the_rows_written_since_and_gets_what_every_row_gives(tmp_path: Path) -> None:
    schedule = demo_schedule()
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        first = Read(store, tmp_path / "site")
        store.ingest(shifted(schedule, {schedule.sessions[3].id}, timedelta(hours=1)), now=NOW + timedelta(hours=1))

        again = Read(store, tmp_path / "site")

        assert again.found == live(store)
    assert (first.every_row, again.every_row) == (True, False)


def test_a_session_with_every_field_set_comes_back_from_the_kept_schedule_as_stored(tmp_path: Path) -> None:
    """The kept schedule leaves out the fields a session holds at their defaults: those set
    come back, and those left out read as their defaults."""
    schedule = demo_schedule()
    every_field = dataclasses.replace(
        schedule.sessions[0],
        kind="workshop",
        slides=True,
        url="https://example.org/talk",
        source_id="talk-0",
        links=(Link("https://example.org/video", "Video", "recording"),),
        language="fr",
        subtitle="A subtitle",
        do_not_record=True,
    )
    schedule = dataclasses.replace(schedule, sessions=(every_field, *schedule.sessions[1:]))
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site")
        store.ingest(shifted(schedule, {schedule.sessions[3].id}, timedelta(hours=1)), now=NOW + timedelta(hours=1))

        again = Read(store, tmp_path / "site")

        stored = live(store)
    kept = again.schedule.session(every_field.id) if again.schedule is not None else None
    assert (again.found, again.every_row) == (stored, False)
    assert kept is not None
    assert (kept.kind, kept.slides, kept.language, kept.do_not_record) == ("workshop", True, "fr", True)


def test_a_rebuild_after_another_reads_the_rows_written_since_the_kept_schedule(tmp_path: Path) -> None:
    schedule = demo_schedule()
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site")
        store.ingest(shifted(schedule, {schedule.sessions[3].id}, timedelta(hours=1)), now=NOW + timedelta(hours=1))
        Read(store, tmp_path / "site")
        store.ingest(schedule, now=NOW + timedelta(hours=2))

        again = Read(store, tmp_path / "site")

        assert again.found == live(store)
    assert again.every_row is False


def test_a_store_made_anew_is_read_whole(tmp_path: Path) -> None:
    schedule = demo_schedule()
    with Store.open(str(tmp_path / "first.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site")
    with Store.open(str(tmp_path / "second.sqlite")) as store:
        store.ingest(schedule, now=NOW + timedelta(hours=1))

        again = Read(store, tmp_path / "site")

        assert again.found == live(store)
    assert again.every_row is True


def test_a_damaged_kept_schedule_is_not_used(tmp_path: Path) -> None:
    schedule = demo_schedule()
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site")
        for part in (tmp_path / ".site.confcal-build.parts").iterdir():
            part.write_bytes(part.read_bytes()[:-1])

        again = Read(store, tmp_path / "site")

        assert again.found == live(store)
    assert again.every_row is True


def test_a_rebuild_patches_the_kept_feeds_to_those_made_from_scratch(tmp_path: Path) -> None:
    schedule = demo_schedule()
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site")
        moved = {schedule.sessions[3].id, schedule.sessions[8].id}
        store.ingest(shifted(schedule, moved, timedelta(days=1)), now=NOW + timedelta(hours=1))

        again = Read(store, tmp_path / "site", NOW + timedelta(hours=2))

    assert comparable(again.patched) == from_scratch(again.schedule, NOW + timedelta(hours=2))
    assert comparable(again.patched) != from_scratch(schedule, NOW + timedelta(hours=2))


def test_a_rebuild_after_another_patches_the_feeds_kept_with_the_schedule(tmp_path: Path) -> None:
    schedule = demo_schedule()
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site")
        store.ingest(shifted(schedule, {schedule.sessions[3].id}, timedelta(days=1)), now=NOW + timedelta(hours=1))
        Read(store, tmp_path / "site")
        store.ingest(shifted(schedule, {schedule.sessions[5].id}, timedelta(days=1)), now=NOW + timedelta(hours=2))

        again = Read(store, tmp_path / "site")

    assert comparable(again.patched) == from_scratch(again.schedule)


def test_a_changed_conference_has_its_feeds_made_from_scratch(tmp_path: Path) -> None:
    schedule = demo_schedule()
    renamed = dataclasses.replace(schedule.conference, name=schedule.conference.name + " (moved)")
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site")
        store.ingest(dataclasses.replace(schedule, conference=renamed), now=NOW + timedelta(hours=1))

        again = Read(store, tmp_path / "site")

    assert (again.every_row, again.patched) == (False, None)


def test_a_rebuild_at_an_earlier_clock_has_its_feeds_made_from_scratch(tmp_path: Path) -> None:
    schedule = demo_schedule()
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule, now=NOW)
        Read(store, tmp_path / "site", NOW + timedelta(days=1))

        again = Read(store, tmp_path / "site")

    assert (again.every_row, again.patched) == (False, None)
