"""`confcal history`: versions newest first with their counts and time."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from feeds.pipeline import load_schedule
from server.cli import main
from server.store import Store

INGEST = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
ORIGINAL = str(INGEST / "original")
EDITED_PAGE = INGEST / "edited" / "002_f0fe97cd188ad8b4.txt"
EDITED = [str(p) for p in sorted(Path(ORIGINAL).glob("*.txt")) if p.name != EDITED_PAGE.name] + [str(EDITED_PAGE)]
SLUG = "pytorch-conference-europe-2026"


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "store.sqlite")
    with Store.open(path) as store:
        store.ingest(load_schedule([ORIGINAL], "Europe/Paris").schedule, now=datetime(2026, 3, 30, 12, tzinfo=UTC))
        store.ingest(load_schedule(EDITED, "Europe/Paris").schedule, now=datetime(2026, 4, 2, 9, 5, tzinfo=UTC))
    return path


def test_history_lists_versions_newest_first_with_counts_and_time(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["history", "--db", db])

    assert code == 0
    assert capsys.readouterr().out.splitlines() == [
        f"version 2  2026-04-02 09:05 UTC  {SLUG}: 0 added, 2 changed, 1 cancelled, 0 restored",
        f"version 1  2026-03-30 12:00 UTC  {SLUG}: 28 added, 0 changed, 0 cancelled, 0 restored",
    ]


def test_history_of_one_conference_and_of_an_unknown_one(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    known = main(["history", "--db", db, "--conference", SLUG])
    lines = capsys.readouterr().out.splitlines()
    unknown = main(["history", "--db", db, "--conference", "nope"])
    err = capsys.readouterr().err

    assert (known, len(lines)) == (0, 2)
    assert unknown == 1
    assert err == "confcal history: error: the store holds no conference 'nope'\n"
