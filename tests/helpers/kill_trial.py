"""One kill -9 trial of `confcal push` on a real CalDAV server, for the lease tests and for
bench/caldav_kill_trials.py: a push killed by the proxy (tests/helpers/dav_proxy.py) right after the
server stored its n-th PUT, then a push allowed to wait at most 5 s for the calendar. What the
trial found: duplicates and missing events, how soon the next run reached the server and how
long it took."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from server.caldav.content import uids
from server.caldav.dav import DavStorage
from server.crypto import Password
from server.store import Store
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.paths import ROOT
from tests.helpers.push_helpers import make_schedule

SESSIONS = 6


@dataclass(frozen=True)
class Trial:
    killed: int  # the killed push's exit status: -9 when the kill landed
    returncode: int  # the next push's
    waited: int  # "waiting:" lines the next push printed (0: it took the calendar at once)
    seconds: float  # from starting the next push to its end (process start included)
    started: float  # from starting the next push to its first request to the server
    duplicates: int  # events held more than once, counted once per extra copy
    missing: int  # picked sessions with no event
    stderr: str


def push_command(db: Path, calendar: str, username: str, ids: list[str], *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "server.cli",
        "push",
        "--calendar",
        calendar,
        "--username",
        username,
        "--password-env",
        "CAL_PASSWORD",
        "--db",
        str(db),
        "--allow-private",
        *extra,
        "--session",
        *ids,
    ]


def env(password: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "CAL_PASSWORD": password}


def new_store(work: Path) -> tuple[Path, list[str]]:
    work.mkdir(parents=True, exist_ok=True)
    db = work / "store.db"
    with Store.open(str(db)) as store:
        store.ingest(make_schedule(SESSIONS))
        schedule = store.live()
    assert schedule is not None
    return db, [s.id for s in schedule.sessions]


def uid_counts(url: str, username: str, password: str) -> Counter[str]:
    storage = DavStorage.connect(url, username, Password(password), allow_private=True)
    try:
        return Counter(u for name in storage.list() for u in uids(storage.get(name).ics))
    finally:
        storage.close()


def kill_trial(
    proxy: DavProxy, upstream_port: int, calendar: str, username: str, password: str, work: Path, puts: int
) -> Trial:
    """`calendar` is the server's own URL; the pushes go through `proxy`, which kills the first
    one after its `puts`-th stored PUT."""
    db, ids = new_store(work)
    proxied = calendar.replace(f"http://127.0.0.1:{upstream_port}", proxy.base)
    victim = subprocess.Popen(
        push_command(db, proxied, username, ids),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env(password),
    )
    proxy.kill_after_put(victim.pid, puts)
    killed = victim.wait(timeout=120)  # reaped: its pid is free from here on
    started = time.monotonic()
    again = subprocess.run(
        push_command(db, proxied, username, ids, "--wait", "5"),
        capture_output=True,
        text=True,
        env=env(password),
        timeout=120,
    )
    took = time.monotonic() - started
    first = proxy.first_request_since(started)
    counts = uid_counts(calendar, username, password)
    return Trial(
        killed=killed,
        returncode=again.returncode,
        waited=again.stderr.count("waiting:"),
        seconds=took,
        started=(first - started) if first is not None else took,
        duplicates=sum(n - 1 for n in counts.values()),
        missing=SESSIONS - len(counts),
        stderr=again.stderr,
    )
