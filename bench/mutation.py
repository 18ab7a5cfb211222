"""Mutation testing of the modules that carry confcal's promises, with mutmut (3.x).

    python bench/mutation.py                 # every module below
    python bench/mutation.py zones caldav    # some of them
    python bench/mutation.py --list          # the modules and their test subsets

Not part of the README's test command: a run takes from minutes (zones) to well over an hour
(caldav, which drives real Radicale and Xandikos) on two cores. Each module is mutated in its own
scratch copy of the working tree (default /tmp/confcal-mutation/<module>, `--workdir` to move it),
so the checkout is never touched and a later run resumes from mutmut's cache in that copy. Only the
module's own test subset runs against its mutants, and mutmut runs only the tests that reach the
mutated function.

The last lines print killed / survived / other per module and `mutmut results` lists survivors;
`cd WORKDIR/<module> && mutmut show NAME` shows one. A survivor must be killed by a test or
explained in a comment next to the code as an equivalent mutant (see bench/MUTATION.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    mutate: tuple[str, ...]  # glob patterns of the files to mutate
    tests: tuple[str, ...]  # the pytest selection that guards them
    options: tuple[str, ...] = ()  # more pytest options for this module


TARGETS = {
    "zones": Target(("feeds/zones.py",), ("tests/feeds/test_zones.py",)),
    "ical": Target(("feeds/ical/*.py",), ("tests/feeds/ical",)),
    "conditional": Target(
        ("server/snapshot/conditional.py",),
        ("tests/server/app/test_conditional.py", "tests/server/app/test_http_caching.py"),
    ),
    "caldav": Target(("server/caldav/*.py",), ("tests/server/caldav",)),
    # The sync core without the wire: its mutants against the in-memory twin only, which takes
    # minutes where "caldav" (every mutant restarts Radicale, Xandikos and DAViCal) takes hours.
    # execute.py has its own target ("caldav-execute", run with the real servers too).
    "caldav-core": Target(
        tuple(f"server/caldav/{m}.py" for m in ("plan", "rows", "content", "storage", "retry", "sync")),
        (
            "tests/server/caldav/test_caldav_plan.py",
            "tests/server/caldav/test_caldav_content.py",
            "tests/server/caldav/test_caldav_retry.py",
            "tests/server/caldav/test_caldav_sync.py",
            "tests/server/caldav/test_caldav_conflicts.py",
            "tests/server/caldav/test_caldav_crash.py",
            "tests/server/caldav/test_caldav_machine.py",
        ),
        ("-k", "not radicale and not xandikos and not davical and not real_server"),
    ),
    # The in-memory twin against the storage contract (the twin's half of it) and the twin-only
    # sync tests: the twin must refuse exactly where a real server does, or those tests lie.
    "caldav-memory": Target(
        ("server/caldav/memory.py",),
        tuple(
            f"tests/server/caldav/{t}.py"
            for t in (
                "test_storage_contract",
                "test_memory",
                "test_caldav_plan",
                "test_caldav_sync",
                "test_caldav_conflicts",
                "test_caldav_crash",
                "test_caldav_machine",
            )
        ),
        ("-k", "not radicale and not xandikos and not davical and not real_server"),
    ),
    # One module at a time against every CalDAV test but DAViCal's (each DAViCal test starts a
    # PostgreSQL and an Apache): the real-server tests reach the wire code the twin cannot.
    **{
        f"caldav-{m}": Target((f"server/caldav/{m}.py",), ("tests/server/caldav",), ("-k", "not davical"))
        for m in ("execute", "plan", "dav", "storage", "service", "events", "lock", "state")
    },
    # dav.py against the tests that drive its every request on real Radicale and Xandikos: the
    # wire tests, the storage contract, the conflict paths, the service (login, URL checks) and
    # the crash and retry tests. "caldav-dav" (the whole CalDAV suite per mutant) takes hours.
    "caldav-dav-wire": Target(
        ("server/caldav/dav.py",),
        tuple(
            f"tests/server/caldav/{t}.py"
            for t in (
                "test_dav_wire",
                "test_storage_contract",
                "test_caldav_conflicts",
                "test_service",
                "test_caldav_crash",
            )
        ),
        ("-k", "not davical"),
    ),
    # The service, the lease, the state table and the event selection against the tests that
    # call them directly (SQLite only for the lease and state: PostgreSQL would start a cluster
    # per mutant), minutes per module where the whole CalDAV suite takes hours.
    "caldav-service-wire": Target(
        ("server/caldav/service.py",),
        (
            "tests/server/caldav/test_service.py",
            "tests/server/caldav/test_service_edges.py",
            "tests/server/caldav/test_caldav_push_command.py",
        ),
        ("-k", "not davical"),
    ),
    "caldav-events-wire": Target(
        ("server/caldav/events.py",),
        ("tests/server/caldav/test_events.py", "tests/server/caldav/test_caldav_sync.py"),
        ("-k", "not davical"),
    ),
    "caldav-lock-wire": Target(
        ("server/caldav/lock.py",),
        (
            "tests/server/caldav/test_lock.py",
            "tests/server/caldav/test_lease_edges.py",
            "tests/server/caldav/test_service_edges.py",
        ),
        ("-k", "not davical and not postgresql"),
    ),
    "caldav-target-wire": Target(
        ("server/caldav/target.py",),
        ("tests/server/caldav/test_target.py", "tests/server/caldav/test_service_edges.py"),
        ("-k", "not davical and not postgresql"),
    ),
    "caldav-state-wire": Target(
        ("server/caldav/state.py",),
        (
            "tests/server/caldav/test_state.py",
            "tests/server/caldav/test_lock.py",
            "tests/server/caldav/test_lease_edges.py",
            "tests/server/caldav/test_caldav_sync.py",
            "tests/server/caldav/test_caldav_conflicts.py",
        ),
        ("-k", "not davical and not postgresql and not radicale and not xandikos"),
    ),
    "diff": Target(
        ("server/store/diff.py",),
        ("tests/server/store/test_diff.py", "tests/server/store/test_store.py"),
        # The diff is pure; PostgreSQL would only start a cluster for every mutant.
        ("-k", "not postgresql"),
    ),
    "outbound": Target(("feeds/outbound/*.py",), ("tests/feeds/outbound",)),
}


def scratch_copy(workdir: Path) -> None:
    """The working tree's tracked and new files (not ignored ones) into workdir; mutmut's own
    `mutants/` cache there is kept so a rerun only tests what changed."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in files:
        if not raw:
            continue
        rel = raw.decode()
        source = ROOT / rel
        if not source.is_file():
            continue
        target = workdir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copy2(source, target)


def shared_dir() -> Path:
    """../shared beside the checkout, or beside the main checkout when this is a git worktree."""
    common = subprocess.run(
        ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    candidates = [ROOT.parent / "shared", Path(common).parent.parent / "shared"]
    return next((c for c in candidates if c.is_dir()), candidates[0])


# Loaded into every test run of a mutant: mutmut forks each mutant's run from a process whose clean
# run already filled the lru_caches (feeds.ical's VTIMEZONE bytes among them), so a mutant
# under a cached function would never run and would "survive". Each test starts with them empty.
PLUGIN = '''"""Empties every functools cache of feeds and server before each test (bench/mutation.py)."""
import sys

import pytest


@pytest.fixture(autouse=True)
def _empty_caches():
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in ("feeds", "server", "mutants"):
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()
    yield
'''


def setup_cfg(target: Target) -> str:
    def listed(values: tuple[str, ...] | list[str]) -> str:
        return "".join(f"\n    {v}" for v in values)

    return (
        "[mutmut]\n"
        f"source_paths ={listed(['feeds', 'server'])}\n"
        f"only_mutate ={listed(target.mutate)}\n"
        f"pytest_add_cli_args_test_selection ={listed(target.tests)}\n"
        "pytest_add_cli_args ="
        f"{listed(['-p', 'no:cacheprovider', '-p', 'mutation_caches', '-x', *target.options])}\n"
    )


def run(
    name: str, target: Target, workdir: Path, jobs: int, minutes: float | None, only: tuple[str, ...] = ()
) -> dict[str, int]:
    here = workdir / name
    here.mkdir(parents=True, exist_ok=True)
    scratch_copy(here)
    # The tests find the real schedules in ../shared from the root they run in: mutmut runs them
    # in here/mutants, so here/shared.
    link = here / "shared"
    if not link.exists():
        link.symlink_to(shared_dir(), target_is_directory=True)
    (here / "setup.cfg").write_text(setup_cfg(target))
    plugins = here / "plugins"
    plugins.mkdir(exist_ok=True)
    (plugins / "mutation_caches.py").write_text(PLUGIN)
    env = dict(os.environ)
    # mutmut puts its mutants/ first on sys.path; a PYTHONPATH pointing at a checkout would
    # let the tests import the unmutated code and every mutant would "survive". Only the
    # plugin's own folder goes on it.
    env["PYTHONPATH"] = str(plugins)
    # Its own session, so a time budget can stop mutmut and every test server it started.
    process = subprocess.Popen(
        ["mutmut", "run", "--max-children", str(jobs), *only],
        cwd=here,
        env=env,
        start_new_session=True,
    )
    try:
        process.wait(timeout=None if minutes is None else minutes * 60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
        print(f"--- {name}: stopped after {minutes} minutes; the figures are partial")
    subprocess.run(["mutmut", "export-cicd-stats"], cwd=here, env=env, check=True)
    stats: dict[str, int] = json.loads((here / "mutants" / "mutmut-cicd-stats.json").read_text())
    survivors = subprocess.run(["mutmut", "results"], cwd=here, env=env, capture_output=True, text=True).stdout
    print(f"--- {name}: survivors\n{survivors}", flush=True)
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", choices=[[], *TARGETS], default=[])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/confcal-mutation"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--minutes", type=float, help="stop each module after this long (partial figures)")
    parser.add_argument(
        "--only",
        type=Path,
        help="a file of mutant names (or globs), one a line: run (again) only those, e.g. the survivors "
        "of an earlier run in a fresh --workdir after tests were added; the other mutants stay 'not run'",
    )
    parser.add_argument(
        "--tests",
        nargs="+",
        help="run the mutants against these test files instead of the module's own subset "
        "(e.g. the subset as it was, for a 'before' figure)",
    )
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    if args.list:
        for name, target in TARGETS.items():
            print(f"{name}: {' '.join(target.mutate)} <- {' '.join(target.tests)}")
        return
    chosen = args.modules or [name for name, t in TARGETS.items() if list(ROOT.glob(t.mutate[0]))]
    totals = {}
    for name in chosen:
        only = tuple(args.only.read_text().split()) if args.only else ()
        target = TARGETS[name]
        if args.tests:
            target = Target(target.mutate, tuple(args.tests), target.options)
        totals[name] = run(name, target, args.workdir, args.jobs, args.minutes, only)
    print("module        killed  survived  no-tests  timeout  not-run  total")
    for name, s in totals.items():
        done = s["killed"] + s["survived"] + s["no_tests"] + s["timeout"] + s["suspicious"]
        print(
            f"{name:<13} {s['killed']:>6} {s['survived']:>9} {s['no_tests']:>9} "
            f"{s['timeout']:>8} {s['total'] - done:>8} {s['total']:>6}"
        )
    sys.exit(0)


if __name__ == "__main__":
    main()
