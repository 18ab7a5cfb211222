"""The frab/pentabarf/c3voc schedule.xml reader on FOSDEM 2025, 38C3 and small fixtures."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from feeds.demo import DEMO_DIR
from feeds.errors import SourceError
from feeds.sources.documents import Document, read_path
from feeds.sources.frab_xml import READER
from feeds.sources.records import SourceBatch


def read(path: Path) -> SourceBatch:
    return READER.read([read_path(path)], None)


@pytest.fixture(scope="module")
def fosdem(shared_data: Path) -> SourceBatch:
    return read(shared_data / "fosdem_2025_schedule.xml")


@pytest.fixture(scope="module")
def congress(shared_data: Path) -> SourceBatch:
    return read(shared_data / "ccc_38c3_2024_schedule.xml")


def test_recognises_both_xml_samples_and_nothing_else(shared_data: Path) -> None:
    recognised = sorted(p.name for p in shared_data.iterdir() if READER.recognises(read_path(p)))
    seeds = [p for p in DEMO_DIR.iterdir() if READER.recognises(read_path(p))]

    assert (recognised, seeds) == (["ccc_38c3_2024_schedule.xml", "fosdem_2025_schedule.xml"], [])


def test_recognises_content_not_file_name() -> None:
    doc = Document("schedule.txt", "<?xml version='1.0'?>\n<!-- frab -->\n<schedule>\n</schedule>\n")
    html = Document("schedule.xml", "<html><body>schedule</body></html>")

    assert (READER.recognises(doc), READER.recognises(html)) == (True, False)


def test_fosdem_every_event_with_its_guid_and_zone(fosdem: SourceBatch) -> None:
    ids = Counter(s.source_id for s in fosdem.sessions)

    assert (len(fosdem.sessions), len(ids), max(ids.values())) == (943, 943, 1)
    assert (fosdem.conference, fosdem.zone, fosdem.defects, fosdem.warnings) == (
        "FOSDEM 2025",
        "Europe/Brussels",
        (),
        (),
    )


def test_fosdem_event_fields(fosdem: SourceBatch) -> None:
    (event,) = [s for s in fosdem.sessions if s.source_id == "852280ac-61d3-588c-b74c-8d87f9d9d2c6"]

    assert event.title == "A New Approach to Callee-Saved Registers in LLVM"
    assert (event.start, event.end) == (
        datetime(2025, 2, 1, 9, 35, tzinfo=UTC),
        datetime(2025, 2, 1, 10, 0, tzinfo=UTC),
    )
    assert (event.room, event.track, event.kind) == ("K.3.201", "LLVM", "devroom")
    assert [p.name for p in event.speakers] == ["Mikhail Gudim"]
    assert (
        event.url
        == "https://fosdem.org/2025/schedule/event/fosdem-2025-6210-a-new-approach-to-callee-saved-registers-in-llvm/"
    )
    # FOSDEM writes HTML abstracts; calendars get the text.
    assert event.description.startswith("Currently LLVM saves and restores")
    assert "<p>" not in event.description


def test_38c3_events_after_midnight_keep_their_next_day_date(congress: SourceBatch) -> None:
    berlin = ZoneInfo("Europe/Berlin")
    after_midnight = [s for s in congress.sessions if s.start.astimezone(berlin).hour < 6]

    assert (len(congress.sessions), congress.zone, len(after_midnight)) == (1007, "Europe/Berlin", 58)
    assert all(s.start.astimezone(berlin).date() > date(2024, 12, 27) for s in after_midnight)


def test_38c3_fields(congress: SourceBatch) -> None:
    (opening,) = [s for s in congress.sessions if s.source_id == "270fa44c-821a-577f-8ca3-33e8d4a8c2a7"]

    assert (opening.title, opening.kind, opening.track, opening.room) == (
        "38C3: Opening Ceremony",
        "Ceremony",
        "CCC",
        "Saal 1",
    )
    assert opening.end - opening.start == timedelta(minutes=30)
    assert [p.name for p in opening.speakers] == ["Gabriela Bogk", "Senficon", "Aline Blankertz"]
    assert opening.description.startswith("Glad you could make it!")
    assert opening.description.endswith("Let's kick this thing off together!")
    assert (opening.line, congress.url) == (24, "https://events.ccc.de/congress/2024/hub/")


def test_without_date_the_day_change_moves_early_events_to_the_next_day(fixtures: Path) -> None:
    batch = read(fixtures / "frab" / "day_change.xml")
    late, night = batch.sessions

    assert (late.start, late.end, late.zone) == (
        datetime(2024, 12, 27, 23, 0),
        datetime(2024, 12, 27, 23, 45),
        "Europe/Berlin",
    )
    # D:HH:MM: a day and two hours.
    assert (night.start, night.end) == (datetime(2024, 12, 28, 1, 30), datetime(2024, 12, 29, 3, 30))
    assert (late.source_id, late.room, late.kind, late.speakers[0].name) == ("11", "Hall A", "lecture", "Ada Lovelace")
    assert (night.url, night.line) == ("https://example.org/night", 19)


def test_a_bad_event_is_a_defect_naming_its_line_and_the_rest_is_read(fixtures: Path) -> None:
    batch = read(fixtures / "frab" / "bad_event.xml")

    assert [s.title for s in batch.sessions] == ["Fine"]
    assert [str(d) for d in batch.defects] == [
        f"{fixtures / 'frab' / 'bad_event.xml'}:6: duration 'half an hour' is not HH:MM or D:HH:MM"
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "billion_laughs.xml",
            ":3: XML refused: EntitiesForbidden (entity declarations and external references are not allowed)",
        ),
        (
            "external_entity.xml",
            ":3: XML refused: EntitiesForbidden (entity declarations and external references are not allowed)",
        ),
        ("truncated.xml", ":35: is not well-formed XML: unclosed token (column 5)"),
    ],
)
def test_dangerous_or_broken_xml_is_refused_with_one_line(fixtures: Path, name: str, expected: str) -> None:
    path = fixtures / "frab" / name

    with pytest.raises(SourceError) as caught:
        read(path)

    assert str(caught.value) == f"{path}{expected}"


def test_billion_laughs_is_refused_before_any_expansion(fixtures: Path) -> None:
    # In a child process with a 200 MB address-space cap: an expanding parser would need ~3 GB.
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (200 * 2**20, 200 * 2**20))\n"
        "from feeds.errors import SourceError\n"
        "from feeds.sources.documents import read_path\n"
        "from feeds.sources.frab_xml import READER\n"
        "from pathlib import Path\n"
        "try:\n"
        "    READER.read([read_path(Path(sys.argv[1]))], None)\n"
        "except SourceError as exc:\n"
        "    print(exc)\n"
    )
    path = fixtures / "frab" / "billion_laughs.xml"

    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=False)

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.endswith("EntitiesForbidden (entity declarations and external references are not allowed)\n")


def test_a_schedule_without_events_is_not_a_schedule() -> None:
    doc = Document("empty.xml", "<schedule><conference><title>X</title></conference></schedule>")

    with pytest.raises(SourceError) as caught:
        READER.read([doc], None)

    assert str(caught.value) == "empty.xml:1: holds no <event> in any <day>/<room>"


def test_a_schedule_whose_every_event_is_broken_is_one_line_naming_the_first() -> None:
    text = (
        "<schedule><conference><title>X</title></conference>\n<day date='2025-02-01'><room name='A'>\n"
        "<event id='1'><start>10:00</start><duration>x</duration><title>A</title></event>\n"
        "<event id='2'><start>99:00</start><duration>00:30</duration><title>B</title></event>\n"
        "</room></day></schedule>"
    )

    with pytest.raises(SourceError) as caught:
        READER.read([Document("broken.xml", text)], None)

    assert (
        str(caught.value)
        == "broken.xml:4: no event can be read: start '99:00' is not HH:MM (and 1 more unreadable events)"
    )
