"""Done when: no address in any log, and never in plaintext in the store. Every flow
that handles the address runs with every logger at DEBUG; then the SQLite file's bytes (with its
WAL) are searched for the address and its local part."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from server.jobs.triggers import SyncTriggers
from server.web.access_log import loggable_path, token_tag
from tests.helpers.smtp_server import SmtpServer
from tests.server.mail.conftest import ADDRESS, LOCAL_PART, SLUG, World, change_conf, link_path

# aiosmtpd's own logger is the receiving mail server's (it logs every envelope), not confcal's.
RECEIVING_SERVER = "mail.log"
REFUSED = "grace.hopper@mail.example.net"


def everything(world: World, smtp: SmtpServer) -> None:
    """Ask, confirm, receive, unpick, a new version, read the state, be refused, stop."""
    token = world.pick("Opening Keynote", "Compilers for Everyone", "Graph Breaks Explained")
    (first, *_) = world.subscribed(token, picks=3)
    world.repick(token, "Opening Keynote", "Compilers for Everyone")
    assert len(smtp.wait_for(5)) == 5  # the CANCEL of the unpicked session
    world.store.ingest(change_conf(2))  # type: ignore[arg-type]
    SyncTriggers(world.store, world.jobs).version_committed(SLUG)
    assert len(smtp.wait_for(6)) == 6  # the REQUEST of the moved one
    world.http.get(f"/api/picks/{token}/invitations")
    smtp.refuse(REFUSED, f"550 5.1.1 <{REFUSED}>: no such user")
    world.ask(world.pick("Opening Keynote"), REFUSED)
    world.http.request(
        "POST", link_path(first, "stop"), {"content-type": "application/x-www-form-urlencoded"}, b"cancel_sent=1"
    )


def test_no_log_record_names_the_address_or_its_local_part(
    world: World, smtp: SmtpServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    everything(world, smtp)

    ours = [r for r in caplog.records if r.name != RECEIVING_SERVER]
    lines = [f"{r.name} {r.getMessage()} {r.exc_text or ''}".lower() for r in ours]
    leaks = [line for line in lines for secret in (ADDRESS, LOCAL_PART, REFUSED, "grace.hopper") if secret in line]
    assert leaks == []
    assert len(ours) > 10  # the flows did log: there was something to search


def test_the_store_file_holds_no_address_in_plaintext(world: World, smtp: SmtpServer) -> None:
    everything(world, smtp)
    world.store.close()

    data = b"".join(p.read_bytes() for p in sorted(world.db.parent.glob(world.db.name + "*")) if p.is_file())

    found = [secret for secret in (ADDRESS, LOCAL_PART, REFUSED, "grace.hopper") if secret.encode() in data]
    assert found == []
    assert len(data) > 10_000


def test_the_store_file_check_would_find_an_address_stored_in_clear(tmp_path: Path) -> None:
    # The search above can fail: the same bytes search finds an address SQLite wrote as text.
    db = tmp_path / "probe.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (v TEXT)")
        conn.execute("INSERT INTO t VALUES (?)", (ADDRESS,))

    assert ADDRESS.encode() in db.read_bytes()


@pytest.mark.parametrize("kind", ["confirm", "stop"])
def test_the_access_log_tags_the_codes_of_invitation_links(kind: str) -> None:
    code = "q-z400O3FTVIwP4VaPGZVfRXQAPHpRVE"

    logged = loggable_path(f"/c/conf/api/invitations/{kind}/{code}")

    assert logged == f"/c/conf/api/invitations/{kind}/{token_tag(code)}"
