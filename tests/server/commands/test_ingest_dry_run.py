"""`confcal ingest --dry-run`: the diff a real ingest would publish, marked, and the
store left byte for byte as it was, refused ingests included."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.cli import main
from server.commands.ingest import DRY_RUN

INGEST = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
ORIGINAL = str(INGEST / "original")
EDITED_PAGE = INGEST / "edited" / "002_f0fe97cd188ad8b4.txt"
EDITED = [str(p) for p in sorted(Path(ORIGINAL).glob("*.txt")) if p.name != EDITED_PAGE.name] + [str(EDITED_PAGE)]


@pytest.fixture
def db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "store.sqlite"
    assert main(["ingest", "--db", str(path), "--tz", "Europe/Paris", ORIGINAL]) == 0
    capsys.readouterr()
    return path


def test_dry_run_prints_the_real_ingests_lines_marked_and_stores_nothing(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = db.read_bytes()

    code = main(["ingest", "--db", str(db), "--tz", "Europe/Paris", "--dry-run", *EDITED])
    preview = capsys.readouterr().out.splitlines()
    after = db.read_bytes()
    main(["ingest", "--db", str(db), "--tz", "Europe/Paris", *EDITED])
    real = capsys.readouterr().out.splitlines()

    assert code == 0
    assert after == before
    assert preview[0] == DRY_RUN
    assert preview[1:] == real
    assert real[1].startswith("version 2: 0 added, 2 changed, 1 cancelled")


def test_refused_dry_run_leaves_the_store_byte_identical(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = db.read_bytes()

    code = main(["ingest", "--db", str(db), "--tz", "Europe/Paris", "--dry-run", str(EDITED_PAGE)])
    err = capsys.readouterr().err

    assert code == 1
    assert err.startswith("confcal ingest: error: ingest refused: it would cancel")
    assert db.read_bytes() == before


def test_dry_run_does_not_create_a_missing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "new.sqlite"

    code = main(["ingest", "--db", str(target), "--tz", "Europe/Paris", "--dry-run", ORIGINAL])
    lines = capsys.readouterr().out.splitlines()

    assert code == 0
    assert lines[0] == DRY_RUN
    assert lines[2].startswith("version 1: 28 added")
    assert not target.exists()
