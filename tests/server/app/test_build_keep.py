"""`Output.keep` and `Output.keep_range`: files a rebuild takes as the last build made them, without
making or keying them (sessions' pages and downloads, when their rows are those the last build
read), one by one or a directory at a time."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from server.site.build_keys import body_digest
from server.site.build_output import Output
from server.site.build_record import Stamped
from tests.helpers.build_inspection import recorded

OWNED = (("c/a/sessions", False), ("sessions", False))


def put_with_root_copy(output: Output, name: str, key: str, body: bytes) -> None:
    """Conference a's file `name` and its copy at the root, as a build of the default conference writes them."""
    output.put("c/a/" + name, key, lambda: body)
    output.link(name, "c/a/" + name)


def first_build(root: Path, names: tuple[str, ...] = ("sessions/one.ics", "sessions/two.ics")) -> None:
    output = Output(root)
    for name in names:
        put_with_root_copy(output, name, "v1", name.encode())
    output.finish(OWNED)


THREE = ("sessions/one.ics", "sessions/two.ics", "sessions/three.ics", "index.html")


def files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_a_kept_file_and_its_root_copy_stay_while_files_are_added_beside_them(tmp_path: Path) -> None:
    root = tmp_path / "site"
    first_build(root)

    output = Output(root)
    kept = output.keep("c/a/sessions/one.ics", "sessions/one.ics")
    put_with_root_copy(output, "sessions/two.ics", "v2", b"two, moved")
    put_with_root_copy(output, "sessions/three.ics", "v1", b"three")
    output.finish(OWNED)

    assert kept is True
    assert files(root) == [
        "c/a/sessions/one.ics",
        "c/a/sessions/three.ics",
        "c/a/sessions/two.ics",
        "sessions/one.ics",
        "sessions/three.ics",
        "sessions/two.ics",
    ]
    assert (root / "sessions" / "one.ics").samefile(root / "c" / "a" / "sessions" / "one.ics")
    assert recorded(root)["c/a/sessions/one.ics"] == ["v1", body_digest(b"sessions/one.ics")]


def test_a_file_the_last_build_did_not_record_is_not_kept(tmp_path: Path) -> None:
    root = tmp_path / "site"
    first_build(root)

    output = Output(root)
    kept = output.keep("c/a/sessions/new.ics", "sessions/new.ics")
    put_with_root_copy(output, "sessions/one.ics", "v1", b"never made")
    output.finish(OWNED)

    assert kept is False
    assert files(root) == ["c/a/sessions/one.ics", "sessions/one.ics"]


def test_a_file_whose_root_copy_mirrored_another_conference_is_not_kept(tmp_path: Path) -> None:
    root = tmp_path / "site"
    first_build(root)

    kept = Output(root).keep("c/b/sessions/one.ics", "sessions/one.ics")

    assert kept is False


def test_what_a_stamp_says_of_the_rows_is_read_back_and_a_stamp_without_it_says_none(tmp_path: Path) -> None:
    root = tmp_path / "site"
    made = datetime(2026, 3, 1, 12, tzinfo=UTC)
    stamped = Stamped("s1", made, None, 60, 28, ("events",), "frame", "base", 7, "0011 12 7 2026-03-01T12:00:00+00:00")
    output = Output(root)
    output.put("page", "k", lambda: b"<main></main>")
    output.stamp("conf", stamped)
    output.finish(())
    with sqlite3.connect(tmp_path / ".site.confcal-build.sqlite") as db:
        db.execute(
            "INSERT INTO conferences VALUES ('older', ?)", (json.dumps(["s1", made.isoformat(), None, 1, 1, []]),)
        )

    output = Output(root)

    assert output.stamped("conf") == stamped
    assert output.stamped("older") == Stamped("s1", made, None, 1, 1, ())


def test_a_kept_range_stays_with_its_root_copies_while_a_looked_file_is_made_and_another_removed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "site"
    first_build(root, THREE)

    output = Output(root)
    kept = output.keep_range(["c/a/sessions/"], ["c/a/sessions/two.ics", "c/a/sessions/three.ics"], mirrored=True)
    put_with_root_copy(output, "sessions/two.ics", "v2", b"two, moved")
    put_with_root_copy(output, "index.html", "v1", b"index.html")
    output.finish(OWNED)

    assert kept is True
    assert files(root) == [
        "c/a/index.html",
        "c/a/sessions/one.ics",
        "c/a/sessions/two.ics",
        "index.html",
        "sessions/one.ics",
        "sessions/two.ics",
    ]
    assert (root / "sessions" / "one.ics").samefile(root / "c" / "a" / "sessions" / "one.ics")
    assert (root / "sessions" / "two.ics").read_bytes() == b"two, moved"
    assert sorted(recorded(root)) == ["c/a/index.html", "c/a/sessions/one.ics", "c/a/sessions/two.ics"]


def test_a_stray_file_beside_a_kept_range_goes_when_its_directorys_files_change_and_the_kept_ones_stay(
    tmp_path: Path,
) -> None:
    root = tmp_path / "site"
    first_build(root, THREE)
    for stray in (root / "c" / "a" / "sessions" / "stray.ics", root / "sessions" / "stray.ics"):
        stray.write_bytes(b"left by hand")

    output = Output(root)
    kept = output.keep_range(["c/a/sessions/"], ["c/a/sessions/four.ics"], mirrored=True)
    put_with_root_copy(output, "sessions/four.ics", "v1", b"a new session: the directory's files change")
    output.finish(OWNED)

    assert kept is True
    assert files(root) == [
        "c/a/sessions/four.ics",
        "c/a/sessions/one.ics",
        "c/a/sessions/three.ics",
        "c/a/sessions/two.ics",
        "sessions/four.ics",
        "sessions/one.ics",
        "sessions/three.ics",
        "sessions/two.ics",
    ]


def test_a_directory_whose_files_did_not_change_is_not_listed_for_strays(tmp_path: Path) -> None:
    # Listing a directory of every session's files costs a large conference's rebuild more
    # than the change: a stray there waits for a build that adds or drops one of them.
    root = tmp_path / "site"
    first_build(root, THREE)
    (root / "c" / "a" / "sessions" / "stray.ics").write_bytes(b"left by hand")

    output = Output(root)
    output.keep_range(["c/a/sessions/"], [], mirrored=True)
    put_with_root_copy(output, "new.html", "v1", b"a new file beside the sessions' directory")
    output.finish(OWNED)

    assert "c/a/sessions/stray.ics" in files(root)
    assert "new.html" in files(root)


def test_a_range_is_not_kept_when_the_root_mirrored_another_conference_or_this_one_without_its_copies(
    tmp_path: Path,
) -> None:
    root = tmp_path / "site"
    first_build(root)

    elsewhere = Output(root).keep_range(["c/b/sessions/"], [], mirrored=True)
    uncopied = Output(root).keep_range(["c/a/sessions/"], [])
    read = Output(root)
    read.keep("c/a/sessions/one.ics", "sessions/one.ics")
    after_reading = read.keep_range(["c/a/sessions/"], [], mirrored=True)

    assert (elsewhere, uncopied, after_reading) == (False, False, False)


def test_a_file_in_a_kept_range_made_all_the_same_is_read_on_its_own_and_not_written_again(tmp_path: Path) -> None:
    root = tmp_path / "site"
    first_build(root)

    output = Output(root)
    output.keep_range(["c/a/sessions/"], [], mirrored=True)
    put_with_root_copy(output, "sessions/one.ics", "v1", b"not made: its key is the last build's")
    output.finish(OWNED)

    assert output.written == []
    assert (root / "c" / "a" / "sessions" / "one.ics").read_bytes() == b"sessions/one.ics"


def test_kept_ranges_stay_while_the_files_between_them_are_made_again_or_removed(tmp_path: Path) -> None:
    root = tmp_path / "site"
    first_build(root, ("feeds/all.ics", "feeds/day/one.ics", "index.html", "old.html", "sessions/one.ics"))

    output = Output(root)
    kept = output.keep_range(["c/a/sessions/", "c/a/feeds/"], ["c/a/feeds/day/one.ics"], mirrored=True)
    put_with_root_copy(output, "feeds/day/one.ics", "v2", b"day one, moved")
    put_with_root_copy(output, "index.html", "v1", b"not made: its key is the last build's")
    output.finish(OWNED)

    assert kept is True
    assert files(root) == [
        "c/a/feeds/all.ics",
        "c/a/feeds/day/one.ics",
        "c/a/index.html",
        "c/a/sessions/one.ics",
        "feeds/all.ics",
        "feeds/day/one.ics",
        "index.html",
        "sessions/one.ics",
    ]
    assert sorted(output.written) == ["c/a/feeds/day/one.ics", "feeds/day/one.ics"]
    assert (root / "feeds" / "all.ics").samefile(root / "c" / "a" / "feeds" / "all.ics")
    assert sorted(recorded(root)) == [
        "c/a/feeds/all.ics",
        "c/a/feeds/day/one.ics",
        "c/a/index.html",
        "c/a/sessions/one.ics",
    ]
