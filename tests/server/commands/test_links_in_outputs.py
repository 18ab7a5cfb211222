"""A store that holds a `javascript:` link (written before ingest dropped them) never shows it:
not in the static build's pages, feeds, API and exports, nor in `confcal export`; and every built
page carries the server's Content-Security-Policy in a <meta>, for hosts that send no header."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from feeds.exports import EXPORTERS
from feeds.pipeline import load_schedule
from server.cli import main
from server.pages.render import CSP
from server.store import Store
from tests.helpers.link_calendars import two_linked_sessions

ICS = two_linked_sessions("https://example.org/one", "https://example.org/two")
SCRIPT = "javascript:alert(document.domain)"


@pytest.fixture
def scripted_store(tmp_path: Path) -> str:
    """A store whose live schedule has a session and a conference with a `javascript:` link."""
    source = tmp_path / "links.ics"
    source.write_text(ICS, encoding="utf-8")
    schedule = load_schedule([str(source)], "Europe/Berlin").schedule
    scripted = dataclasses.replace(schedule.sessions[0], url=SCRIPT)
    schedule = dataclasses.replace(
        schedule,
        conference=dataclasses.replace(schedule.conference, source_url=SCRIPT),
        sessions=(scripted, *schedule.sessions[1:]),
    )
    db = str(tmp_path / "store.sqlite")
    with Store.open(db) as store:
        store.ingest(schedule)
    return db


def test_no_built_file_holds_the_script_link(scripted_store: str, tmp_path: Path) -> None:
    site = tmp_path / "site"

    code = main(["build", "--quiet", "--db", scripted_store, str(site)])

    files = sorted(p for p in site.rglob("*") if p.is_file())
    assert code == 0
    assert [str(p.relative_to(site)) for p in files if b"javascript:" in p.read_bytes()] == []
    assert [
        str(p.relative_to(site))
        for p in files
        if p.name == "index.html" and b"https://example.org/two" in p.read_bytes()
    ] != []


def test_every_built_page_has_the_csp_meta(scripted_store: str, tmp_path: Path) -> None:
    site = tmp_path / "site"
    meta = '<meta http-equiv="Content-Security-Policy" content="{}">'.format(
        CSP.replace("; frame-ancestors 'none'", "").replace("'", "&#39;")
    )

    code = main(["build", "--quiet", "--db", scripted_store, str(site)])

    pages = sorted(site.rglob("*.html"))
    assert (code, len(pages) > 4) == (0, True)
    assert [str(p.relative_to(site)) for p in pages if p.read_text(encoding="utf-8").count(meta) != 1] == []


@pytest.mark.parametrize("name", sorted(EXPORTERS))
def test_no_export_holds_the_script_link(scripted_store: str, tmp_path: Path, name: str) -> None:
    out = tmp_path / f"export.{name}"

    code = main(["export", "--quiet", "--db", scripted_store, "--format", name, str(out)])

    body = out.read_bytes()
    assert (code, b"javascript:" in body, b"https://example.org/two" in body or name == "c3voc-json") == (
        0,
        False,
        True,
    )
