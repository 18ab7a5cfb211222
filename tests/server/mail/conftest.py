"""Fixtures for the invitation tests: a real SMTP server on loopback (tests/helpers/smtp_server.py),
a SQLite store holding "Change Conf 2026" v1 (tests/fixtures/changes), and the app with its job
queue running in this process, as `confcal serve` runs it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from feeds.pipeline import load_schedule
from server.jobs import Jobs, jobs_for, jobs_in_process
from server.jobs.triggers import SyncTriggers
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import Http, Reply
from tests.helpers.caldav_helpers import send_json
from tests.helpers.smtp_server import Delivered, SmtpServer, running_smtp

CHANGES = Path(__file__).resolve().parents[2] / "fixtures" / "changes"
ADDRESS = "ada.lovelace@mail.example.net"
LOCAL_PART = "ada.lovelace"
SLUG = "change-conf-2026"


def change_conf(version: int) -> object:
    return load_schedule([str(CHANGES / f"v{version}.ics")], "Europe/Paris").schedule


@dataclass
class World:
    db: Path
    store: Store
    http: Http
    smtp: SmtpServer
    jobs: Jobs

    def ids(self) -> dict[str, str]:
        """Session id by title, as the API lists them."""
        return {s["title"]: s["id"] for s in self.http.get("/api/sessions").json_doc()["sessions"]}

    def pick(self, *titles: str) -> str:
        ids = self.ids()
        token: str = send_json(self.http, "POST", "/api/picks", {"sessions": [ids[t] for t in titles]}).json_doc()[
            "token"
        ]
        return token

    def repick(self, token: str, *titles: str) -> Reply:
        ids = self.ids()
        return send_json(self.http, "PUT", f"/api/picks/{token}", {"sessions": [ids[t] for t in titles]})

    def ask(self, token: str, email: str = ADDRESS) -> Reply:
        return send_json(self.http, "POST", f"/api/picks/{token}/invitations", {"email": email})

    def confirm(self, message: Delivered) -> Reply:
        return self.http.get(link_path(message, "confirm"))

    def subscribed(self, token: str, picks: int) -> list[Delivered]:
        """Ask, confirm, and wait for the confirmation and the `picks` invitations."""
        before = len(self.smtp.delivered)
        assert self.ask(token).status == 202
        assert self.confirm(self.smtp.delivered[before]).status == 200
        return self.smtp.wait_for(before + 1 + picks)[before + 1 :]


def link_path(message: Delivered, kind: str) -> str:
    text = message.message.get_body(("plain",))
    assert text is not None
    found = re.search(rf"http://testserver(/api/invitations/{kind}/[A-Za-z0-9_-]+)", text.get_content())
    assert found is not None, f"no {kind} link"
    return found.group(1)


@pytest.fixture
def smtp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SmtpServer]:
    with running_smtp(tmp_path) as server:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def world(tmp_path: Path, smtp: SmtpServer) -> Iterator[World]:
    db = tmp_path / "store.sqlite"
    store = Store.open(str(db))
    store.ingest(change_conf(1))  # type: ignore[arg-type]
    jobs = jobs_for(store)
    app = create_app(store, sync=SyncTriggers(store, jobs))
    try:
        with jobs_in_process(store, workers=2, jobs=jobs):
            yield World(db, store, Http(app), smtp, jobs)
    finally:
        store.close()
