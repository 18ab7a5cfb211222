"""The personal feed's changed events carry their change as the DESCRIPTION's first line;
every other feed keeps its bytes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import icalendar

from feeds.pipeline import load_schedule
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import Http

CHANGES = Path(__file__).resolve().parents[2] / "fixtures" / "changes"
MOVED, RETITLED, CANCELLED, KEPT = "eebc480700", "36f2f8b98d", "1b5fb92284", "545aadac37"
NOW = datetime(2026, 4, 3, tzinfo=UTC)  # within the cancelled session's grace period
PUBLIC = ("/feeds/all.ics", "/feeds/room/junior-stage.ics", "/feeds/track/talks.ics", f"/sessions/{MOVED}.ics")


def ingest(store: Store, name: str, now: datetime) -> None:
    store.ingest(load_schedule([str(CHANGES / name)], None).schedule, now=now)


def first_lines(calendar: bytes) -> dict[str, str]:
    parsed = icalendar.Calendar.from_ical(calendar)
    return {str(e["UID"]).split("@")[0]: str(e.get("DESCRIPTION", "")).split("\n")[0] for e in parsed.walk("VEVENT")}


def test_personal_feed_says_what_changed_and_other_feeds_keep_their_bytes(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "store.sqlite"))
    ingest(store, "v1.ics", datetime(2026, 3, 30, tzinfo=UTC))
    ingest(store, "v2.ics", datetime(2026, 4, 2, tzinfo=UTC))
    untouched = Http(create_app(store, clock=lambda: NOW))
    public_before = [untouched.get(path).content for path in PUBLIC]
    client = Http(create_app(store, clock=lambda: NOW))
    body = json.dumps({"sessions": [MOVED, RETITLED, CANCELLED, KEPT]}).encode()
    token = client.request("POST", "/api/picks", {"content-type": "application/json"}, body).json_doc()["token"]

    personal = client.get(f"/p/{token}.ics").content
    public_after = [client.get(path).content for path in PUBLIC]

    assert first_lines(personal) == {
        MOVED: "Moved from 11:00 Master Stage",
        RETITLED: "Retitled from Serving LLMs at Scale",
        CANCELLED: "About Graph Breaks Explained.",
        KEPT: "About Opening Keynote.",
    }
    assert public_after == public_before
    assert all(b"Moved from" not in body and b"Retitled from" not in body for body in public_after)
    store.close()
