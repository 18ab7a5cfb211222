"""The source's links, listed in DESCRIPTION, read alike by the seven clients."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from feeds.ical import render_calendar, uid
from feeds.ical.event import description
from feeds.pipeline import load_schedule
from tests.helpers import khal
from tests.helpers.paths import SHARED
from tests.helpers.source_server import page_server
from tests.interop.clients import JS_PARSERS, _run_icaljs

if TYPE_CHECKING:
    from tests.interop.conftest import Fields

NOVA = "A Formal Specification of the NOVA Microhypervisor"


def test_links_in_the_description_are_read_alike_by_seven_clients(
    read_fields: Callable[[bytes, Path], dict[str, Fields]], tmp_path: Path
) -> None:
    schedule = load_schedule([str(SHARED / "data" / "fosdem_2025_schedule.xml")]).schedule
    session = next(s for s in schedule.sessions if s.title == NOVA)
    data = render_calendar(schedule.conference, [session], title="links")
    expected = description(session, session.url)
    event = uid(schedule.conference, session)

    read = {client: fields[event][1] for client, fields in read_fields(data, tmp_path / "links.ics").items()}
    for parser in JS_PARSERS:
        read[parser] = _run_icaljs([tmp_path / "links.ics"], parser)[str(tmp_path / "links.ics")][0]["description"]
    with page_server() as server:
        (by_khal,) = khal.read_subscription(server.put("/links.ics", data), tmp_path / "khal")
    read["khal"] = by_khal.description

    assert expected.endswith(
        "Slides: Technical report of the NOVA formal specification https://fosdem.org/2025/events/attachments/"
        "fosdem-2025-5083-a-formal-specification-of-the-nova-microhypervisor/slides/23385/paper_WDpfx6o.pdf"
    )
    assert read == dict.fromkeys(read, expected)
    assert len(read) == 7
