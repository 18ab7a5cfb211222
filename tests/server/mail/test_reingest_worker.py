"""Done when, across processes as deployed: `confcal worker` runs the jobs, `confcal
ingest` commits a new version that moves one picked session and withdraws another, and with no
request from anyone the address gets exactly one REQUEST (SEQUENCE + 1) and one CANCEL within
60 s, through a real SMTP server with STARTTLS and AUTH."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import icalendar

from server.jobs.triggers import SyncTriggers
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import Http
from tests.helpers.cli_runs import ENV, ingest
from tests.helpers.smtp_server import Delivered, SmtpServer
from tests.helpers.vevents import sequence, vevents
from tests.server.mail.conftest import ADDRESS, CHANGES, World

PICKS = ("Opening Keynote", "Compilers for Everyone", "Graph Breaks Explained")


@contextmanager
def running_worker(db: Path, smtp: SmtpServer, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "worker", "--db", str(db), "--threads", "2"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**ENV, **smtp.env},
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def event_of(message: Delivered) -> icalendar.Event:
    (event,) = vevents(icalendar.Calendar.from_ical(message.calendar()))
    return event


def test_a_reingest_reaches_the_address_within_a_minute_with_no_request(tmp_path: Path, smtp: SmtpServer) -> None:
    db = tmp_path / "store.sqlite"
    ingest(db, str(CHANGES / "v1.ics"))
    with Store.open(str(db)) as store, running_worker(db, smtp, tmp_path / "worker.log"):
        triggers = SyncTriggers.on_demand(store)
        world = World(db, store, Http(create_app(store, sync=triggers)), smtp, None)  # type: ignore[arg-type]
        token = world.pick(*PICKS)
        sent = {str(event_of(m)["SUMMARY"]): event_of(m) for m in world.subscribed(token, picks=3)}

        ingest(db, str(CHANGES / "v2.ics"))
        committed = time.monotonic()
        arrived = smtp.wait_for(6, timeout=60)
        took = time.monotonic() - committed
        time.sleep(3)  # anything more the worker would send
        triggers.close()

    changes = smtp.delivered[4:]
    by_method = {m.method: event_of(m) for m in changes}
    assert len(arrived) == 6
    assert took < 60
    assert sorted(m.method or "" for m in changes) == ["CANCEL", "REQUEST"]
    assert [m.recipients for m in changes] == [(ADDRESS,)] * 2
    moved, withdrawn = by_method["REQUEST"], by_method["CANCEL"]
    before = sent["Compilers for Everyone"]
    assert (str(moved["UID"]), sequence(moved)) == (str(before["UID"]), sequence(before) + 1)
    assert str(withdrawn["UID"]) == str(sent["Graph Breaks Explained"]["UID"])
