"""A killed push's calendar lease (server/caldav/lock.py): taken over at once when its holder is
known dead on this host, kept alive by a heartbeat while the holder works, and a bounded, announced
wait (`confcal push --wait`) when the holder is alive. Real `confcal push` processes, killed with
SIGKILL by the proxy right after the server stored one of their PUTs, on Radicale and sabre/dav."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, create_engine, insert, select

from server.caldav.content import uids
from server.caldav.dav import DavStorage, calendar_key
from server.caldav.lock import TTL, CalendarLease, hold_calendar
from server.crypto import Password
from server.store import Store, schema
from server.store.tables import calendar_locks
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.lease_clock import CALENDAR
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, make_schedule
from tests.helpers.shared_caldav import SharedServer

ROOT = Path(__file__).resolve().parents[3]
SESSIONS = 6
KILL_AFTER_PUTS = (1, 2, 3, 5, 6)  # one trial each: from the first event's PUT to the last one's


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


def new_store(tmp_path: Path) -> tuple[Path, list[str]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "store.db"
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


def kill_trials(tmp_path: Path, port: int, calendars: list[str], username: str, password: str) -> None:
    """Per calendar: a push killed right after its n-th PUT was stored, then a push that may wait
    at most 5 s for the calendar: it must finish the job (exit 0) with every event once."""
    with DavProxy(port) as proxy:
        for trial, (calendar, puts) in enumerate(zip(calendars, KILL_AFTER_PUTS, strict=True)):
            db, ids = new_store(tmp_path / f"trial{trial}")
            proxied = calendar.replace(f"http://127.0.0.1:{port}", proxy.base)
            killed = subprocess.Popen(
                push_command(db, proxied, username, ids),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env(password),
            )
            proxy.kill_after_put(killed.pid, puts)
            assert killed.wait(timeout=120) == -9  # reaped: its pid is free from here on

            started = time.monotonic()
            again = subprocess.run(
                push_command(db, proxied, username, ids, "--wait", "5"),
                capture_output=True,
                text=True,
                env=env(password),
                timeout=120,
            )
            took = time.monotonic() - started

            assert (again.returncode, again.stderr.count("waiting:")) == (0, 0), again.stderr
            assert took < 30
            counts = uid_counts(calendar, username, password)
            assert (len(counts), set(counts.values())) == (SESSIONS, {1})


def test_a_killed_push_on_radicale_is_taken_over_at_once_without_duplicates(
    radicale: DavServer, tmp_path: Path
) -> None:
    kill_trials(tmp_path, radicale.port, [radicale.new_calendar() for _ in KILL_AFTER_PUTS], USER, PASSWORD)


def test_a_killed_push_on_sabre_is_taken_over_at_once_without_duplicates(sabre: SharedServer, tmp_path: Path) -> None:
    port = int(sabre.info["port"])
    kill_trials(tmp_path, port, [sabre.new_calendar() for _ in KILL_AFTER_PUTS], sabre.username, sabre.password)


def test_a_busy_calendar_is_announced_once_and_the_wait_is_bounded(radicale: DavServer, tmp_path: Path) -> None:
    db, ids = new_store(tmp_path)
    calendar = radicale.new_calendar()
    engine = create_engine(f"sqlite:///{db}")
    key = calendar_key(calendar)
    with hold_calendar(engine, key, wait=0):
        with engine.connect() as conn:
            until = conn.execute(select(calendar_locks.c.until).where(calendar_locks.c.calendar_url == key)).scalar()
        assert until is not None

        done = subprocess.run(
            push_command(db, calendar, USER, ids, "--wait", "1"),
            capture_output=True,
            text=True,
            env=env(PASSWORD),
            timeout=120,
        )
    engine.dispose()

    holder = f"process {os.getpid()} on {socket.gethostname()} until {until.astimezone(UTC):%H:%M:%S} UTC"
    assert done.returncode == 4
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"waiting: {key} is held by {holder}; waiting up to 1 s",
        f"confcal push: calendar busy: another sync of {key} is running ({holder}); try again later",
    ]


def test_the_heartbeat_keeps_a_short_lease_while_its_holder_works(db: Engine) -> None:
    other = CalendarLease(db, CALENDAR)
    tries: list[bool] = []

    with hold_calendar(db, CALENDAR, wait=0, ttl=timedelta(seconds=0.6)):
        for _ in range(5):
            time.sleep(0.3)  # the holder at work, never calling renew()
            tries.append(other.try_take())

    assert tries == [False] * 5


HOLD = """
import sys, time
from sqlalchemy import create_engine
from server.caldav.lock import CalendarLease
lease = CalendarLease(create_engine(sys.argv[1]), sys.argv[2])
assert lease.try_take()
print("held", flush=True)
time.sleep(600)
"""


def test_a_killed_holder_not_yet_reaped_by_its_parent_is_taken_over(db: Engine) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, db.url.render_as_string(hide_password=False), CALENDAR],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    os.kill(holder.pid, signal.SIGKILL)
    while Path(f"/proc/{holder.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
        time.sleep(0.01)  # dead, and left a zombie until holder.wait() below

    try:
        with hold_calendar(db, CALENDAR, wait=0) as lease:
            held = lease_owner(db)
    finally:
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()

    assert held == lease.owner


def put_lease(db: Engine, owner: str) -> None:
    schema.ensure(db)
    with db.begin() as conn:
        conn.execute(insert(calendar_locks).values(calendar_url=CALENDAR, owner=owner, until=datetime.now(UTC) + TTL))


def lease_owner(db: Engine) -> str | None:
    with db.connect() as conn:
        owner: str | None = conn.execute(
            select(calendar_locks.c.owner).where(calendar_locks.c.calendar_url == CALENDAR)
        ).scalar()
    return owner


def test_a_pid_given_to_another_process_does_not_keep_the_lease(db: Engine) -> None:
    # This process's pid, with a start time it does not have: the holder was another process,
    # since gone, whose pid the kernel handed out again.
    put_lease(db, f"{socket.gethostname()}:{os.getpid()}:1:1:dead0000")

    taken = CalendarLease(db, CALENDAR).try_take()

    assert taken is True


def test_a_holder_on_another_host_keeps_the_lease_until_it_expires(db: Engine) -> None:
    owner = f"not-{socket.gethostname()}:1:1:1:elsewhere"
    put_lease(db, owner)

    taken = CalendarLease(db, CALENDAR).try_take()

    assert (taken, lease_owner(db)) == (False, owner)
