"""A killed push's calendar lease (server/caldav/lock.py): taken over at once when its holder is
known dead on this host, kept alive by a heartbeat while the holder works, and a bounded, announced
wait (`confcal push --wait`) when the holder is alive. Real `confcal push` processes, killed with
SIGKILL by the proxy right after the server stored one of their PUTs: five trials on Radicale and
sabre/dav, two on Xandikos, DAViCal, Cyrus and SOGo (bench/caldav_kill_trials.py runs twenty each)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, insert, select

from server.caldav.dav import calendar_key
from server.caldav.lock import TTL, CalendarLease, hold_calendar
from server.store import schema
from server.store.tables import calendar_locks
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.kill_trial import env, kill_trial, new_store, push_command
from tests.helpers.lease_clock import CALENDAR
from tests.helpers.paths import ROOT
from tests.helpers.push_helpers import PASSWORD, USER, DavServer
from tests.helpers.shared_caldav import SharedServer

KILL_AFTER_PUTS = (1, 2, 3, 5, 6)  # one trial each: from the first event's PUT to the last one's


def kill_trials(
    tmp_path: Path,
    port: int,
    calendars: Iterator[str],
    username: str,
    password: str,
    kills: tuple[int, ...] = KILL_AFTER_PUTS,
    done: Callable[[str], object] = lambda url: None,
) -> None:
    """Per calendar: a push killed right after its n-th PUT was stored, then a push that may wait
    at most 5 s for the calendar: it must finish the job (exit 0) with every event once. `done`
    gets each calendar after its trial (Cyrus holds a UID once per account: it must go)."""
    with DavProxy(port) as proxy:
        for trial, puts in enumerate(kills):
            calendar = next(calendars)
            try:
                found = kill_trial(proxy, port, calendar, username, password, tmp_path / f"trial{trial}", puts)
            finally:
                done(calendar)

            assert (found.killed, found.returncode, found.waited) == (-9, 0, 0), found.stderr
            assert found.seconds < 30
            assert (found.duplicates, found.missing) == (0, 0)


def test_a_killed_push_on_radicale_is_taken_over_at_once_without_duplicates(
    radicale: DavServer, tmp_path: Path
) -> None:
    kill_trials(tmp_path, radicale.port, iter(radicale.new_calendar, None), USER, PASSWORD)


def test_a_killed_push_on_sabre_is_taken_over_at_once_without_duplicates(sabre: SharedServer, tmp_path: Path) -> None:
    port = int(sabre.info["port"])
    kill_trials(tmp_path, port, iter(sabre.new_calendar, None), sabre.username, sabre.password)


@pytest.mark.parametrize("kind", ["xandikos", "davical"])
def test_two_killed_pushes_on_the_other_local_servers_are_taken_over(
    request: pytest.FixtureRequest, kind: str, tmp_path: Path
) -> None:
    server: DavServer = request.getfixturevalue(kind)
    kill_trials(tmp_path, server.port, iter(server.new_calendar, None), USER, PASSWORD, kills=(1, 4))


@pytest.mark.parametrize("kind", ["cyrus", "sogo"])
def test_two_killed_pushes_on_cyrus_and_sogo_are_taken_over(
    request: pytest.FixtureRequest, kind: str, tmp_path: Path
) -> None:
    shared: SharedServer = request.getfixturevalue(kind)
    kill_trials(
        tmp_path,
        int(shared.info["port"]),
        iter(shared.new_calendar, None),
        shared.username,
        shared.password,
        kills=(1, 4),
        done=lambda url: shared.request("DELETE", url),
    )


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
