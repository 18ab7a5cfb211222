"""Files of a build made by forked workers (`Workers`): written and recorded as if made here."""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from server.site.build_keys import body_digest
from server.site.build_workers import WAITING, WorkerFailed, Workers
from tests.helpers.build_inspection import PathsOutput, recorded

FIRST = 64  # the pending files worth a fork in these tests: a build's thousands take seconds
COUNT = 3 * FIRST  # enough files for several workers' batches


def made_by_pid(number: int) -> Callable[[], bytes]:
    return lambda: f"{number} {os.getpid()}".encode()


def noted(number: int, made: list[int]) -> Callable[[], bytes]:
    """`made_by_pid`, appending `number` to `made` when made: in this process's list only when
    made here (a worker appends to its own copy)."""

    def make() -> bytes:
        made.append(number)
        return made_by_pid(number)()

    return make


# Whatever this test process's size: only the test of the bound forks by it.
ANY_SIZE = 1 << 50


def build(
    root: Path, jobs: int, make: Callable[[int], Callable[[], bytes]] = made_by_pid, fork_below: int = ANY_SIZE
) -> PathsOutput:
    output = PathsOutput(root)
    workers = Workers(output, jobs, fork_below, FIRST)
    try:
        for number in range(COUNT):
            workers.put(f"f/{number}.txt", f"key {number}", make(number), shared=True)
        workers.finish()
    finally:
        workers.stop()
    output.finish(())
    return output


def pids(root: Path) -> set[int]:
    return {int(path.read_text().split()[1]) for path in (root / "f").iterdir()}


def test_two_jobs_make_files_in_another_process(tmp_path: Path) -> None:
    build(tmp_path / "site", jobs=2)

    assert pids(tmp_path / "site") - {os.getpid()} != set()


def test_a_process_as_large_as_its_bound_forks_no_worker_and_makes_every_file_here(tmp_path: Path) -> None:
    output = build(tmp_path / "site", jobs=2, fork_below=0)

    assert pids(tmp_path / "site") == {os.getpid()}
    assert sorted(recorded(tmp_path / "site")) == sorted(f"f/{n}.txt" for n in range(COUNT))
    assert len(output.changed) == COUNT


def test_one_job_makes_every_file_here(tmp_path: Path) -> None:
    build(tmp_path / "site", jobs=1)

    assert pids(tmp_path / "site") == {os.getpid()}


def test_files_a_worker_made_are_in_the_record_and_among_the_files_written(tmp_path: Path) -> None:
    root = tmp_path / "site"

    output = build(root, jobs=2)

    record = recorded(root)
    names = [f"f/{n}.txt" for n in range(COUNT)]
    assert record == {name: [f"key {name[2:-4]}", body_digest((root / name).read_bytes())] for name in names}
    assert sorted(output.changed) == sorted(root / name for name in names)


def test_files_whose_key_the_record_knows_are_not_made_again(tmp_path: Path) -> None:
    build(tmp_path / "site", jobs=2)

    def never(number: int) -> Callable[[], bytes]:
        def make() -> bytes:
            raise AssertionError(f"file {number} made again")

        return make

    output = build(tmp_path / "site", jobs=2, make=never)

    assert output.changed == []


def test_a_worker_links_the_files_it_made_and_the_record_names_their_sources(tmp_path: Path) -> None:
    root = tmp_path / "site"
    output = PathsOutput(root)
    workers = Workers(output, 2, ANY_SIZE, FIRST)
    for number in range(COUNT):
        workers.put(f"c/x/f/{number}.txt", f"key {number}", made_by_pid(number), f"f/{number}.txt", shared=True)
    workers.finish()
    output.finish(())

    assert pids(root) - {os.getpid()} != set()
    assert all((root / "f" / f"{n}.txt").samefile(root / "c" / "x" / "f" / f"{n}.txt") for n in range(COUNT))
    assert sorted(recorded(root)) == sorted(f"c/x/f/{n}.txt" for n in range(COUNT))  # the links are implied
    assert len(output.changed) == 2 * COUNT


def test_a_file_failing_in_a_worker_fails_the_build_naming_it(tmp_path: Path) -> None:
    def failing(number: int) -> Callable[[], bytes]:
        if number != 10:  # in the first batch, which goes to a worker
            return made_by_pid(number)

        def make() -> bytes:
            raise ValueError("no such room")

        return make

    with pytest.raises(WorkerFailed, match=r"^confcal build: a worker failed: f/10.txt: ValueError: no such room$"):
        build(tmp_path / "site", jobs=2, make=failing)

    assert not (tmp_path / ".site.confcal-build.sqlite").exists()


def test_only_the_workers_freeze_what_they_inherited(tmp_path: Path) -> None:
    # Frozen objects are never collected: a snapshot frozen in the build's process for a fork
    # would stay to the end of a build of many conferences.
    def freeze_count(number: int) -> Callable[[], bytes]:
        return lambda: f"{number} {os.getpid()} {gc.get_freeze_count()}".encode()

    build(tmp_path / "site", jobs=2, make=freeze_count)

    made = [path.read_text().split() for path in (tmp_path / "site" / "f").iterdir()]
    here = {int(count) for _, pid, count in made if int(pid) == os.getpid()}
    in_workers = {int(count) > 0 for _, pid, count in made if int(pid) != os.getpid()}
    assert (here, in_workers, gc.get_freeze_count()) == ({0}, {True}, 0)


def test_a_process_too_large_to_fork_makes_each_file_as_it_is_given(tmp_path: Path) -> None:
    # A file left waiting for a worker that is never forked would hold what it is made from (a
    # conference's snapshot) to the end of a build of many conferences.
    output = PathsOutput(tmp_path / "site")
    workers = Workers(output, 2, fork_below=0, first=FIRST)
    made: list[int] = []
    after_each = []
    for number in range(COUNT):
        workers.put(f"f/{number}.txt", f"key {number}", noted(number, made), shared=True)
        after_each.append(list(made))
    workers.finish()
    output.finish(())

    assert after_each == [list(range(number + 1)) for number in range(COUNT)]


def test_files_beyond_those_that_may_wait_for_a_busy_worker_are_made_here_oldest_first(tmp_path: Path) -> None:
    root, go = tmp_path / "site", tmp_path / "go"

    def held_until_go(number: int) -> Callable[[], bytes]:
        def make() -> bytes:
            while not go.exists():  # the worker's first batch: it stays busy while this process puts the rest
                time.sleep(0.01)
            return made_by_pid(number)()

        return make

    output = PathsOutput(root)
    workers = Workers(output, 2, ANY_SIZE, FIRST)
    made: list[int] = []
    try:
        for number in range(FIRST):
            workers.put(f"f/{number}.txt", f"key {number}", held_until_go(number), shared=True)
        workers.put("own.txt", "own", lambda: b"own", shared=False)  # the run ends: a worker takes it
        for number in range(FIRST, FIRST + WAITING + 10):
            workers.put(f"f/{number}.txt", f"key {number}", noted(number, made), shared=True)
        made_here = list(made)
        go.touch()
        workers.finish()
    finally:
        workers.stop()
    output.finish(())

    assert made_here == list(range(FIRST, FIRST + 10))
    assert len(recorded(root)) == FIRST + WAITING + 11


def run_then_own(root: Path, count: int) -> set[int]:
    """The processes that made a run of `count` files put before a file of the build's own."""
    output = PathsOutput(root)
    workers = Workers(output, 2, ANY_SIZE, FIRST)
    try:
        for number in range(count):
            workers.put(f"f/{number}.txt", f"key {number}", made_by_pid(number), shared=True)
        workers.put("own.txt", "own", made_by_pid(-1), shared=False)
        workers.finish()
    finally:
        workers.stop()
    output.finish(())
    return pids(root)


def test_a_run_of_files_goes_to_one_worker_when_it_ends(tmp_path: Path) -> None:
    # Each fork costs its copy-on-write faults whatever its batch: forking as the run grows
    # would give its first files to one worker and the rest to others.
    made_in = run_then_own(tmp_path / "site", COUNT)

    assert (len(made_in), made_in == {os.getpid()}) == (1, False)


def test_a_run_shorter_than_a_fork_is_worth_is_made_here(tmp_path: Path) -> None:
    made_in = run_then_own(tmp_path / "site", FIRST - 1)

    assert made_in == {os.getpid()}
