"""Reminders opt-in per feed URL: `?alarm=N` adds one VALARM per event, on catalogue,
filtered, per-conference and personal feeds; without it every feed keeps its exact bytes."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from starlette.applications import Starlette

from feeds.model import Schedule
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.picks_client import call, path_of, session_ids

HERE = Path(__file__).resolve().parent
# sha256 and ETag of feeds as served before reminders existed (rendered by commit 41c4322).
GOLDEN = HERE / "fixtures" / "feeds_before_alarms.json"
INGESTED = datetime(2026, 3, 30, 12, tzinfo=UTC)
DEMO = "pytorch-conference-europe-2026"
PLAIN = [
    "/feeds/all.ics",
    "/feeds/room/master-stage.ics",
    "/feeds/all.ics?level=beginner",
    f"/c/{DEMO}/feeds/all.ics",
    f"/c/{DEMO}/feeds/track/inference-production.ics?level=beginner",
]
VEVENT = re.compile(rb"BEGIN:VEVENT\r\n.*?END:VEVENT\r\n", re.DOTALL)
VALARM = re.compile(rb"BEGIN:VALARM\r\n.*?END:VALARM\r\n", re.DOTALL)


@pytest.fixture(scope="module")
def fixed(demo_schedule: Schedule, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Http]:
    """The demo ingested at a fixed instant, so its feeds' bytes are known in advance."""
    opened = Store.open(str(tmp_path_factory.mktemp("fixed") / "store.sqlite"))
    opened.ingest(demo_schedule, now=INGESTED)
    yield Http(create_app(opened, clock=lambda: NOW))
    opened.close()


def fingerprints(http: Http) -> dict[str, list[str | int | None]]:
    found: dict[str, list[str | int | None]] = {}
    for path in PLAIN:
        reply = http.get(path)
        digest = hashlib.sha256(reply.content).hexdigest()
        found[path] = [reply.status, digest, reply.headers.get("etag")]
    return found


def test_feeds_without_alarm_are_byte_identical_to_before(fixed: Http) -> None:
    expected = json.loads(GOLDEN.read_text())

    found = fingerprints(fixed)

    assert found == expected


@pytest.mark.parametrize(
    "path",
    [
        "/feeds/all.ics",
        "/feeds/room/master-stage.ics",
        "/feeds/all.ics?room=master-stage",
        f"/c/{DEMO}/feeds/all.ics",
    ],
)
def test_alarm_adds_one_display_valarm_per_event(http: Http, path: str) -> None:
    plain = http.get(path).content
    glue = "&" if "?" in path else "?"

    reply = http.get(f"{path}{glue}alarm=10")

    events = VEVENT.findall(reply.content)
    assert reply.status == 200
    assert len(events) == len(VEVENT.findall(plain)) > 0
    assert [len(VALARM.findall(e)) for e in events] == [1] * len(events)
    alarm = VALARM.findall(events[0])[0]
    summary = re.search(rb"\r\nSUMMARY:([^\r]*)\r\n", events[0])
    assert summary is not None
    assert sorted(alarm.split(b"\r\n")) == sorted(
        [
            b"BEGIN:VALARM",
            b"ACTION:DISPLAY",
            b"TRIGGER:-PT10M",
            b"DESCRIPTION:" + summary.group(1),
            b"END:VALARM",
            b"",
        ]
    )
    # Everything else is the plain feed's bytes.
    assert VALARM.sub(b"", reply.content) == plain
    assert reply.headers["etag"] != http.get(path).headers["etag"]


@pytest.mark.parametrize("value", ["-5", "1441", "ten", "1.5", "", "10&alarm=20"])
def test_bad_alarm_is_a_400_with_a_one_line_reason(http: Http, value: str) -> None:
    reply = http.get(f"/feeds/all.ics?alarm={value}")

    assert reply.status == 400
    assert reply.text.count("\n") == 1
    assert "alarm" in reply.text


def test_alarm_bounds_are_accepted(http: Http) -> None:
    zero, day = http.get("/feeds/all.ics?alarm=0"), http.get("/feeds/all.ics?alarm=1440")

    assert (zero.status, day.status) == (200, 200)
    assert b"\r\nTRIGGER:P0D\r\n" in zero.content  # RFC 5545 3.3.6 dur-day
    assert b"\r\nTRIGGER:-P1D\r\n" in day.content


def test_personal_feed_takes_an_alarm(demo_app: Starlette, http: Http) -> None:
    picked = session_ids(http)[:3]
    doc = call(demo_app, "POST", "/api/picks", {"sessions": picked}).json_doc()
    path = path_of(doc["feed"])
    plain = http.get(path).content

    reply = http.get(f"{path}?alarm=15")
    bad = http.get(f"{path}?alarm=99999")

    assert reply.status == 200
    assert reply.content.count(b"\r\nTRIGGER:-PT15M\r\n") == 3
    assert VALARM.sub(b"", reply.content) == plain
    assert bad.status == 400
