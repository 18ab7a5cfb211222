"""Several schedule.xml or schedule.json documents read as one schedule (frab_common.joined_batches):
some conferences publish one per day or per stage."""

from __future__ import annotations

from datetime import time
from pathlib import Path

import pytest

from feeds.errors import SourceError
from feeds.sources import Reader
from feeds.sources.documents import Document, read_path
from feeds.sources.frab_json import READER as JSON_READER
from feeds.sources.frab_xml import READER as XML_READER

CAMP, RC3 = "frab_camp2019_schedule.json", "pretalx_rc3_2020_schedule.json"


def documents(shared_data: Path, *names: str) -> list[Document]:
    """The files of ../shared/data named, in that order."""
    return [read_path(shared_data / name) for name in names]


def test_json_documents_give_every_session_and_the_first_ones_name_link_and_day_change(shared_data: Path) -> None:
    batch = JSON_READER.read(documents(shared_data, CAMP, RC3), None)

    assert len(batch.sessions) == 79 + 48
    assert (batch.conference, batch.url) == (
        "Chaos Communication Camp 2019",
        "https://fahrplan.events.ccc.de/camp/2019/Fahrplan/",
    )
    assert (batch.zone, batch.day_change) == ("Europe/Berlin", time(9))


def test_the_zone_one_document_states_holds_for_all_whichever_comes_first(shared_data: Path) -> None:
    # rC3's file states offsets and no zone; the camp's states Europe/Berlin.
    batch = JSON_READER.read(documents(shared_data, RC3, CAMP), None)

    assert (batch.conference, batch.zone, batch.day_change) == ("rC3 Channels", "Europe/Berlin", time(4))


@pytest.mark.parametrize(
    ("reader", "names", "zones"),
    [
        (XML_READER, ("ccc_38c3_2024_schedule.xml", "fosdem_2025_schedule.xml"), "Europe/Berlin, Europe/Brussels"),
        (JSON_READER, ("pretalx_democon_schedule.json", "frab_camp2019_schedule.json"), "Etc/GMT-1, Europe/Berlin"),
    ],
)
def test_documents_stating_different_zones_are_refused_naming_both(
    shared_data: Path, reader: Reader, names: tuple[str, str], zones: str
) -> None:
    given = documents(shared_data, *names)

    with pytest.raises(SourceError) as raised:
        reader.read(given, None)

    assert str(raised.value) == f"the documents state different time zones: {zones}"
