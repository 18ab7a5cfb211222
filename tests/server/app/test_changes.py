"""The public changelog (`changes/`), its Atom feed and the page's recent-changes document,
served by the app and written by `confcal build`, on tests/fixtures/changes."""

from __future__ import annotations

import re
import zlib
from datetime import UTC, datetime
from pathlib import Path

import feedparser
import pytest

from feeds.pipeline import load_schedule
from server.cli import main
from server.store import Store
from server.store.tables import version_content
from server.web.app import create_app
from tests.helpers.app_helpers import Http

CHANGES = Path(__file__).resolve().parents[2] / "fixtures" / "changes"
FIRST = datetime(2026, 3, 30, 12, tzinfo=UTC)
SECOND = datetime(2026, 4, 2, 9, 5, tzinfo=UTC)
THIRD = datetime(2026, 4, 3, 10, tzinfo=UTC)
# v2's changes in changelog order: new, moved, retitled, cancelled.
IDS = {
    "Open Source Panel": "3c007d4aca",
    "Compilers for Everyone": "eebc480700",
    "Serving Large Language Models at Scale": "36f2f8b98d",
    "Graph Breaks Explained": "1b5fb92284",
}
V2_ITEMS = [
    "Open Source Panel: Tue 7 Apr 17:00–17:45, Master Stage",
    "Compilers for Everyone: Tue 7 Apr 11:00–11:30, Master Stage → Tue 7 Apr 12:00–12:30, Junior Stage",
    "Serving Large Language Models at Scale: was “Serving LLMs at Scale”",
    "Graph Breaks Explained: Tue 7 Apr 15:00–15:30, Junior Stage",
]


def ingest(store: Store, name: str, now: datetime) -> None:
    store.ingest(load_schedule([str(CHANGES / name)], None).schedule, now=now)


def http(store: Store, base_url: str = "http://testserver") -> Http:
    return Http(create_app(store), base_url=base_url)


def entries_of(html: str) -> list[tuple[str, list[str]]]:
    """(section id, its list items as text) of every changelog entry on the page."""
    found = []
    for section_id, body in re.findall(r'<section class="change-entry" id="(v\d+)".*?>(.*?)</section>', html, re.S):
        items = [re.sub(r"<[^>]+>", "", li) for li in re.findall(r"<li[^>]*>(.*?)</li>", body, re.S)]
        found.append((section_id, items))
    return found


@pytest.fixture
def store(tmp_path: Path) -> Store:
    opened = Store.open(str(tmp_path / "store.sqlite"))
    ingest(opened, "v1.ics", FIRST)
    return opened


def test_one_ingest_is_one_entry_with_exactly_its_changes(store: Store) -> None:
    before = http(store).get("/changes/").text

    ingest(store, "v2.ics", SECOND)
    after = http(store).get("/changes/").text

    assert entries_of(before) == [("v1", [])]
    assert entries_of(after) == [
        ("v2", V2_ITEMS),
        ("v1", []),
    ]
    assert "The schedule was published with 7 sessions." in after
    assert re.findall(r'href="\.\./sessions/([0-9a-f]+)/"', after) == list(IDS.values())


def test_the_server_reads_the_first_versions_rows_no_later_version_wrote_from_its_snapshot(
    store: Store, tmp_path: Path
) -> None:
    db = str(store.engine.url.database)
    out = tmp_path / "site"
    with store.engine.begin() as conn:  # rows that would fail to parse, were they read
        conn.execute(version_content.update().values(sessions=zlib.compress(b"not rows")))

    page = http(store).get("/changes/").text
    code = main(["build", "--db", db, str(out)])

    assert entries_of(page) == [("v1", [])]
    assert "The schedule was published with 7 sessions." in page
    assert code == 0
    assert (out / "changes" / "index.html").read_text() == page


def test_atom_feed_has_one_entry_per_version_and_parses(store: Store) -> None:
    ingest(store, "v2.ics", SECOND)

    reply = http(store).get("/changes.atom")
    parsed = feedparser.parse(reply.content)

    assert reply.headers["content-type"] == "application/atom+xml; charset=utf-8"
    assert parsed.bozo == 0
    assert parsed.version == "atom10"
    assert [(e.title, e.updated) for e in parsed.entries] == [
        ("Schedule updated (version 2)", "2026-04-02T09:05:00Z"),
        ("Schedule published (version 1)", "2026-03-30T12:00:00Z"),
    ]
    newest = parsed.entries[0].content[0].value
    assert [re.sub(r"<[^>]+>", "", li) for li in re.findall(r"<li>(.*?)</li>", newest)] == V2_ITEMS
    assert re.findall(r'<a href="http://testserver/sessions/([0-9a-f]+)/">', newest) == list(IDS.values())
    assert parsed.feed.updated == "2026-04-02T09:05:00Z"


def test_atom_ids_are_stable_across_hosts_and_new_versions(store: Store) -> None:
    ingest(store, "v2.ics", SECOND)
    first = feedparser.parse(http(store).get("/changes.atom").content)

    ingest(store, "v1.ics", THIRD)
    again = feedparser.parse(http(store, "https://cal.example.org").get("/changes.atom").content)

    assert [e.id for e in again.entries][1:] == [e.id for e in first.entries]
    assert again.entries[0].id.startswith("urn:uuid:")
    assert len({e.id for e in again.entries}) == 3


def test_version_that_changed_nothing_visible_is_not_listed(store: Store) -> None:
    ingest(store, "v2.ics", SECOND)
    before = (http(store).get("/changes/").text, http(store).get("/changes.atom").content)

    ingest(store, "v3.ics", THIRD)  # only a description edited
    after = (http(store).get("/changes/").text, http(store).get("/changes.atom").content)

    assert store.version() == 3
    assert after == before


def test_rollback_is_an_entry(store: Store) -> None:
    ingest(store, "v2.ics", SECOND)
    store.rollback(1, now=THIRD)

    page = http(store).get("/changes/").text

    assert [section for section, _ in entries_of(page)] == ["v3", "v2", "v1"]
    assert "Rolled back to version 1" in page


def test_changelog_documents_revalidate(store: Store) -> None:
    client = http(store)
    for path in ("/changes/", "/changes.atom", "/api/changes", "/c/change-conf-2026/changes/"):
        etag = client.get(path).headers["etag"]

        assert client.get(path, if_none_match=etag).status == 304


def test_recent_changes_by_session_for_the_page(store: Store) -> None:
    ingest(store, "v2.ics", SECOND)

    document = http(store).get("/api/changes").json_doc()

    assert document["version"] == 2
    assert [c["version"] for c in document["changes"]] == [2]
    assert document["changes"][0]["sessions"] == {
        IDS["Compilers for Everyone"]: [
            {
                "kind": "moved",
                "title": "Compilers for Everyone",
                "text": "Tue 7 Apr 11:00–11:30, Master Stage → Tue 7 Apr 12:00–12:30, Junior Stage",
            }
        ],
        IDS["Serving Large Language Models at Scale"]: [
            {
                "kind": "retitled",
                "title": "Serving Large Language Models at Scale",
                "text": "was “Serving LLMs at Scale”",
            }
        ],
        IDS["Graph Breaks Explained"]: [
            {"kind": "cancelled", "title": "Graph Breaks Explained", "text": "Tue 7 Apr 15:00–15:30, Junior Stage"}
        ],
    }


def test_page_links_to_the_changelog(store: Store) -> None:
    page = http(store).get("/").text

    assert re.findall(r'<a href="([^"]+)">Schedule changes</a>', page) == ["changes/"]


def test_build_writes_the_changelog_as_served(store: Store, tmp_path: Path) -> None:
    ingest(store, "v2.ics", SECOND)
    db = str(store.engine.url.database)
    out = tmp_path / "site"
    served = http(store, "https://cal.example.org")

    code = main(["build", "--db", db, "--base-url", "https://cal.example.org", str(out)])

    assert code == 0
    for path, file in (
        ("/changes/", "changes/index.html"),
        ("/changes.atom", "changes.atom"),
        ("/api/changes", "api/changes.json"),
        ("/c/change-conf-2026/changes.atom", "c/change-conf-2026/changes.atom"),
    ):
        assert (out / file).read_bytes() == served.get(path).content
