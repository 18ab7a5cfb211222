"""Done when: the text/calendar part of every invitation, as delivered by a real SMTP
server, is read alike by every client of the agreement suite (conftest.read_all), at the
session's own times: a REQUEST for each of the demo's 28 sessions and a CANCEL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.jobs.invitations import Schedules, Sender, run_invitations
from server.mail.settings import mail_settings
from server.store import Store
from server.store.invitations import Invitations
from server.store.picks import PickStore
from server.web.demo import demo_schedule
from tests.helpers.smtp_server import Delivered, running_smtp
from tests.interop.clients import ReadAll, Readings

ADDRESS = "ada.lovelace@mail.example.net"


def delivered(folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[Delivered]:
    """Every session of the demo picked and sent, then one unpicked and cancelled."""
    with running_smtp(folder) as smtp, Store.open(str(folder / "store.sqlite")) as store:
        monkeypatch.setenv("SSL_CERT_FILE", str(smtp.ca_file))
        schedule = demo_schedule()
        store.ingest(schedule)
        slug = schedule.conference.slug
        ids = [s.id for s in schedule.sessions]
        picks = PickStore(store.engine)
        token = picks.create(slug, ids).token
        table = Invitations(store.engine)
        asked, code = table.request(slug, token, ADDRESS, "https://cal.example.org", schedule.sessions[0].start)
        table.confirm(code, schedule.sessions[0].start)
        settings = mail_settings(smtp.env)
        assert settings is not None
        sender = Sender.of(settings)
        run_invitations(store, table, asked.id, sender, lambda: schedule.sessions[0].start, Schedules(store))
        picks.replace(token, ids[1:])
        run_invitations(store, table, asked.id, sender, lambda: schedule.sessions[0].start, Schedules(store))
        sender.relay.close()
        return smtp.delivered


@pytest.fixture(scope="module")
def readings(read_all: ReadAll, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Readings]]]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        messages = delivered(tmp_path_factory.mktemp("imip"), monkeypatch)
    yield read_all({f"{n:02d}-{m.method}": m.calendar() for n, m in enumerate(messages)})


def test_every_session_was_sent_and_one_cancelled(readings: dict[str, dict[str, Readings]]) -> None:
    methods = sorted(name.partition("-")[2] for name in readings)

    assert methods == ["CANCEL"] + ["REQUEST"] * 28


def test_every_client_reads_each_invitation_at_the_sessions_times(readings: dict[str, dict[str, Readings]]) -> None:
    times = {(s.start, s.end) for s in demo_schedule().sessions}

    disagreeing = {name: by for name, by in readings.items() if len({str(r) for r in by.values()}) != 1}
    read = [next(iter(by.values())) for by in readings.values()]

    assert disagreeing == {}
    assert all(len(r) == 1 and set(r.values()) <= times for r in read)
    assert len({uid for r in read for uid in r}) == 28
