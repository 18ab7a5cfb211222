"""What sources carry beyond the basics (links with their kind and title, language, subtitle,
do-not-record) is kept, written into the frab/c3voc exports and read back alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from feeds.exports import EXPORTERS
from feeds.model import Link, Schedule
from feeds.pipeline import load_documents, load_schedule
from feeds.sources.documents import Document
from feeds.web_links import as_uri
from tests.helpers.paths import SHARED

NOW = datetime(2026, 4, 1, tzinfo=UTC)


def extras(schedule: Schedule, uri: bool = False) -> dict[str, tuple[object, ...]]:
    """Each session's extras; `uri`: its links' addresses as a strict URI (the c3voc JSON's form)."""
    return {
        s.title: (
            frozenset(dataclasses.replace(k, url=as_uri(k.url)) if uri else k for k in s.links),
            s.language,
            s.subtitle,
            s.do_not_record,
        )
        for s in schedule.sessions
        if not s.cancelled
    }


@pytest.fixture(scope="module")
def fosdem() -> Schedule:
    return load_schedule([str(SHARED / "data" / "fosdem_2025_schedule.xml")]).schedule


def test_fosdem_keeps_its_links_and_attachments_with_kind_and_title(fosdem: Schedule) -> None:
    nova = next(s for s in fosdem.sessions if s.title == "A Formal Specification of the NOVA Microhypervisor")

    assert (sum(len(s.links) for s in fosdem.sessions), nova.links, nova.language) == (
        738,
        (
            Link(
                "https://github.com/bedrocksystems/fm-releases/tree/main/nova_interface.2024-04-16",
                "Formal proof development (in Rocq) of the NOVA formal specification (2024-04-16)",
                "link",
            ),
            Link(
                "https://fosdem.org/2025/events/attachments/fosdem-2025-5083-a-formal-specification-of-the-nova-microhypervisor/slides/23385/paper_WDpfx6o.pdf",
                "Technical report of the NOVA formal specification",
                "slides",
            ),
        ),
        "en",
    )


@pytest.mark.parametrize("exporter", ["frab-xml", "c3voc-json"])
def test_the_exports_carry_the_extras_back(fosdem: Schedule, exporter: str) -> None:
    body = EXPORTERS[exporter].render(fosdem, now=NOW)

    back = load_documents([Document(f"export.{exporter}", body.decode())]).schedule

    assert extras(back) == extras(fosdem, uri=exporter == "c3voc-json")


@pytest.mark.parametrize("exporter", ["frab-xml", "c3voc-json"])
def test_do_not_record_survives_the_exports(exporter: str) -> None:
    rc3 = load_schedule([str(SHARED / "data" / "pretalx_rc3_2020_schedule.json")], "Europe/Berlin").schedule
    body = EXPORTERS[exporter].render(rc3, now=NOW)

    back = load_documents([Document(f"export.{exporter}", body.decode())], "Europe/Berlin").schedule

    assert (
        sorted(s.title for s in back.sessions if s.do_not_record),
        len([s for s in rc3.sessions if s.do_not_record]),
    ) == (
        sorted(s.title for s in rc3.sessions if s.do_not_record),
        3,
    )


def test_the_exports_with_extras_still_validate(
    fosdem: Schedule, frab_xsd: Callable[[bytes], list[str]], c3voc_schema: Callable[[bytes], list[str]]
) -> None:
    assert frab_xsd(EXPORTERS["frab-xml"].render(fosdem, now=NOW)) == []
    assert c3voc_schema(EXPORTERS["c3voc-json"].render(fosdem, now=NOW)) == []
