"""The build record's kept parts (`Output.part`): reused only while intact, dropped when unused;
the conferences' stamps it keeps; files written from pieces as from whole bytes."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest
from inotify_simple import INotify, flags

from server.site.build_bodies import Joined, Segment, Span, Twin, segment
from server.site.build_files import copy_range
from server.site.build_keys import body_digest
from server.site.build_output import _WAITING_BYTES, _WAITING_FILES, Output
from server.site.build_record import Stamped
from tests.helpers.build_inspection import recorded


def made(calls: list[bytes], body: bytes) -> bytes:
    calls.append(body)
    return body


def one_build(root: Path, parts: dict[str, bytes], calls: list[bytes]) -> dict[str, bytes]:
    output = Output(root)
    bodies = {key: output.part(key, partial(made, calls, body)) for key, body in parts.items()}
    output.finish(())
    return bodies


def test_a_kept_part_is_read_back_instead_of_made(tmp_path: Path) -> None:
    root = tmp_path / "site"
    one_build(root, {"k1": b"<section>one</section>"}, [])
    calls: list[bytes] = []

    bodies = one_build(root, {"k1": b"never made"}, calls)

    assert bodies == {"k1": b"<section>one</section>"}
    assert calls == []


def test_a_part_altered_on_disk_is_made_again(tmp_path: Path) -> None:
    root = tmp_path / "site"
    one_build(root, {"k1": b"<section>one</section>"}, [])
    (tmp_path / ".site.confcal-build.parts" / "k1").write_bytes(b"<section>tampered</section>")
    calls: list[bytes] = []

    bodies = one_build(root, {"k1": b"<section>one</section>"}, calls)

    assert bodies == {"k1": b"<section>one</section>"}
    assert calls == [b"<section>one</section>"]


def test_a_part_cut_short_on_disk_is_made_again(tmp_path: Path) -> None:
    root = tmp_path / "site"
    one_build(root, {"k1": b"<section>one</section>"}, [])
    part = tmp_path / ".site.confcal-build.parts" / "k1"
    part.write_bytes(part.read_bytes()[:-1])
    calls: list[bytes] = []

    bodies = one_build(root, {"k1": b"<section>one</section>"}, calls)

    assert bodies == {"k1": b"<section>one</section>"}
    assert calls == [b"<section>one</section>"]


def test_parts_a_build_did_not_use_are_removed(tmp_path: Path) -> None:
    root = tmp_path / "site"
    one_build(root, {"k1": b"one", "k2": b"two"}, [])

    one_build(root, {"k2": b"two"}, [])

    assert sorted(p.name for p in (tmp_path / ".site.confcal-build.parts").iterdir()) == ["k2"]


def joined_build(root: Path, key: str, calls: list[bytes]) -> None:
    """One build of one file, `page`, joined from the part `k1` (its file key `key`)."""
    output = Output(root)
    output.put("page", key, lambda: b"<main>" + output.part("k1", lambda: made(calls, b"one")) + b"</main>")
    output.finish(())


def test_a_file_skipped_by_its_key_keeps_the_parts_it_was_joined_from(tmp_path: Path) -> None:
    root = tmp_path / "site"
    joined_build(root, "v1", [])
    joined_build(root, "v1", [])  # nothing changed: the page is skipped and uses no part
    calls: list[bytes] = []

    joined_build(root, "v2", calls)

    assert (root / "page").read_bytes() == b"<main>one</main>"
    assert calls == []


def test_a_json_record_of_the_earlier_format_counts_as_none_and_goes(tmp_path: Path) -> None:
    root = tmp_path / "site"
    joined_build(root, "v1", [])
    (tmp_path / ".site.confcal-build.sqlite").unlink()
    old = tmp_path / ".site.confcal-build.json"
    old.write_text('{"format":3,"files":{"page":["v1","0"]},"parts":{"k1":"0"}}', encoding="utf-8")
    calls: list[bytes] = []

    joined_build(root, "v1", calls)

    assert (root / "page").read_bytes() == b"<main>one</main>"
    assert calls == [b"one"]
    assert not old.exists()


def test_a_record_of_another_format_counts_as_none(tmp_path: Path) -> None:
    root = tmp_path / "site"
    joined_build(root, "v1", [])
    with sqlite3.connect(tmp_path / ".site.confcal-build.sqlite") as db:
        db.execute("UPDATE meta SET value = '3' WHERE name = 'format'")
    calls: list[bytes] = []

    joined_build(root, "v1", calls)

    assert (root / "page").read_bytes() == b"<main>one</main>"
    assert calls == [b"one"]


def test_a_record_that_is_no_database_counts_as_none(tmp_path: Path) -> None:
    root = tmp_path / "site"
    joined_build(root, "v1", [])
    (tmp_path / ".site.confcal-build.sqlite").write_bytes(b"not a database at all" * 100)
    calls: list[bytes] = []

    joined_build(root, "v1", calls)
    joined_build(root, "v1", calls)

    assert (root / "page").read_bytes() == b"<main>one</main>"
    assert calls == [b"one"]


def test_a_build_without_a_change_leaves_the_record_as_it_was(tmp_path: Path) -> None:
    root = tmp_path / "site"
    joined_build(root, "v1", [])
    record = tmp_path / ".site.confcal-build.sqlite"
    before = (record.stat().st_mtime_ns, record.read_bytes())

    joined_build(root, "v1", [])

    assert (record.stat().st_mtime_ns, record.read_bytes()) == before
    assert (root / "page").read_bytes() == b"<main>one</main>"


def test_a_rebuild_writes_the_entries_of_the_files_it_changed_and_no_other(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = Output(root)
    for name in ("a", "b", "c"):
        output.put(name, "v1", name.encode)
    output.finish(())
    with sqlite3.connect(tmp_path / ".site.confcal-build.sqlite") as db:
        db.execute("UPDATE files SET key = 'as recorded' WHERE path IN ('a', 'c')")

    output = Output(root)
    output.put("a", "as recorded", lambda: b"never made")
    output.put("b", "v2", lambda: b"b2")
    output.put("c", "as recorded", lambda: b"never made")
    output.finish(())

    assert recorded(root) == {
        "a": ["as recorded", body_digest(b"a")],
        "b": ["v2", body_digest(b"b2")],
        "c": ["as recorded", body_digest(b"c")],
    }


def test_a_conferences_stamp_is_read_back_as_the_build_recorded_it(tmp_path: Path) -> None:
    root = tmp_path / "site"
    stamped = Stamped("s1", datetime(2026, 3, 1, 12, tzinfo=UTC), None, 60, 28, ("events",))
    output = Output(root)
    output.put("page", "k", lambda: b"<main></main>")
    output.stamp("conf", stamped)
    output.finish(())

    assert Output(root).stamped("conf") == stamped


def test_a_stamp_the_build_cannot_read_is_left_out(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = Output(root)
    output.put("page", "k", lambda: b"<main></main>")
    output.finish(())
    unreadable = {"naive": ["s1", "2026-03-01T12:00:00", None, 1, 1, []], "short": ["s1"], "odd": 3}
    with sqlite3.connect(tmp_path / ".site.confcal-build.sqlite") as db:
        db.executemany("INSERT INTO conferences VALUES (?, ?)", ((k, json.dumps(v)) for k, v in unreadable.items()))

    output = Output(root)

    assert [output.stamped(slug) for slug in ("naive", "short", "odd")] == [None, None, None]


def test_a_first_build_creates_its_files_in_place_and_leaves_no_temporary(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = Output(root)

    output.put("sessions/a/index.html", "k1", lambda: b"<p>a</p>")
    output.put("feeds/all.ics", "k2", lambda: b"BEGIN:VCALENDAR")
    output.flush()

    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        "feeds/all.ics",
        "sessions/a/index.html",
    ]
    assert (root / "sessions" / "a" / "index.html").read_bytes() == b"<p>a</p>"


def test_files_made_wait_to_be_written_together_no_more_than_the_bound_allows(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = Output(root)
    names = [f"sessions/{n}/index.html" for n in range(_WAITING_FILES)]

    for name in names[:-1]:
        output.put(name, name, lambda: b"<p>a</p>")
    before = [(root / name).exists() for name in names]
    output.put(names[-1], "last", lambda: b"<p>a</p>")
    after = [(root / name).exists() for name in names]
    output.put("feeds/all.ics", "large", lambda: b"x" * _WAITING_BYTES)

    assert (before, after, (root / "feeds" / "all.ics").stat().st_size) == (
        [False] * _WAITING_FILES,
        [True] * _WAITING_FILES,
        _WAITING_BYTES,
    )


def test_a_link_waits_behind_the_file_it_links_to(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = Output(root)
    output.put("c/a/feeds/all.ics", "k1", lambda: b"BEGIN:VCALENDAR")

    output.link("feeds/all.ics", "c/a/feeds/all.ics")
    output.flush()

    assert (root / "feeds" / "all.ics").samefile(root / "c" / "a" / "feeds" / "all.ics")


def test_a_forked_output_writes_none_of_the_files_its_parent_made_and_had_not_written(tmp_path: Path) -> None:
    # The build's process writes them: a worker writing them too would race it for their names.
    root = tmp_path / "site"
    output = Output(root)
    output.put("feeds/all.ics", "k1", lambda: b"BEGIN:VCALENDAR")

    output.forked()
    output.flush()

    assert not (root / "feeds" / "all.ics").exists()


def test_files_made_in_place_or_beside_have_the_mode_open_gives_less_the_umask(tmp_path: Path) -> None:
    # A host that serves the site as another user reads every file, as with any file Python makes.
    root = tmp_path / "site"
    before = os.umask(0o027)
    try:
        first = Output(root)
        first.put("sessions/a/index.html", "k1", lambda: b"<p>a</p>")
        first.finish(())
        second = Output(root)
        second.put("sessions/a/index.html", "k1", lambda: b"<p>a</p>")
        second.put("feeds/all.ics", "k2", lambda: b"BEGIN:VCALENDAR")  # new to a rebuild: beside
        second.finish(())
    finally:
        os.umask(before)

    modes = {path: (root / path).stat().st_mode & 0o777 for path in ("sessions/a/index.html", "feeds/all.ics")}
    assert modes == {"sessions/a/index.html": 0o640, "feeds/all.ics": 0o640}


def test_a_file_that_appeared_during_a_first_build_is_replaced_not_written_through(tmp_path: Path) -> None:
    # Created in place only when new: one made since the build began (here a hard link to a file
    # outside the site) is replaced whole, and what it was linked to keeps its bytes.
    root, outside = tmp_path / "site", tmp_path / "outside.ics"
    output = Output(root)
    outside.write_bytes(b"someone else's")
    (root / "feeds").mkdir(parents=True)
    (root / "feeds" / "all.ics").hardlink_to(outside)

    output.put("feeds/all.ics", "k1", lambda: b"BEGIN:VCALENDAR")
    output.flush()

    assert (root / "feeds" / "all.ics").read_bytes() == b"BEGIN:VCALENDAR"
    assert outside.read_bytes() == b"someone else's"


def test_a_rebuild_replaces_a_changed_file_whole(tmp_path: Path) -> None:
    # A host that opened the file before the rebuild reads its old bytes to the end.
    root = tmp_path / "site"
    first = Output(root)
    first.put("feeds/all.ics", "k1", lambda: b"OLD")
    first.finish(())
    with open(root / "feeds" / "all.ics", "rb") as serving:
        second = Output(root)
        second.put("feeds/all.ics", "k2", lambda: b"NEW BYTES")
        second.finish(())

        assert serving.read() == b"OLD"
    assert (root / "feeds" / "all.ics").read_bytes() == b"NEW BYTES"


def test_a_rebuild_writes_even_a_new_file_beside_and_renames_it_into_place(tmp_path: Path) -> None:
    # Once a build is published a host may serve any path the moment it exists, so a file the site
    # never had is not created in place either: the kernel reports no write to its served name.
    root = tmp_path / "site"
    first = Output(root)
    first.put("feeds/all.ics", "k1", lambda: b"ALL")
    first.finish(())
    with INotify() as watch:
        watch.add_watch(root / "feeds", flags.MODIFY | flags.CLOSE_WRITE | flags.MOVED_TO)
        second = Output(root)
        second.put("feeds/all.ics", "k1", lambda: b"ALL")
        second.put("feeds/new.ics", "k2", lambda: b"NEW")
        second.finish(())
        events = [(event.name, flags.from_mask(event.mask)) for event in watch.read(timeout=0)]

    written = {name for name, seen in events if flags.MODIFY in seen or flags.CLOSE_WRITE in seen}
    renamed = [name for name, seen in events if flags.MOVED_TO in seen]
    assert renamed == ["new.ics"]
    assert written and "new.ics" not in written and "all.ics" not in written
    assert (root / "feeds" / "new.ics").read_bytes() == b"NEW"


def test_the_files_of_a_conference_no_longer_built_are_removed_with_their_entries(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = Output(root)
    for path in ("c/a/one.html", "c/b/one.html", "c/b/feeds/all.ics", "c/bb/one.html"):
        output.put(path, "v1", path.encode)
    output.finish(())

    output = Output(root)
    output.put("c/a/one.html", "v1", lambda: b"never made")
    output.put("c/bb/one.html", "v1", lambda: b"never made")
    output.finish(())

    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        "c/a/one.html",
        "c/bb/one.html",
    ]
    assert sorted(recorded(root)) == ["c/a/one.html", "c/bb/one.html"]


def test_a_root_copy_the_new_default_does_not_have_is_removed(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = Output(root)
    for base, names in (("c/a/", ("one.html", "only-a.html")), ("c/b/", ("one.html",))):
        for name in names:
            output.put(base + name, "v1", (base + name).encode)
            if base == "c/a/":
                output.link(name, base + name)
    output.finish(())

    output = Output(root)
    output.put("c/a/one.html", "v1", lambda: b"never made")
    output.put("c/a/only-a.html", "v1", lambda: b"never made")
    output.put("c/b/one.html", "v1", lambda: b"never made")
    output.link("one.html", "c/b/one.html")
    output.finish(())

    assert (root / "one.html").samefile(root / "c" / "b" / "one.html")
    assert not (root / "only-a.html").exists()
    assert (root / "c" / "a" / "only-a.html").read_bytes() == b"c/a/only-a.html"


def pieces_build(root: Path, key: str, pieces: list[bytes]) -> Output:
    """One build of one file, `schedule.xml`, written from `pieces` as a maker gives them."""
    output = Output(root)
    output.put("schedule.xml", key, lambda: iter(pieces))
    output.finish(())
    return output


def test_a_file_made_in_pieces_with_the_same_bytes_is_not_rewritten(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieces_build(root, "k1", [b"<schedule>", b"one", b"</schedule>"])
    before = (root / "schedule.xml").stat()

    second = pieces_build(root, "k2", [b"<schedule>o", b"ne</schedule>"])

    after = (root / "schedule.xml").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert second.written == []
    assert recorded(root) == {"schedule.xml": ["k2", body_digest(b"<schedule>one</schedule>")]}
    assert sorted(p.name for p in root.iterdir()) == ["schedule.xml"]


def test_a_file_made_in_pieces_with_new_bytes_replaces_the_old_whole(tmp_path: Path) -> None:
    # A host that opened the file before the rebuild reads its old bytes to the end.
    root = tmp_path / "site"
    pieces_build(root, "k1", [b"<schedule>", b"one", b"</schedule>"])
    with open(root / "schedule.xml", "rb") as serving:
        second = pieces_build(root, "k2", [b"<schedule>", b"two", b"</schedule>"])

        assert serving.read() == b"<schedule>one</schedule>"
    assert (root / "schedule.xml").read_bytes() == b"<schedule>two</schedule>"
    assert second.written == ["schedule.xml"]
    assert recorded(root) == {"schedule.xml": ["k2", body_digest(b"<schedule>two</schedule>")]}
    assert sorted(p.name for p in root.iterdir()) == ["schedule.xml"]


def test_a_file_whose_pieces_fail_keeps_its_old_bytes_and_leaves_no_temporary(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieces_build(root, "k1", [b"<schedule>", b"one", b"</schedule>"])

    def failing() -> Iterator[bytes]:
        yield b"<schedule>"
        raise ValueError("a day's chunk failed")

    output = Output(root)
    with pytest.raises(ValueError, match="a day's chunk failed"):
        output.put("schedule.xml", "k2", failing)

    assert (root / "schedule.xml").read_bytes() == b"<schedule>one</schedule>"
    assert sorted(p.name for p in root.iterdir()) == ["schedule.xml"]


def segments_build(root: Path, key: str, joined: Callable[[Output], Joined]) -> Output:
    """One build of one file, `all.ics`, written from the segments `joined` gives with the
    build's output (and so what it says of the last build's file)."""
    output = Output(root)
    output.put("all.ics", key, lambda: joined(output))
    output.finish(())
    return output


def sha(body: bytes) -> str:
    return segment([body]).sha


def test_a_joined_file_takes_its_spans_from_the_last_builds_file(tmp_path: Path) -> None:
    root = tmp_path / "site"
    segments_build(
        root, "k1", lambda _: Joined([segment([b"HEAD\n"]), segment([b"one\n", b"two\n"]), segment([b"END\n"])])
    )

    def again(output: Output) -> Joined:
        last = output.source("all.ics")
        assert last is not None
        return Joined([segment([b"HEAD2\n"]), Span(last, 5, 13, sha(b"one\ntwo\n")), segment([b"END\n"])])

    second = segments_build(root, "k2", again)

    assert (root / "all.ics").read_bytes() == b"HEAD2\none\ntwo\nEND\n"
    assert second.written == ["all.ics"]
    assert sorted(p.name for p in root.iterdir()) == ["all.ics"]


def test_a_joined_file_with_the_same_segments_under_a_new_key_is_not_rewritten(tmp_path: Path) -> None:
    root = tmp_path / "site"
    segments_build(root, "k1", lambda _: Joined([segment([b"HEAD\n"]), segment([b"one\n"])]))
    before = (root / "all.ics").stat()

    second = segments_build(
        root,
        "k2",
        lambda output: Joined([segment([b"HEAD\n"]), Span(output.source("all.ics") or "", 5, 9, sha(b"one\n"))]),
    )

    after = (root / "all.ics").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert second.written == []
    assert recorded(root)["all.ics"][0] == "k2"


def test_a_joined_file_whose_segments_fail_keeps_its_old_bytes_and_leaves_no_temporary(tmp_path: Path) -> None:
    root = tmp_path / "site"
    segments_build(root, "k1", lambda _: Joined([segment([b"HEAD\n"]), segment([b"one\n"])]))

    def failing() -> Iterator[Segment]:
        yield segment([b"HEAD\n"])
        raise ValueError("a chunk failed")

    output = Output(root)
    with pytest.raises(ValueError, match="a chunk failed"):
        output.put("all.ics", "k2", lambda: Joined(failing()))

    assert (root / "all.ics").read_bytes() == b"HEAD\none\n"
    assert sorted(p.name for p in root.iterdir()) == ["all.ics"]


def test_a_span_the_kernel_cannot_copy_is_copied_through_the_process(tmp_path: Path) -> None:
    # copy_file_range(2) copies between regular files only: into a pipe it fails with EINVAL.
    source = tmp_path / "last.ics"
    source.write_bytes(b"HEAD\none\ntwo\nEND\n")
    read, write = os.pipe()
    with open(source, "rb") as found, open(read, "rb") as out:
        try:
            copy_range(found.fileno(), write, 5, 13)
        finally:
            os.close(write)

        copied = out.read()

    assert copied == b"one\ntwo\n"


def test_the_last_joined_file_is_no_source_once_changed_since(tmp_path: Path) -> None:
    root = tmp_path / "site"
    segments_build(root, "k1", lambda _: Joined([segment([b"HEAD\n"]), segment([b"one\n"])]))
    written = (root / "all.ics").stat()
    (root / "all.ics").write_bytes(b"HEAD\nTWO\n")  # the same size
    os.utime(root / "all.ics", ns=(written.st_atime_ns, written.st_mtime_ns + 1_000_000))

    found = Output(root).source("all.ics")

    assert found is None


def test_a_file_written_whole_is_no_source_for_spans(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieces_build(root, "k1", [b"<schedule>", b"one", b"</schedule>"])

    found = Output(root).source("schedule.xml")

    assert found is None


def pieced_build(root: Path, key: str, calls: list[bytes]) -> Output:
    """One build of `schedule.xml` joined from a head, the kept part `day1` and a tail."""
    output = Output(root)
    day = output.piece("day1", lambda: made(calls, b"<day>one</day>"))  # before: pieces come lazily
    output.put("schedule.xml", key, lambda: Joined(iter([segment([b"<schedule>"]), day, segment([b"</schedule>"])])))
    output.finish(())
    return output


def test_a_kept_piece_is_taken_from_the_file_it_was_joined_into_as_a_span_instead_of_made(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieced_build(root, "k1", [])
    calls: list[bytes] = []

    second = Output(root)
    found = second.piece("day1", lambda: made(calls, b"never made"))

    assert calls == []
    assert found == Span(str(root / "schedule.xml"), 10, 24, sha(b"<day>one</day>"), "day1")


def test_a_piece_is_kept_in_its_file_and_not_in_a_part_of_its_own(tmp_path: Path) -> None:
    pieced_build(tmp_path / "site", "k1", [])

    parts = tmp_path / ".site.confcal-build.parts"

    assert not (parts / "day1").exists()


def test_a_piece_asked_for_as_bytes_is_read_from_the_file_holding_it(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieced_build(root, "k1", [])
    calls: list[bytes] = []

    found = Output(root).part("day1", lambda: made(calls, b"never made"))

    assert (found, calls) == (b"<day>one</day>", [])


def test_a_piece_kept_as_a_part_of_its_own_moves_into_the_file_joined_from_it(tmp_path: Path) -> None:
    root = tmp_path / "site"
    first = Output(root)
    first.part("day1", lambda: b"<day>one</day>")
    first.finish(())
    part = tmp_path / ".site.confcal-build.parts" / "day1"
    calls: list[bytes] = []

    pieced_build(root, "k1", calls)

    assert calls == []
    assert (root / "schedule.xml").read_bytes() == b"<schedule><day>one</day></schedule>"
    assert not part.exists()
    assert Output(root).piece("day1", bytes) == Span(str(root / "schedule.xml"), 10, 24, sha(b"<day>one</day>"), "day1")


def test_a_piece_is_taken_from_its_file_as_this_build_rewrote_it(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieced_build(root, "k1", [])
    output = Output(root)
    day = output.piece("day1", bytes)
    output.put("schedule.xml", "k2", lambda: Joined(iter([segment([b"<schedule version='2'>"]), day])))

    found = output.piece("day1", bytes)

    assert found == Span(str(root / "schedule.xml"), 22, 36, sha(b"<day>one</day>"), "day1")


def test_a_piece_whose_file_this_build_rewrote_without_it_is_made_again(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieced_build(root, "k1", [])
    output = Output(root)
    output.put("schedule.xml", "k2", lambda: Joined(iter([segment([b"<schedule/>"])])))
    calls: list[bytes] = []

    found = output.piece("day1", lambda: made(calls, b"<day>one</day>"))

    assert calls == [b"<day>one</day>"]
    assert found == segment([b"<day>one</day>"], "day1")


def cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-1])


def altered_to_the_same_length(path: Path) -> None:
    written = path.stat()
    path.write_bytes(b"x" * written.st_size)
    # Altered later than the build wrote it (not within the clock's step).
    os.utime(path, ns=(written.st_atime_ns, written.st_mtime_ns + 1_000_000))


@pytest.mark.parametrize("damage", [cut_short, altered_to_the_same_length])
def test_a_piece_in_a_file_damaged_on_disk_is_made_again(tmp_path: Path, damage: Callable[[Path], None]) -> None:
    root = tmp_path / "site"
    pieced_build(root, "k1", [])
    damage(root / "schedule.xml")
    calls: list[bytes] = []

    pieced_build(root, "k2", calls)

    assert calls == [b"<day>one</day>"]


@pytest.mark.parametrize("damage", [cut_short, altered_to_the_same_length])
def test_a_piece_in_a_file_damaged_on_disk_is_not_read_back_as_bytes(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    root = tmp_path / "site"
    pieced_build(root, "k1", [])
    damage(root / "schedule.xml")
    calls: list[bytes] = []

    found = Output(root).part("day1", lambda: made(calls, b"<day>one</day>"))

    assert (found, calls) == (b"<day>one</day>", [b"<day>one</day>"])


def twin_build(root: Path, key: str, body: bytes) -> Output:
    """One build of `api/sessions` from `body` and its `.json` twin."""
    output = Output(root)
    output.put("api/sessions", key, lambda: body)
    output.put("api/sessions.json", key, lambda: Twin("api/sessions"))
    output.finish(())
    return output


def test_a_twin_is_a_hard_link_to_its_source(tmp_path: Path) -> None:
    root = tmp_path / "site"

    twin_build(root, "k1", b'{"sessions":[1]}')

    assert (root / "api" / "sessions.json").samefile(root / "api" / "sessions")
    assert recorded(root)["api/sessions.json"] == ["k1", body_digest(b'{"sessions":[1]}')]


def test_a_twin_follows_its_source_when_the_source_changes(tmp_path: Path) -> None:
    root = tmp_path / "site"
    twin_build(root, "k1", b'{"sessions":[1]}')

    second = twin_build(root, "k2", b'{"sessions":[2]}')

    assert (root / "api" / "sessions.json").samefile(root / "api" / "sessions")
    assert (root / "api" / "sessions.json").read_bytes() == b'{"sessions":[2]}'
    assert second.written == ["api/sessions", "api/sessions.json"]


def test_a_twin_with_its_sources_bytes_is_not_written_again(tmp_path: Path) -> None:
    root = tmp_path / "site"
    twin_build(root, "k1", b'{"sessions":[1]}')
    before = (root / "api" / "sessions.json").stat()

    second = twin_build(root, "k2", b'{"sessions":[1]}')

    after = (root / "api" / "sessions.json").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert second.written == []


def unread_build(root: Path, pieces: Callable[[str | None], list[bytes | Span]]) -> str | None:
    """One build renewing the part `events` unread from `pieces(the last build's part, if taken)`;
    the part it took."""
    output = Output(root)
    last = output.kept_unread("events")
    output.renew_unread("events", pieces(last))
    output.finish(())
    return last


def test_a_part_renewed_unread_is_taken_by_its_path_and_copied_from(tmp_path: Path) -> None:
    root, part = tmp_path / "site", tmp_path / ".site.confcal-build.parts" / "events"
    unread_build(root, lambda last: [b"<day>one</day>", b"<day>two</day>"])

    taken = unread_build(root, lambda last: [Span(last or "", 0, 14, ""), b"<day>three</day>"])

    assert taken == str(part)
    assert part.read_bytes() == b"<day>one</day><day>three</day>"
    assert Output(root).kept_unread("events") == str(part)


def test_a_part_renewed_unread_is_never_taken_as_checked_bytes(tmp_path: Path) -> None:
    root = tmp_path / "site"
    unread_build(root, lambda last: [b"<day>one</day>"])

    found = Output(root).kept("events")

    assert found is None


@pytest.mark.parametrize("damage", [cut_short, altered_to_the_same_length])
def test_a_part_renewed_unread_is_not_taken_once_damaged_on_disk(
    tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    root = tmp_path / "site"
    unread_build(root, lambda last: [b"<day>one</day>"])
    damage(tmp_path / ".site.confcal-build.parts" / "events")

    found = Output(root).kept_unread("events")

    assert found is None


def test_a_file_joined_from_kept_pieces_is_the_same_bytes_under_a_new_key_and_not_rewritten(tmp_path: Path) -> None:
    root = tmp_path / "site"
    pieced_build(root, "k1", [])
    before = (root / "schedule.xml").stat()

    second = pieced_build(root, "k2", [])

    after = (root / "schedule.xml").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert (root / "schedule.xml").read_bytes() == b"<schedule><day>one</day></schedule>"
    assert second.written == []


def test_the_parts_a_file_in_pieces_asks_for_as_it_is_written_are_kept_for_it(tmp_path: Path) -> None:
    root = tmp_path / "site"

    def build(key: str, calls: list[bytes]) -> None:
        output = Output(root)

        def pieces() -> Iterator[bytes]:
            yield b"<main>"
            yield output.part("k1", lambda: made(calls, b"one"))
            yield b"</main>"

        output.put("page", key, pieces)
        output.finish(())

    build("v1", [])
    build("v1", [])  # nothing changed: the page is skipped and uses no part
    calls: list[bytes] = []

    build("v2", calls)

    assert (root / "page").read_bytes() == b"<main>one</main>"
    assert calls == []


def test_a_twin_of_a_file_written_anew_where_no_record_was_kept_holds_the_new_bytes(tmp_path: Path) -> None:
    # Without a record the twin is compared with its source on disk, which must then be the new one.
    root = tmp_path / "site"
    (root / "api").mkdir(parents=True)
    (root / "api" / "sessions").write_bytes(b"[]")
    (root / "api" / "sessions.json").hardlink_to(root / "api" / "sessions")
    output = Output(root)

    output.put("api/sessions", "k1", lambda: b'["s1"]')
    output.put("api/sessions.json", "k2", partial(Twin, "api/sessions"))
    output.finish(())

    assert (root / "api" / "sessions.json").read_bytes() == b'["s1"]'
