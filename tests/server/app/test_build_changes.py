"""A static build keeps each version's changelog entry (build_changes.py): a rebuild after an
ingest renders the new version alone, and its changes/, changes.atom and api/changes are byte for
byte what the server answers; every input of an entry's key, changed, makes the entry again."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from sqlalchemy import delete

from feeds.model import Schedule
from feeds.pipeline import load_schedule
from server.links import Site
from server.site.build_changes import changes_files, entry_key
from server.site.build_output import Output
from server.snapshot.published import Published
from server.store import Store
from server.store.tables import version_content

CHANGES = Path(__file__).resolve().parents[2] / "fixtures" / "changes"
BASE = "https://cal.example.org"
NOW = datetime(2026, 4, 5, tzinfo=UTC)
FIRST = datetime(2026, 3, 30, 12, tzinfo=UTC)
SECOND = datetime(2026, 4, 2, 9, 5, tzinfo=UTC)
THIRD = datetime(2026, 4, 3, 10, tzinfo=UTC)


def snapshot(name: str) -> Schedule:
    return load_schedule([str(CHANGES / name)], None).schedule


def opened(path: Path, *versions: tuple[str, datetime]) -> Store:
    store = Store.open(str(path))
    for name, now in versions:
        store.ingest(snapshot(name), now=now)
    return store


def published(store: Store, base: str, lazy: bool) -> Published:
    live = store.live()
    assert live is not None
    return Published(live, now=NOW, base_url=base, lazy=lazy)


def build(root: Path, store: Store, base: str = BASE) -> dict[str, bytes]:
    """The changelog files of one build into `root` (`confcal build`'s, keeping their parts)."""
    output = Output(root)
    files = dict(changes_files(published(store, base, lazy=True), Site.of(base), store, output))
    for path, body in files.items():
        output.put(path, None, partial(bytes, body))
    output.finish(())
    return files


def served(store: Store, base: str = BASE) -> dict[str, bytes]:
    """The same documents as the server answers them: from the whole changelog, nothing kept."""
    return dict(changes_files(published(store, base, lazy=False), Site.of(base), store))


def parts(root: Path) -> dict[str, int]:
    """The kept parts of the build into `root`, with when each was written."""
    return {p.name: p.stat().st_mtime_ns for p in root.with_name(f".{root.name}.confcal-build.parts").iterdir()}


def test_a_new_version_makes_its_own_entry_and_keeps_the_others(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST))
    before = build(tmp_path / "site", store)
    kept = parts(tmp_path / "site")
    store.ingest(snapshot("v2.ics"), now=SECOND)

    rebuilt = build(tmp_path / "site", store)

    assert rebuilt == served(store)
    assert rebuilt != before
    after = parts(tmp_path / "site")
    assert len(after) == 2
    assert {name: after[name] for name in kept} == kept


def test_a_version_that_changed_nothing_visible_changes_no_document(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST), ("v2.ics", SECOND))
    before = build(tmp_path / "site", store)
    store.ingest(snapshot("v3.ics"), now=THIRD)

    rebuilt = build(tmp_path / "site", store)

    assert rebuilt == before == served(store)
    assert len(parts(tmp_path / "site")) == 3


def test_another_base_url_makes_every_entry_again(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST), ("v2.ics", SECOND))
    build(tmp_path / "site", store)

    rebuilt = build(tmp_path / "site", store, "https://other.example.net/cal")

    assert rebuilt == served(store, "https://other.example.net/cal")


def test_another_zone_makes_every_entry_again(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST), ("v2.ics", SECOND))
    build(tmp_path / "site", store)
    moved = snapshot("v2.ics")
    store.ingest(
        dataclasses.replace(moved, conference=dataclasses.replace(moved.conference, timezone="America/New_York")),
        now=THIRD,
    )

    rebuilt = build(tmp_path / "site", store)

    assert rebuilt == served(store)
    assert "Tue 7 Apr 05:00–05:30, Master Stage → Tue 7 Apr 06:00–06:30" in rebuilt["changes/index.html"].decode()


def test_the_same_version_numbers_of_another_store_are_other_entries(tmp_path: Path) -> None:
    build(tmp_path / "site", opened(tmp_path / "one.sqlite", ("v1.ics", FIRST), ("v2.ics", SECOND)))
    other = opened(tmp_path / "other.sqlite", ("v1.ics", SECOND), ("v2.ics", THIRD), ("v1.ics", NOW))

    rebuilt = build(tmp_path / "site", other)

    assert rebuilt == served(other)


def forget_content(store: Store) -> None:
    """The store as one made before it recorded each version's rows (history.py, "baseline")."""
    with store.engine.begin() as conn:
        conn.execute(delete(version_content))


def test_without_the_parts_the_whole_changelog_is_read(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST), ("v2.ics", SECOND))
    build(tmp_path / "site", store)
    for part in tmp_path.joinpath(".site.confcal-build.parts").iterdir():
        part.unlink()
    store.ingest(snapshot("v1.ics"), now=THIRD)

    rebuilt = build(tmp_path / "site", store)

    assert rebuilt == served(store)


def test_a_store_from_before_content_was_recorded_keeps_its_entries_when_it_records(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST), ("v2.ics", SECOND))
    forget_content(store)
    build(tmp_path / "site", store)
    store.ingest(snapshot("v1.ics"), now=THIRD)  # records version 2's rows (the baseline), then 3's

    rebuilt = build(tmp_path / "site", store)

    assert rebuilt == served(store)


def test_entries_made_before_the_first_recorded_version_changed_are_made_again(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST))
    forget_content(store)
    build(tmp_path / "site", store)
    store.ingest(snapshot("v2.ics"), now=SECOND)
    forget_content(store)  # as an older confcal ingests, recording nothing
    store.ingest(snapshot("v1.ics"), now=THIRD)  # the baseline is version 2 now, not version 1

    rebuilt = build(tmp_path / "site", store)

    assert rebuilt == served(store)


def test_a_lost_entry_up_to_the_first_recorded_version_is_made_from_the_whole_changelog(tmp_path: Path) -> None:
    store = opened(tmp_path / "store.sqlite", ("v1.ics", FIRST), ("v2.ics", SECOND))
    forget_content(store)
    store.ingest(snapshot("v3.ics"), now=THIRD)
    store.ingest(snapshot("v1.ics"), now=NOW)
    build(tmp_path / "site", store)
    stamps = store.changelog_stamps("change-conf-2026")
    lost = entry_key(published(store, BASE, lazy=True), Site.of(BASE), stamps, 2, SECOND)
    tmp_path.joinpath(".site.confcal-build.parts", lost).unlink()

    rebuilt = build(tmp_path / "site", store)

    assert (stamps.recorded, rebuilt) == (2, served(store))
