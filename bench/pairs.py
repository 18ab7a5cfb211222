"""Two versions of confcal timed on one command, in pairs whose order alternates (ABBA).

    python bench/pairs.py --pairs 8 OLD NEW -- build --db /tmp/10k.db {out}
    python bench/pairs.py --pairs 8 OLD NEW \\
        --before "ingest --db /tmp/{label}.db --tz Europe/Paris {alternate}" \\
        --alternate /tmp/p10k_m --alternate /tmp/p10k \\
        -- build --db /tmp/{label}.db /dev/shm/rebuild-{label}

OLD and NEW are source trees (a `git archive` of each commit), compiled first; each command
runs as `python -m server.cli ARGS` with the tree as its working directory and import path.
In ARGS and `--before`: {out} is a new directory in tmpfs, removed before each run with the
record a build keeps beside it (a build beside the last one's record is not a first build: it
reads the parts it can, and which it can depends on the version); {label} is `a` (OLD) or `b`
(NEW), for a store or site of each version's own; {alternate} goes through the `--alternate`
values in turn, one a run of that version (a session moved back and forth). A `--before`
command runs untimed before each timed one.

    python bench/pairs.py --instructions OLD NEW -- build --jobs 1 --db /tmp/1k.db {out}

counts the instructions each version's command runs instead (valgrind's cachegrind, with
string hashing fixed by PYTHONHASHSEED; one process: a forked worker's count starts from its
parent's at the fork, which cachegrind copies with the rest, so a command that forks is
refused and a build is counted with `--jobs 1`): the same to four digits from one
run to the next, so a change of a percent shows, which CPU time on a shared machine cannot show
(the same build's CPU time moved by a sixth within minutes). It leaves out what the CPU does
besides (cache misses, page faults, the kernel's share), so it says whether a change does less
work, and the timed pairs whether that is less time. Each version runs once untimed first:
Jinja compiles a tree's templates on first use.

Timed pairs alternate their order (ABBA), so each version runs first in half of them, and the
medians of the first and second runs of a pair are printed beside the figures: a machine that
drifts, or a run that leaves something for the next, then shows instead of favouring one version.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from run import remove_site  # bench/, beside this script

TMPFS = Path("/dev/shm")
R = TypeVar("R")


@dataclass(frozen=True)
class Timed:
    label: str  # "a" or "b"
    pair: int
    first: bool  # whether it ran first in its pair
    cpu: float  # user + system, its workers' included (wait4)
    wall: float


def compile_tree(tree: Path) -> None:
    """Its bytecode, as `pip install` leaves it: no timed run pays for compiling."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "feeds", "server"], cwd=tree, check=True, stdout=subprocess.DEVNULL
    )


def environment(tree: Path) -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**kept, "PYTHONPATH": str(tree)}


def counted(tree: Path, args: list[str]) -> int:
    """The instructions `python -m server.cli ARGS` runs in `tree`, in one process."""
    process = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        + [sys.executable, "-m", "server.cli", *args],
        cwd=tree,
        env={**environment(tree), "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
    )
    if process.returncode != 0:
        raise SystemExit(f"{tree}: confcal {' '.join(args)} failed under valgrind:\n{process.stderr[-2000:]}")
    # One "I refs" line a process. A forked one's counts begin as a copy of its parent's at the
    # fork, so the sum would count the parent's work up to each fork again.
    found = re.findall(r"I\s+refs:\s+([\d,]+)", process.stderr)
    if len(found) != 1:
        raise SystemExit(f"confcal {' '.join(args)} ran {len(found)} processes: count it in one (--jobs 1)")
    return int(found[0].replace(",", ""))


def count_both(trees: dict[str, Path], command: list[str], before: list[str] | None, alternates: list[str]) -> str:
    """Each version's command once untimed, then counted (`counted`), the next `--alternate`
    for each (a rebuild counted after a move, not after nothing): the two counts and their ratio."""
    first, second = (alternates * 2)[:2] if alternates else ("", "")
    counts: dict[str, int] = {}
    for label, tree in trees.items():
        run_once(tree, label, first, command, before, confcal)
        counts[label] = run_once(tree, label, second, command, before, counted)
    return f"instructions: A {counts['a'] / 1e9:.4f} G, B {counts['b'] / 1e9:.4f} G ({counts['b'] / counts['a']:.4f}x)"


def run_once(
    tree: Path,
    label: str,
    alternate: str,
    command: list[str],
    before: list[str] | None,
    run: Callable[[Path, list[str]], R],
) -> R:
    """`command` run by `run` in `tree` after `before` (untimed), from a fresh {out}."""
    out = TMPFS / f"confcal-pairs-{os.getpid()}-{label}"
    remove_site(out)
    try:
        if before:
            confcal(tree, filled(before, label, out, alternate))
        return run(tree, filled(command, label, out, alternate))
    finally:
        remove_site(out)


def confcal(tree: Path, args: list[str]) -> tuple[float, float]:
    """`python -m server.cli ARGS` run in `tree`: (CPU, wall) seconds; exits if it fails."""
    os.sync()  # the last run's writeback is not this one's
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", *args],
        cwd=tree,
        env=environment(tree),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{tree}: confcal {' '.join(args)} failed:\n{output.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, wall


def filled(template: list[str], label: str, out: Path, alternate: str) -> list[str]:
    return [word.format(label=label, out=out, alternate=alternate) for word in template]


def run_pairs(
    trees: dict[str, Path], pairs: int, command: list[str], before: list[str] | None, alternates: list[str]
) -> list[Timed]:
    turns = {label: 0 for label in trees}
    timed: list[Timed] = []
    for pair in range(pairs):
        order = ["a", "b"] if pair % 2 == 0 else ["b", "a"]
        for position, label in enumerate(order):
            alternate = alternates[turns[label] % len(alternates)] if alternates else ""
            turns[label] += 1
            cpu, wall = run_once(trees[label], label, alternate, command, before, confcal)
            timed.append(Timed(label, pair, position == 0, cpu, wall))
            print(
                f"pair {pair + 1} {label} {'first ' if position == 0 else 'second'} cpu {cpu:.3f} s wall {wall:.3f} s"
            )
    return timed


def summary(timed: list[Timed]) -> str:
    """Medians of each version, in how many pairs B came out lower, and the position effect."""
    lines = []
    for figure in ("cpu", "wall"):
        a = [getattr(t, figure) for t in timed if t.label == "a"]
        b = [getattr(t, figure) for t in timed if t.label == "b"]
        lower = sum(getattr(y, figure) < getattr(x, figure) for x, y in _paired(timed))
        lines.append(
            f"{figure}: A median {statistics.median(a):.3f} s, B median {statistics.median(b):.3f} s "
            f"({statistics.median(b) / statistics.median(a):.3f}x); B lower in {lower} of {len(a)} pairs"
        )
    first = statistics.median(t.cpu for t in timed if t.first)
    second = statistics.median(t.cpu for t in timed if not t.first)
    lines.append(f"position: the first run of a pair median {first:.3f} s of CPU, the second {second:.3f} s")
    return "\n".join(lines)


def _paired(timed: list[Timed]) -> list[tuple[Timed, Timed]]:
    by_pair: dict[int, dict[str, Timed]] = {}
    for t in timed:
        by_pair.setdefault(t.pair, {})[t.label] = t
    return [(runs["a"], runs["b"]) for runs in by_pair.values() if len(runs) == 2]


def main() -> None:
    parser = argparse.ArgumentParser(
        usage="%(prog)s [options] A B -- CONFCAL-ARGS",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("a", type=Path, help="the source tree of version A (the one before)")
    parser.add_argument("b", type=Path, help="the source tree of version B")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--before", help="confcal arguments run untimed before each timed run")
    parser.add_argument("--alternate", action="append", default=[], help="a value of {alternate}, in turn")
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind), once each")
    # The command is what follows "--", split off first: argparse's REMAINDER would take every
    # option given after the two trees as the command's.
    argv = sys.argv[1:]
    at = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:at])
    command = argv[at + 1 :]
    if not command:
        parser.error("no command: give the confcal arguments after --")
    trees = {"a": args.a.resolve(), "b": args.b.resolve()}
    for tree in trees.values():
        compile_tree(tree)
    before = args.before.split() if args.before else None
    if args.instructions:
        print(count_both(trees, command, before, args.alternate))
        return
    timed = run_pairs(trees, args.pairs, command, before, args.alternate)
    print(summary(timed))


if __name__ == "__main__":
    main()
