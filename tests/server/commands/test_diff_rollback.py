"""`confcal diff` and `confcal rollback`, on the tests/fixtures/changes snapshots."""

from __future__ import annotations

from pathlib import Path

import icalendar
import pytest

from server.cli import main
from tests.helpers.vevents import sequence

CHANGES = Path(__file__).resolve().parents[2] / "fixtures" / "changes"
SLUG = "change-conf-2026"


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "store.sqlite")
    for name in ("v1.ics", "v2.ics"):
        assert main(["ingest", "--db", path, str(CHANGES / name)]) == 0
    capsys.readouterr()
    return path


def feed_events(db: str, tmp_path: Path) -> dict[str, tuple[str, str, int, str]]:
    """What a subscribed client reads: the all-sessions feed, parsed (title -> start, room, SEQUENCE, status)."""
    out = tmp_path / "all.ics"
    assert main(["export", "--db", db, "--format", "ics", str(out)]) == 0
    calendar = icalendar.Calendar.from_ical(out.read_bytes())
    return {
        str(e["SUMMARY"]): (
            e.decoded("DTSTART").strftime("%H:%M %Z"),
            str(e.get("LOCATION")),
            sequence(e),
            str(e.get("STATUS", "CONFIRMED")),
        )
        for e in calendar.walk("VEVENT")
    }


def test_diff_names_new_moved_retitled_and_cancelled_sessions(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["diff", "--db", db, "1", "2"])

    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split(None, 2)[::2] for line in out[1:]] == [
        ["new", "Open Source Panel (Tue 7 Apr 17:00–17:45, Master Stage)"],
        ["moved", "Compilers for Everyone: Tue 7 Apr 11:00–11:30, Master Stage → Tue 7 Apr 12:00–12:30, Junior Stage"],
        ["retitled", "Serving LLMs at Scale → Serving Large Language Models at Scale"],
        ["cancelled", "Graph Breaks Explained (Tue 7 Apr 15:00–15:30, Junior Stage)"],
    ]
    assert out[0] == f"version 1 -> 2  {SLUG}: 1 new, 1 moved, 1 retitled, 1 cancelled, 0 restored"


def test_rollback_gives_subscribers_the_old_times_with_higher_sequence(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = feed_events(db, tmp_path)

    code = main(["rollback", "--db", db, "1"])
    printed = capsys.readouterr().out.splitlines()
    after = feed_events(db, tmp_path)

    assert code == 0
    assert printed[:2] == [
        f"{SLUG}: rolled back to version 1",
        "version 3: 0 added, 2 changed, 1 cancelled, 1 restored, 4 unchanged",
    ]
    assert before["Compilers for Everyone"] == ("12:00 CEST", "Junior Stage", 1, "CONFIRMED")
    assert after["Compilers for Everyone"] == ("11:00 CEST", "Master Stage", 2, "CONFIRMED")
    assert after["Serving LLMs at Scale"][2] == before["Serving Large Language Models at Scale"][2] + 1
    assert after["Graph Breaks Explained"] == ("15:00 CEST", "Junior Stage", 2, "CONFIRMED")
    assert after["Open Source Panel"][2:] == (1, "CANCELLED")


def test_rollback_is_listed_by_history(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["rollback", "--db", db, "1"])
    capsys.readouterr()

    main(["history", "--db", db])

    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .endswith(f"{SLUG}: 0 added, 2 changed, 1 cancelled, 1 restored (rollback to version 1)")
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rollback", "9"], "confcal rollback: error: no version 9 in the store"),
        (["diff", "1", "9"], "confcal diff: error: no version 9 in the store"),
        (
            ["diff", "--conference", "other", "1", "2"],
            f"confcal diff: error: version 1 is a version of {SLUG}, not of other",
        ),
    ],
)
def test_bad_version_is_one_line(db: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([argv[0], "--db", db, *argv[1:]])

    assert code == 1
    assert capsys.readouterr().err == message + "\n"
