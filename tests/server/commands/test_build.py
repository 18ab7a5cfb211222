"""`confcal build OUTDIR`: the static site holds the bytes the server answers for the same paths."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import anyio
import httpx
import pytest

from feeds.model import Conference, Schedule, Speaker
from server.cli import main
from server.pages.subscribe import LISTED_FEEDS
from server.site.build_workers import FIRST
from server.site.site_build import independent
from server.store import Store
from server.web.app import create_app
from server.web.demo import demo_schedule
from tests.helpers.build_inspection import recorded, recorded_mirror, recorded_stamps
from tests.helpers.cli_runs import ENV
from tests.helpers.crowded import SLUG as CROWDED_SLUG
from tests.helpers.crowded import crowded
from tests.helpers.demo_changes import shifted

BASE = "https://cal.example.org"


SECOND = Conference("Second Conf", "Europe/Berlin", date(2026, 6, 1), date(2026, 6, 2))
DEMO = "pytorch-conference-europe-2026"


def served(store: Store, paths: list[str], base_url: str | None, default: str | None = None) -> dict[str, bytes]:
    """GET each path from the app (identity encoding), in process."""
    app = create_app(store, base_url=base_url, default=default)

    async def fetch() -> dict[str, bytes]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as client:
            return {p: (await client.get(p, headers={"accept-encoding": "identity"})).content for p in paths}

    return anyio.run(fetch)


def site_files(outdir: Path) -> dict[str, Path]:
    """URL path -> file, for every generated file (an index.html is served at its folder)."""
    files = {}
    for file in sorted(outdir.rglob("*")):
        if file.is_file():
            relative = file.relative_to(outdir).as_posix()
            files["/" + relative.removesuffix("index.html")] = file
    return files


def test_build_writes_the_bytes_the_server_serves(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"

    code = main(["build", "--db", db, str(out), "--base-url", BASE])

    assert code == 0
    files = site_files(out)
    hosts = static_hosts(files)
    with Store.open(db) as store:
        answers = served(store, list(files), BASE)
    assert {path: file.read_bytes() for path, file in files.items()} == answers
    assert hosts == {"/host.json": True, f"/c/{DEMO}/host.json": True}


def static_hosts(files: dict[str, Path]) -> dict[str, bool]:
    """Takes out of `files` the one file a build writes its own way, host.json (the server's says
    it is not static): path -> whether it says static."""
    hosts = [path for path in files if path.endswith("/host.json")]
    return {path: json.loads(files.pop(path).read_bytes())["static"] for path in hosts}


def two_conferences(db: str) -> None:
    with Store.open(db) as store:
        store.ingest(demo_schedule())
        store.ingest(dataclasses.replace(demo_schedule(), conference=SECOND))


@pytest.mark.parametrize("default", [None, "second-conf"])
def test_build_writes_every_conference_as_the_server_serves_it(tmp_path: Path, default: str | None) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    two_conferences(db)

    code = main(["build", "--db", db, str(out), "--base-url", BASE] + (["--default", default] if default else []))

    assert code == 0
    files = site_files(out)
    static_hosts(files)
    with Store.open(db) as store:
        answers = served(store, list(files), BASE, default)
    assert {path: file.read_bytes() for path, file in files.items()} == answers
    listed = json.loads((out / "api" / "conferences").read_bytes())["conferences"]
    assert [c["url"] for c in listed] == [f"/c/{DEMO}/", "/c/second-conf/"]
    root = json.loads((out / "api" / "feeds").read_bytes())["feeds"][0]["url"]
    second = json.loads((out / "c/second-conf/api/feeds").read_bytes())["feeds"][0]
    assert second["url"] == ("/feeds/all.ics" if default else "/c/second-conf/feeds/all.ics")
    assert root == "/feeds/all.ics"
    assert (out / "c/second-conf/schedule.xml").read_bytes().startswith(b"<?xml")
    assert (out / "index.html").read_bytes() == (out / "c" / (default or DEMO) / "index.html").read_bytes()


def test_build_refuses_a_default_not_in_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["build", "--db", str(tmp_path / "s.sqlite"), str(tmp_path / "site"), "--default", "nope"])

    assert code == 1
    assert capsys.readouterr().err == (
        "confcal build: no --base-url; subscribe links point at http://127.0.0.1:8080\n"
        "confcal build: error: --default nope: no such conference in the store\n"
    )


def test_build_writes_feeds_sessions_api_and_index(tmp_path: Path) -> None:
    out = tmp_path / "site"

    main(["build", "--db", str(tmp_path / "store.sqlite"), str(out), "--base-url", BASE])

    feeds = json.loads((out / "api" / "feeds.json").read_bytes())["feeds"]
    sessions = json.loads((out / "api" / "sessions").read_bytes())["sessions"]
    assert (out / "feeds" / "all.ics").is_file()
    assert all((out / f["url"].lstrip("/")).is_file() for f in feeds)
    assert len(sessions) == 28
    assert all((out / s["ics"].lstrip("/")).is_file() for s in sessions)
    assert (out / "index.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    assert (out / "static" / "style.css").is_file()
    assert feeds[0]["webcal"] == "webcal://cal.example.org/feeds/all.ics"


def test_rebuild_rewrites_nothing_and_leaves_files_it_did_not_make(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    main(["build", "--db", db, str(out), "--base-url", BASE])
    unrelated = out / "CNAME"
    unrelated.write_text("cal.example.org\n")
    capsys.readouterr()

    main(["build", "--db", db, str(out), "--base-url", BASE])

    assert capsys.readouterr().out.endswith(f"; 0 files checked, 0 written to {out}\n")  # carried over whole
    assert unrelated.read_text() == "cal.example.org\n"


def test_a_rebuild_that_changes_a_conferences_files_drops_feeds_it_did_not_make(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    main(["build", "--db", db, str(out), "--base-url", BASE])
    stale = out / "feeds" / "speaker" / "someone-gone.ics"
    stale.write_bytes(b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
    unrelated = out / "CNAME"
    unrelated.write_text("cal.example.org\n")
    with Store.open(db) as store:
        store.ingest(changed(demo_schedule(), speakers=(Speaker("Ada Newcomer"),)))  # her feed is new

    main(["build", "--db", db, str(out), "--base-url", BASE])

    assert not stale.exists()
    assert unrelated.read_text() == "cal.example.org\n"


def test_without_base_url_links_point_at_the_default_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"

    main(["build", "--db", str(tmp_path / "store.sqlite"), str(out)])

    feeds = json.loads((out / "api" / "feeds").read_bytes())["feeds"]
    assert feeds[0]["webcal"] == "webcal://127.0.0.1:8080/feeds/all.ics"
    assert "no --base-url" in capsys.readouterr().err


@pytest.mark.parametrize(
    "bad",
    ["cal.example.org", "ftp://cal.example.org", "https://", "https://x.org/?a=b"],
)
def test_bad_base_url_is_a_usage_error(tmp_path: Path, bad: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "build",
                "--db",
                str(tmp_path / "store.sqlite"),
                str(tmp_path / "site"),
                "--base-url",
                bad,
            ]
        )

    assert exit_info.value.code == 2


@pytest.mark.parametrize("command", ["build", "serve"])
def test_a_malformed_default_is_a_usage_error(tmp_path: Path, command: str) -> None:
    out = [str(tmp_path / "site")] if command == "build" else []

    with pytest.raises(SystemExit) as exit_info:
        main([command, "--db", str(tmp_path / "s.sqlite"), *out, "--default", "Bad/Slug"])

    assert exit_info.value.code == 2


def tree(outdir: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file: bytes, mtime and inode (a rewrite renames a new file over the old one)."""
    return {
        f.relative_to(outdir).as_posix(): (f.read_bytes(), f.stat().st_mtime_ns, f.stat().st_ino)
        for f in sorted(outdir.rglob("*"))
        if f.is_file()
    }


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
CHANGED = "e3d1dd243c"  # the demo's talk by Rosheen Naeem, her only one


def changed(schedule: Schedule, **fields: object) -> Schedule:
    return dataclasses.replace(
        schedule,
        sessions=tuple(
            dataclasses.replace(s, **fields) if s.id == CHANGED else s  # type: ignore[arg-type]
            for s in schedule.sessions
        ),
    )


def rebuilt(
    tmp_path: Path, schedule: Schedule
) -> tuple[dict[str, tuple[bytes, int, int]], dict[str, tuple[bytes, int, int]], set[str]]:
    """Build two conferences, ingest `schedule`, rebuild: the trees before and after, and the
    paths the rebuild wrote (a new mtime or inode); checks the result equals a fresh build."""
    db, out, fresh = str(tmp_path / "store.sqlite"), tmp_path / "site", tmp_path / "fresh"
    two_conferences(db)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    before = tree(out)
    with Store.open(db) as store:
        store.ingest(schedule)

    main(["build", "--db", db, str(out), "--base-url", BASE])

    after = tree(out)
    main(["build", "--db", db, str(fresh), "--base-url", BASE])
    assert {p: b for p, (b, _, _) in after.items()} == {p: b for p, (b, _, _) in tree(fresh).items()}
    written = {p for p, (_, mtime, inode) in after.items() if before.get(p, (b"", 0, 0))[1:] != (mtime, inode)}
    return before, after, written


def both_copies(paths: set[str]) -> list[str]:
    """The default conference's files at the root and under its base."""
    return sorted(paths | {f"c/{DEMO}/{p}" for p in paths})


def test_a_rebuild_after_one_session_moved_rewrites_exactly_the_files_whose_bytes_changed(
    tmp_path: Path,
) -> None:
    first = next(s for s in demo_schedule().sessions if s.id == CHANGED)
    later = changed(
        demo_schedule(),
        start=first.start + timedelta(hours=1),
        end=first.end + timedelta(hours=1),
        title=first.title + " (moved)",
    )

    before, after, written = rebuilt(tmp_path, later)

    assert sorted(written) == both_copies(
        {
            "api/changes",
            "api/changes.json",
            "api/sessions",
            "api/sessions.json",
            "changes.atom",
            "changes/index.html",
            "feeds/all.ics",
            "feeds/day/2026-04-07.ics",
            "feeds/kind/lightning-talk.ics",
            "feeds/level/intermediate.ics",
            "feeds/room/central-room.ics",
            "feeds/speaker/rosheen-naeem.ics",
            "feeds/track/applications-case-studies.ics",
            "index.html",
            "schedule.json",
            "schedule.xml",
            "rooms/central-room/index.html",  # the pages listing the session
            "search.json",  # the retitled session's text
            f"sessions/{CHANGED}.ics",
            f"sessions/{CHANGED}/index.html",
            "speakers/index.html",
            "speakers/rosheen-naeem/index.html",
            "tracks/applications-case-studies/index.html",
        }
    )
    assert sorted(p for p, (body, _, _) in after.items() if before.get(p, (b"",))[0] != body) == sorted(written)
    assert set(after) == set(before)


def test_a_session_moved_to_another_room_and_track_remakes_those_four_pages_and_takes_the_others(
    tmp_path: Path,
) -> None:
    """The track and room pages of the feeds the change touched are made again, with the lists of
    tracks and rooms; every other track's and room's page is taken as the last build made it
    (and equals a fresh build's)."""
    master, training = (
        next(s for s in demo_schedule().sessions if s.room and s.room.slug == "master-stage").room,
        next(s for s in demo_schedule().sessions if s.track and s.track.slug == "training-systems").track,
    )
    later = changed(demo_schedule(), room=master, track=training)

    before, after, written = rebuilt(tmp_path, later)

    facets = sorted(p for p in written if p.startswith(("tracks/", "rooms/")))
    assert facets == [
        "rooms/central-room/index.html",
        "rooms/index.html",  # the lists, with each one's number of sessions
        "rooms/master-stage/index.html",
        "tracks/applications-case-studies/index.html",
        "tracks/index.html",
        "tracks/training-systems/index.html",
    ]
    assert {p: b for p, (b, _, _) in after.items() if p not in written} == {
        p: b for p, (b, _, _) in before.items() if p not in written
    }


def test_a_rebuild_deletes_the_files_of_a_dropped_speaker(tmp_path: Path) -> None:
    swapped = changed(demo_schedule(), speakers=(Speaker("Ada Example"),))

    before, after, written = rebuilt(tmp_path, swapped)

    assert sorted(set(before) - set(after)) == both_copies(
        {"feeds/speaker/rosheen-naeem.ics", "qr/speaker/rosheen-naeem.svg", "speakers/rosheen-naeem/index.html"}
    )
    assert sorted(written) == both_copies(
        {
            "api/feeds",
            "api/feeds.json",
            "api/sessions",
            "api/sessions.json",
            "feeds/all.ics",
            "feeds/day/2026-04-07.ics",
            "feeds/kind/lightning-talk.ics",
            "feeds/level/intermediate.ics",
            "feeds/room/central-room.ics",
            "feeds/speaker/ada-example.ics",
            "feeds/track/applications-case-studies.ics",
            "index.html",
            "qr/speaker/ada-example.svg",
            "schedule.json",
            "schedule.xml",
            "rooms/central-room/index.html",  # the pages listing the session's speakers
            "search.json",  # the session's speaker
            f"sessions/{CHANGED}.ics",
            f"sessions/{CHANGED}/index.html",
            "speakers/ada-example/index.html",
            "speakers/index.html",
            "tracks/applications-case-studies/index.html",
        }
    )


def test_a_rebuild_without_a_change_writes_nothing(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    two_conferences(db)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    before = tree(out)

    main(["build", "--db", db, str(out), "--base-url", BASE])

    assert tree(out) == before


def test_a_build_without_its_record_rewrites_no_file_whose_bytes_are_the_same(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    two_conferences(db)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    before = tree(out)
    (tmp_path / ".site.confcal-build.sqlite").unlink()

    main(["build", "--db", db, str(out), "--base-url", BASE])

    assert tree(out) == before


def test_the_default_conference_at_the_root_is_hard_links_to_its_base(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"

    main(["build", "--db", db, str(out), "--base-url", BASE])

    assert (out / "feeds" / "all.ics").samefile(out / "c" / DEMO / "feeds" / "all.ics")
    assert (out / "index.html").samefile(out / "c" / DEMO / "index.html")


def test_a_documents_json_twin_is_a_hard_link_to_it_before_and_after_a_change(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    main(["build", "--db", db, str(out), "--base-url", BASE])
    store = Store.open(db)
    schedule = store.live(DEMO)
    assert schedule is not None
    store.ingest(shifted(schedule, {schedule.sessions[0].id}, timedelta(hours=1)))
    store.close()
    api = out / "c" / DEMO / "api"
    twins = [api / name for name in ("sessions", "feeds", "changes")] + [out / "api" / "conferences"]
    linked_before = [twin.samefile(twin.with_name(f"{twin.name}.json")) for twin in twins]

    main(["build", "--db", db, str(out), "--base-url", BASE])

    linked_after = [twin.samefile(twin.with_name(f"{twin.name}.json")) for twin in twins]
    assert (linked_before, linked_after) == ([True] * 4, [True] * 4)
    assert (out / "api" / "sessions.json").samefile(api / "sessions")
    store = Store.open(db)
    answers = served(store, ["/api/sessions", "/api/changes"], BASE)
    assert [(api / "sessions.json").read_bytes(), (api / "changes.json").read_bytes()] == [
        answers["/api/sessions"],
        answers["/api/changes"],
    ]
    store.close()


def test_a_deleted_site_is_written_again_in_full(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    main(["build", "--db", db, str(out), "--base-url", BASE])
    first = {p: b for p, (b, _, _) in tree(out).items()}
    shutil.rmtree(out)

    main(["build", "--db", db, str(out), "--base-url", BASE])

    assert {p: b for p, (b, _, _) in tree(out).items()} == first


def two_days() -> Schedule:
    """The demo as a two-day conference: its morning's sessions a day later."""
    demo = demo_schedule()
    ordered = sorted(demo.sessions, key=lambda s: (s.start, s.id))
    later = {s.id for s in ordered[: len(ordered) // 2]}
    day = timedelta(days=1)
    longer = dataclasses.replace(demo.conference, end_date=demo.conference.end_date + day)
    return shifted(dataclasses.replace(demo, conference=longer), later, day)


def remade(out: Path) -> dict[str, str]:
    """Path -> key of its inputs, from the record the build keeps beside `out` (the default
    conference's copy at the root: its files' keys)."""
    keys = {path: str(entry[0]) for path, entry in recorded(out).items()}
    base = recorded_mirror(out)  # the default's base: its copy at the root is hard links to its files
    return keys | {path[len(base) :]: key for path, key in keys.items() if path.startswith(base)}


def test_a_move_within_one_day_remakes_and_rewrites_only_that_days_pages(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    schedule = two_days()
    moved = CHANGED  # on the second day, neither the conference's first nor its last session
    first = next(s for s in schedule.sessions if s.id == moved)
    later = shifted(schedule, {moved}, timedelta(minutes=5))
    with Store.open(db) as store:
        store.ingest(schedule)
        live = store.live(DEMO)
    assert live is not None
    stored = next(s.id for s in live.sessions if s.title == first.title)  # the store's id for it
    main(["build", "--db", db, str(out), "--base-url", BASE])
    before, keys = tree(out), remade(out)
    with Store.open(db) as store:
        store.ingest(later)

    main(["build", "--db", db, str(out), "--base-url", BASE])

    after = tree(out)
    written = {p for p, (_, mtime, inode) in after.items() if before[p][1:] != (mtime, inode)}
    expected = both_copies(
        {
            "api/changes",
            "api/changes.json",
            "api/sessions",
            "api/sessions.json",
            "changes.atom",
            "changes/index.html",
            "days/2026-04-08/index.html",
            "days/all/index.html",
            "feeds/all.ics",
            "feeds/day/2026-04-08.ics",
            "feeds/kind/lightning-talk.ics",
            "feeds/level/intermediate.ics",
            "feeds/room/central-room.ics",
            "feeds/speaker/rosheen-naeem.ics",
            "feeds/track/applications-case-studies.ics",
            "rooms/central-room/index.html",  # the pages listing the session's time
            "schedule.json",
            "schedule.xml",
            f"sessions/{stored}.ics",
            f"sessions/{stored}/index.html",
            "speakers/rosheen-naeem/index.html",
            "tracks/applications-case-studies/index.html",
        }
    )
    assert first.start.date() == date(2026, 4, 8)
    assert sorted(written) == expected
    # Made again (a new key) only where the content changed, and search.json and the speakers'
    # directory, keyed on each day's sessions and on the speakers' pages (their bytes stay: no
    # time in them): not the other day's page nor the front page.
    remade_paths = sorted(p for p, key in remade(out).items() if keys[p] != key)
    assert remade_paths == sorted([*expected, *both_copies({"search.json", "speakers/index.html"})])
    assert set(after) == set(before)


def kept_parts(out: Path) -> dict[str, int]:
    """The build's kept parts (build_output.py): file name (its key) -> inode (a remade part is a new file)."""
    return {part.name: part.stat().st_ino for part in (out.parent / f".{out.name}.confcal-build.parts").iterdir()}


def test_a_build_without_a_change_keeps_the_parts_a_later_move_joins_its_pages_from(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    schedule = two_days()
    later = shifted(schedule, {CHANGED}, timedelta(minutes=5))
    with Store.open(db) as store:
        store.ingest(schedule)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    first = kept_parts(out)
    main(["build", "--db", db, str(out), "--base-url", BASE])  # nothing changed: every page skipped
    unchanged = kept_parts(out)
    with Store.open(db) as store:
        store.ingest(later)

    main(["build", "--db", db, str(out), "--base-url", BASE])

    after = kept_parts(out)
    assert unchanged == first
    # The new version's changelog entry (build_changes.py) and the feeds the move touched since
    # the kept schedule (build_schedule.py); the conference's events, the moved session's day's
    # cards, its events' texts in schedule.xml and schedule.json and entries' in api/sessions,
    # the speakers' directory entries, the rows of its track's and its room's pages and the
    # speakers' pages' keys written again under the same names (build_events.py,
    # build_pages.py, build_texts.py, site_build.py); every other part kept from the first
    # build. The moved session's day section and its day in schedule.xml, schedule.json,
    # api/sessions and search.json are kept in the files joined from them, not as parts.
    made = set(after) - set(first)
    assert (len(made), len(set(first) - set(after))) == (2, 0)
    assert len([key for key, inode in after.items() if key not in made and first[key] != inode]) == 9


def test_two_jobs_write_the_site_and_record_one_job_writes(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    two_conferences(db)
    with Store.open(db) as store:
        store.ingest(crowded(FIRST // 3))  # a session's page, download, speaker's page and QR code
    sites = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"site{jobs}"
        main(["build", "--db", db, str(out), "--base-url", BASE, "--jobs", jobs])
        files = recorded(out)
        # Without when each build ran.
        stamps = {slug: dataclasses.replace(stamped, made=EPOCH) for slug, stamped in recorded_stamps(out).items()}
        sites[jobs] = ({p: f.read_bytes() for p, f in site_files(out).items()}, files, stamps)
    # More independent files than a fork waits for: the two-job build did use a worker.
    independents = [p for p in sites["2"][1] if p.startswith("c/") and independent(p.split("/", 2)[2])]

    assert len(independents) > FIRST
    assert sites["2"] == sites["1"]
    assert (tmp_path / "site2" / "index.html").samefile(tmp_path / "site2" / "c" / DEMO / "index.html")


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_must_be_a_positive_number(tmp_path: Path, jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["build", "--db", str(tmp_path / "s.sqlite"), str(tmp_path / "site"), "--jobs", jobs])

    assert exit_info.value.code == 2
    assert f"argument --jobs: {jobs!r} is not a number of processes (1 or more)" in capsys.readouterr().err


def test_a_crowded_kinds_page_is_built_as_served_and_remade_only_when_its_feeds_change(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    schedule = crowded(LISTED_FEEDS + 1)
    index, paths = "subscribe/speaker/index.html", ["/subscribe/speaker/", f"/c/{CROWDED_SLUG}/subscribe/speaker/"]
    with Store.open(db) as store:
        store.ingest(schedule)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    built, keys = tree(out), remade(out)
    with Store.open(db) as store:
        answers = served(store, paths, BASE)
        store.ingest(shifted(schedule, {schedule.sessions[4].id}, timedelta(minutes=5)))  # on the first day

    main(["build", "--db", db, str(out), "--base-url", BASE])  # one session moved: the same feeds
    moved, moved_keys = tree(out), remade(out)
    with Store.open(db) as store:
        store.ingest(crowded(LISTED_FEEDS + 2))
    main(["build", "--db", db, str(out), "--base-url", BASE])  # one more speaker

    assert [built[index][0], built[f"c/{CROWDED_SLUG}/{index}"][0]] == [answers[path] for path in paths]
    assert (moved[index], moved_keys[index]) == (built[index], keys[index])  # neither remade nor rewritten
    assert moved_keys["index.html"] != keys["index.html"]  # the front page shows the moved session
    assert remade(out)[index] != keys[index]
    assert "All 102 speakers" in (out / index).read_text(encoding="utf-8")


def with_speaker(schedule: Schedule, at: int, speaker: Speaker) -> Schedule:
    sessions = list(schedule.sessions)
    sessions[at] = dataclasses.replace(sessions[at], speakers=(speaker,))
    return dataclasses.replace(schedule, sessions=tuple(sessions))


def test_a_crowded_kinds_page_rebuilt_after_its_feeds_change_is_the_page_served(tmp_path: Path) -> None:
    # Each entry is taken from the last build's file while its feed shows what it showed then:
    # the entries of a feed that ended, began, was renamed or counts another event are not.
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    index, paths = "subscribe/speaker/index.html", ["/subscribe/speaker/", f"/c/{CROWDED_SLUG}/subscribe/speaker/"]
    first = crowded(LISTED_FEEDS + 2)  # one more than the page needs, for one to go
    renamed = with_speaker(first, 7, Speaker("SPEAKER 007", slug="speaker-007"))  # the same slug
    swapped = with_speaker(renamed, 40, Speaker("Ada Newcomer"))
    second = with_speaker(swapped, 41, first.sessions[42].speakers[0])  # one speaker has two events
    pages = []
    with Store.open(db) as store:
        store.ingest(first)
    main(["build", "--db", db, str(out), "--base-url", BASE])

    for schedule in (renamed, swapped, second):
        with Store.open(db) as store:
            store.ingest(schedule)
            answers = served(store, paths, BASE)
        main(["build", "--db", db, str(out), "--base-url", BASE])
        pages.append(([(out / index).read_bytes(), (out / f"c/{CROWDED_SLUG}/{index}").read_bytes()], answers))

    assert [built for built, _ in pages] == [[answers[path] for path in paths] for _, answers in pages]
    assert "SPEAKER 007" in pages[0][0][0].decode()
    assert "Ada Newcomer" in pages[1][0][0].decode()


# A build in a process of its own, printing how many zones that process computed the VTIMEZONE of.
_BUILD_COUNTING_ZONES = (
    "import sys; from feeds.ical import timezone; from server.cli import main; "
    "main(['build', '--quiet', '--db', sys.argv[1], sys.argv[2], '--base-url', sys.argv[3]]); "
    "print(timezone.blocks.cache_info().currsize)"
)


def test_a_rebuild_in_a_new_process_takes_the_zones_vtimezone_from_the_last_build(tmp_path: Path) -> None:
    """The zone's VTIMEZONE is made from tzdata by walking seventy years of it: a rebuild takes the
    bytes the last build made from the same zone data and code instead."""
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    schedule = two_days()
    with Store.open(db) as store:
        store.ingest(schedule)

    def build() -> str:
        command = [sys.executable, "-c", _BUILD_COUNTING_ZONES, db, str(out), BASE]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=ENV)
        return done.stdout.split()[-1]

    first = build()
    with Store.open(db) as store:
        store.ingest(shifted(schedule, {CHANGED}, timedelta(minutes=5)))

    again = build()

    feed = (out / "feeds" / "all.ics").read_bytes()
    assert (first, again, feed.count(b"BEGIN:VTIMEZONE")) == ("1", "0", 1)
