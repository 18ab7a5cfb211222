"""Benchmark: kill -9 a `confcal push` mid-run, N times per CalDAV server, and see what the next
push finds (issue 29).

    python bench/caldav_kill_trials.py [--trials 20] [--servers radicale,xandikos,davical,sabre,cyrus,sogo]

Each trial (tests/helpers/kill_trial.py): a fresh calendar and store; a push of 6 sessions killed
by the proxy right after the server stored its n-th PUT (n = 1..6 in turn); then a push allowed
to wait 5 s for the calendar. Per server it prints the duplicates and missing events found after
the second push, how many second pushes had to wait for the dead run's lease, the seconds from
starting the second push to its first request to the server (process start and the lease
included: when the next run started its work) and to its end. Expected: 0 duplicates, 0
missing, 0 waits, every next run at the server within 5 s.

The servers start here and stop at the end: Radicale and Xandikos as processes of this Python,
DAViCal (Debian's package, its own PostgreSQL), sabre/dav, Cyrus and SOGo from
../shared/caldav-servers (root needed, as in the tests).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import shared_caldav  # noqa: E402
from tests.helpers.dav_proxy import DavProxy  # noqa: E402
from tests.helpers.kill_trial import SESSIONS, Trial, kill_trial  # noqa: E402
from tests.helpers.push_helpers import PASSWORD, USER, DavServer  # noqa: E402

LOCAL = ("radicale", "xandikos", "davical")
SHARED = ("sabre", "cyrus", "sogo")


def trials_on(kind: str, count: int, work: Path) -> list[Trial]:
    stop: Callable[[], None]
    if kind in LOCAL:
        local = DavServer(kind, work / kind / "root").start()
        port, user, password, new, done = local.port, USER, PASSWORD, local.new_calendar, None
        stop = local.stop
    else:
        shared = shared_caldav.start(kind, work / kind / "work")
        port, user, password, new = int(shared.info["port"]), shared.username, shared.password, shared.new_calendar

        # Cyrus holds a UID once per account: each trial's calendar goes before the next.
        def done(url: str) -> None:
            shared.request("DELETE", url)

        def stop() -> None:
            shared_caldav.stop(shared)

    found: list[Trial] = []
    try:
        with DavProxy(port) as proxy:
            for trial in range(count):
                calendar = new()
                try:
                    found.append(
                        kill_trial(
                            proxy, port, calendar, user, password, work / kind / f"t{trial}", trial % SESSIONS + 1
                        )
                    )
                finally:
                    if done is not None:
                        done(calendar)
    finally:
        stop()
    return found


def line(kind: str, trials: list[Trial]) -> str:
    seconds = [t.seconds for t in trials]
    started = [t.started for t in trials]
    failed = sum(1 for t in trials if t.returncode != 0)
    landed = sum(1 for t in trials if t.killed == -9)
    return (
        f"{kind:9} {len(trials)} trials ({landed} killed): duplicates {sum(t.duplicates for t in trials)}, "
        f"missing {sum(t.missing for t in trials)}, next run failed {failed}, waited {sum(t.waited for t in trials)}; "
        f"next run's first request after median {statistics.median(started):.2f} s, max {max(started):.2f} s; "
        f"it ended after median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s"
    )


def main(argv: Iterator[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--servers", default=",".join(LOCAL + SHARED))
    args = parser.parse_args(list(argv) if argv is not None else None)
    with tempfile.TemporaryDirectory(prefix="kill-trials-") as tmp:
        for kind in args.servers.split(","):
            print(line(kind, trials_on(kind, args.trials, Path(tmp))), flush=True)


if __name__ == "__main__":
    main()
