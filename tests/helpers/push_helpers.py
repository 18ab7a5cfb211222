"""Helpers for the pusher tests: a small schedule, real servers as subprocesses, and one
`Backend` face over the in-memory twin and a real calendar so the same tests run on all three."""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import subprocess
import sys
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import IO, Any, Protocol
from urllib.request import Request, urlopen

import icalendar

from feeds.model import Conference, Room, Schedule, Session, Status
from server.caldav.content import uids
from server.caldav.dav import DavStorage
from server.caldav.storage import Item, Storage
from server.crypto import Password
from tests.helpers.faulty_twin import FaultyTwin

SERVER_SCRIPT = Path(__file__).with_name("dav_server.py")
# The script imports its neighbours as tests.helpers.*: the repository root goes on its path.
ROOT = Path(__file__).resolve().parents[2]
USER, PASSWORD = "alice", "correct-horse-battery"

CONFERENCE = Conference(
    name="PyTorch Conference Europe 2026",
    timezone="Europe/Paris",
    start_date=date(2026, 4, 7),
    end_date=date(2026, 4, 7),
    venue="Station F",
    city="Paris",
)
CEST = timedelta(hours=2)
DAY_START_UTC = datetime(2026, 4, 7, 7, 0, tzinfo=UTC)  # 09:00 CEST


def make_schedule(count: int = 4) -> Schedule:
    sessions = tuple(
        Session(
            id=f"s{i}",
            title=f"Talk number {i}",
            start=DAY_START_UTC + timedelta(minutes=30 * i),
            end=DAY_START_UTC + timedelta(minutes=30 * i + 25),
            room=Room("Master Stage"),
            modified=datetime(2026, 3, 1, tzinfo=UTC),
        )
        for i in range(count)
    )
    return Schedule(conference=CONFERENCE, sessions=sessions)


def _replace(schedule: Schedule, session_id: str, **changes: Any) -> Schedule:
    old = schedule.session(session_id)
    assert old is not None
    new = dataclasses.replace(
        old,
        revision=old.revision + 1,
        modified=(old.modified or DAY_START_UTC) + timedelta(hours=1),
        **changes,
    )
    return dataclasses.replace(
        schedule,
        sessions=tuple(new if s.id == session_id else s for s in schedule.sessions),
    )


def moved(schedule: Schedule, session_id: str, minutes: int = 60) -> Schedule:
    old = schedule.session(session_id)
    assert old is not None
    delta = timedelta(minutes=minutes)
    return _replace(schedule, session_id, start=old.start + delta, end=old.end + delta)


def withdrawn(schedule: Schedule, session_id: str) -> Schedule:
    return _replace(schedule, session_id, status=Status.CANCELLED)


def event_ics(uid: str, summary: str, start: datetime) -> bytes:
    """An event as the owner's own calendar app would write it."""
    cal = icalendar.Calendar()
    cal.add("prodid", "-//Owner//Calendar App//EN")
    cal.add("version", "2.0")
    event = icalendar.Event()
    event.add("uid", uid)
    event.add("dtstamp", datetime(2026, 3, 2, tzinfo=UTC))
    event.add("dtstart", start)
    event.add("dtend", start + timedelta(hours=1))
    event.add("summary", summary)
    cal.add_component(event)
    return bytes(cal.to_ical())


def edited(ics: bytes, summary: str) -> bytes:
    """The owner's edit of an event: a new SUMMARY, everything else kept."""
    cal = icalendar.Calendar.from_ical(ics)
    for event in cal.walk("VEVENT"):
        event["SUMMARY"] = icalendar.vText(summary)
    return bytes(cal.to_ical())


def summary_of(ics: bytes) -> str:
    return str(next(iter(icalendar.Calendar.from_ical(ics).walk("VEVENT")))["SUMMARY"])


def sequence_of(ics: bytes) -> int:
    """The VEVENT's SEQUENCE (RFC 5545 section 3.8.7.4); 0 when absent, as the RFC defaults it."""
    event = next(iter(icalendar.Calendar.from_ical(ics).walk("VEVENT")))
    return int(event.get("SEQUENCE", 0))


def start_of(ics: bytes) -> datetime:
    event = next(iter(icalendar.Calendar.from_ical(ics).walk("VEVENT")))
    assert isinstance(event, icalendar.Event)
    start = event.start
    assert isinstance(start, datetime)
    return start.astimezone(UTC)


@dataclass(frozen=True)
class Cue:
    """Once, on the next `on` request (GET, PUT, DELETE) to resource `name`: `then` is
    "owner_put" (the owner writes `body` there first), "owner_delete" (the owner deletes it first),
    "lose_answer" (the request takes effect but its answer is lost), "weak_etag" or "drop_etag"
    (the answer's ETag header made weak or left out; the twin, which has no headers, ignores
    these two) or "answer" (real servers only: the wrapper answers with `status`, `headers` and
    `body` itself and the server never sees the request)."""

    on: str
    name: str
    then: str
    body: str = ""
    status: int = 0
    headers: tuple[tuple[str, str], ...] = ()


def owner_put(on: str, name: str, ics: bytes) -> Cue:
    return Cue(on, name, "owner_put", ics.decode())


def owner_delete(on: str, name: str) -> Cue:
    return Cue(on, name, "owner_delete")


def lose_answer(on: str, name: str) -> Cue:
    return Cue(on, name, "lose_answer")


def answer(on: str, name: str, status: int, body: str = "", **headers: str) -> Cue:
    """The next `on` request to `name` is answered with this status, body and headers (the
    names with "_" for "-": Retry_After) by the test wrapper; the server never sees it."""
    return Cue(on, name, "answer", body, status, tuple((k.replace("_", "-"), v) for k, v in headers.items()))


def weak_etag(on: str, name: str) -> Cue:
    return Cue(on, name, "weak_etag")


def drop_etag(on: str, name: str) -> Cue:
    return Cue(on, name, "drop_etag")


# -- real servers ------------------------------------------------------------------------------------


class DavServer:
    """Radicale, Xandikos or DAViCal in a subprocess on 127.0.0.1 (see dav_server.py)."""

    username, password = USER, PASSWORD

    def __init__(
        self,
        kind: str,
        root: Path,
        *,
        port: int = 0,
        die_after_puts: int | None = None,
        busy_puts: int = 0,
    ) -> None:
        self.kind, self.root = kind, root
        self.port = port
        self.die_after_puts = die_after_puts
        self.busy_puts = busy_puts
        self.process: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None

    def start(self) -> DavServer:
        self.stop()  # reap a crashed predecessor; a restart keeps the port and the data
        command = [
            sys.executable,
            str(SERVER_SCRIPT),
            self.kind,
            str(self.root),
            "--user",
            USER,
        ]
        command += ["--password", PASSWORD, "--port", str(self.port)]
        if self.die_after_puts is not None:
            command += ["--die-after-puts", str(self.die_after_puts)]
        command += ["--busy-puts", str(self.busy_puts)]
        self.root.mkdir(parents=True, exist_ok=True)
        self._log = open(self.root.parent / f"{self.root.name}.log", "a")  # noqa: SIM115 - closed in stop()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self._log, text=True, env=env)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the server prints its port once it listens
        self.process.stdout.close()
        if not line.strip():
            self.stop()
            raise RuntimeError(f"{self.kind} did not start; see {self.root}.log")
        self.port = int(line)
        return self

    def stop(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    @property
    def base_url(self) -> str:
        prefix = "/caldav.php" if self.kind == "davical" else ""  # where DAViCal serves DAV
        return f"http://127.0.0.1:{self.port}{prefix}/{USER}/"

    def counts(self) -> Counter[str]:
        with urlopen(f"http://127.0.0.1:{self.port}/__counts", timeout=30) as response:
            return Counter(json.loads(response.read()))

    def cue(self, cues: list[Cue]) -> None:
        """Queue misbehaviour on cue (see dav_server.py); an empty list clears the queue."""
        body = json.dumps([dataclasses.asdict(c) for c in cues]).encode()
        request = Request(f"http://127.0.0.1:{self.port}/__cue", data=body, method="POST")
        with urlopen(request, timeout=30) as response:
            response.read()

    def new_calendar(self) -> str:
        url = f"{self.base_url}{uuid.uuid4().hex[:12]}/"
        self.request("MKCALENDAR", url)
        return url

    def request(
        self,
        method: str,
        url: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> int:
        """A raw request as another client (the owner's app): no preconditions unless given."""
        token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        all_headers = {"Authorization": f"Basic {token}", **(headers or {})}
        with urlopen(
            Request(url, data=body or None, method=method, headers=all_headers),
            timeout=30,
        ) as r:
            return int(r.status)


def connect(url: str, username: str = USER, password: str = PASSWORD) -> DavStorage:
    """A client of the test servers, which listen on loopback: private addresses allowed."""
    return DavStorage.connect(url, username, Password(password), allow_private=True)


class CalendarServer(Protocol):
    """What DavBackend needs of a server: DavServer, or a shared server behind
    tests/helpers/cue_proxy.CueingServer."""

    kind: str
    username: str
    password: str

    def new_calendar(self) -> str: ...
    def counts(self) -> Counter[str]: ...
    def cue(self, cues: list[Cue]) -> None: ...
    def request(self, method: str, url: str, body: bytes = ..., headers: dict[str, str] | None = ...) -> int: ...


# -- one face over memory and real servers ---------------------------------------------------------


class Backend(Protocol):
    @property
    def storage(self) -> Storage: ...

    def writes(self) -> int: ...
    def requests(self) -> Counter[str]: ...
    def owner_put(self, name: str, ics: bytes) -> None: ...
    def owner_delete(self, name: str) -> None: ...
    def contents(self) -> dict[str, bytes]: ...
    def cue(self, *cues: Cue) -> None: ...
    def close(self) -> None: ...


class CueingMemory:
    """The in-memory twin behind the same cues as the real servers' test wrapper."""

    def __init__(self, memory: FaultyTwin) -> None:
        self.memory = memory
        self.url = memory.url
        self.cues: list[Cue] = []

    def _before(self, method: str, name: str) -> None:
        cue = next((c for c in self.cues if (c.on, c.name) == (method, name)), None)
        if cue is None:
            return
        self.cues.remove(cue)
        if cue.then == "owner_put":
            self.memory.owner_put(name, cue.body.encode())
        elif cue.then == "owner_delete":
            self.memory.owner_delete(name)
        elif cue.then == "lose_answer":
            self.memory.lose_next_responses(1)

    def list(self) -> dict[str, str]:
        return self.memory.list()

    def get(self, name: str) -> Item:
        self._before("GET", name)
        return self.memory.get(name)

    def create(self, name: str, ics: bytes) -> str:
        self._before("PUT", name)
        return self.memory.create(name, ics)

    def update(self, name: str, ics: bytes, etag: str) -> str:
        self._before("PUT", name)
        return self.memory.update(name, ics, etag)

    def delete(self, name: str, etag: str) -> None:
        self._before("DELETE", name)
        self.memory.delete(name, etag)


class MemoryBackend:
    def __init__(self) -> None:
        self.memory = FaultyTwin()
        self.storage = self.cueing = CueingMemory(self.memory)

    def cue(self, *cues: Cue) -> None:
        self.cueing.cues.extend(cues)

    def writes(self) -> int:
        return self.memory.requests["PUT"] + self.memory.requests["DELETE"]

    def requests(self) -> Counter[str]:
        return Counter(self.memory.requests)

    def owner_put(self, name: str, ics: bytes) -> None:
        self.memory.owner_put(name, ics)

    def owner_delete(self, name: str) -> None:
        self.memory.owner_delete(name)

    def contents(self) -> dict[str, bytes]:
        return {name: item.ics for name, item in self.memory.items.items()}

    def close(self) -> None:
        pass


class DavBackend:
    def __init__(self, server: CalendarServer) -> None:
        self.server = server
        self.url = server.new_calendar()
        self.storage = self.dav = connect(self.url, server.username, server.password)
        self._owner = connect(self.url, server.username, server.password)  # the owner's own client

    def writes(self) -> int:
        counts = self.server.counts()
        return counts["PUT"] + counts["DELETE"]

    def requests(self) -> Counter[str]:
        return self.server.counts()

    def owner_put(self, name: str, ics: bytes) -> None:
        self.server.request("PUT", self.url + name, ics, {"Content-Type": "text/calendar"})

    def owner_delete(self, name: str) -> None:
        self.server.request("DELETE", self.url + name)

    def contents(self) -> dict[str, bytes]:
        return {name: self._owner.get(name).ics for name in self._owner.list()}

    def cue(self, *cues: Cue) -> None:
        self.server.cue(list(cues))

    def close(self) -> None:
        self.server.cue([])  # a cue the test did not use must not fire in the next one
        self.dav.close()
        self._owner.close()


def uid_counts(contents: dict[str, bytes]) -> Counter[str]:
    return Counter(u for ics in contents.values() for u in uids(ics))
