from __future__ import annotations

import contextlib
import functools
import io
import re
import subprocess
import sys
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.cli import main
from server.store import Store
from tests.helpers.threaded_server import in_thread

INGEST = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
ORIGINAL = str(INGEST / "original")
EDITED_PAGE = str(INGEST / "edited" / "002_f0fe97cd188ad8b4.txt")
SEED_SESSIONS = 28  # distinct sessions on the seed pages, as tests/feeds/test_seed_schedule.py pins


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "store.sqlite")


def bad_sources(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    text = tmp_path / "notes.txt"
    text.write_text("Shopping list\n- eggs - 12\n- milk\n", encoding="utf-8")
    return {
        "missing": str(tmp_path / "missing.txt"),
        "empty": str(empty),
        "binary": str(binary),
        "not a schedule": str(text),
    }


def test_first_ingest_prints_summary_and_exits_zero(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", ORIGINAL])

    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert code == 0
    assert out.err == ""
    # The numbers are the parser's business (tests/feeds); here: that they are all printed.
    assert re.fullmatch(
        r"PyTorch Conference Europe 2026: \d+ sessions, \d+ speakers, \d+ rooms, \d+ tracks, \d+ levels", lines[0]
    )
    assert lines[1] == f"version 1: {SEED_SESSIONS} added, 0 changed, 0 cancelled, 0 restored, 0 unchanged"
    assert lines[0].split(": ")[1].startswith(f"{SEED_SESSIONS} sessions,")
    assert "1 warning:" in lines
    assert lines[-1].startswith(f"  {INGEST / 'original' / '003_8d12cb28771c542b.txt'}:")


def test_reingest_of_edited_pages_lists_the_changes(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["ingest", "--db", db, "--tz", "Europe/Paris", ORIGINAL])
    capsys.readouterr()
    with Store.open(db) as store:
        before = store.live()
    assert before is not None
    ids = {s.title: s.id for s in before.sessions}
    sources = [str(p) for p in sorted(Path(ORIGINAL).glob("*.txt")) if p.name != Path(EDITED_PAGE).name]

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", *sources, EDITED_PAGE])

    lines = capsys.readouterr().out.splitlines()
    moved = ids["Model-Changing Transforms With Torch.compile"]
    retitled = ids["Parameterized CUDA Graph Launch in PyTorch: CUDA Graphs Without the Pain"]
    removed = ids["Optimizing PyTorch on CPU-GPU Coherent Platforms"]
    assert code == 0
    assert lines[1] == f"version 2: 0 added, 2 changed, 1 cancelled, 0 restored, {SEED_SESSIONS - 3} unchanged"
    assert sorted(lines[2:5]) == sorted(
        [
            f"  changed   {retitled} CUDA Graphs Without the Pain: Parameterized Graph Launch in PyTorch (title)",
            f"  changed   {moved} Model-Changing Transforms With Torch.compile (start, end)",
            f"  cancelled {removed} Optimizing PyTorch on CPU-GPU Coherent Platforms",
        ]
    )


def test_refused_ingest_exits_nonzero_and_force_accepts(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["ingest", "--db", db, "--tz", "Europe/Paris", ORIGINAL])
    capsys.readouterr()

    refused = main(["ingest", "--db", db, "--tz", "Europe/Paris", EDITED_PAGE])
    err = capsys.readouterr().err
    forced = main(["ingest", "--db", db, "--tz", "Europe/Paris", "--force", EDITED_PAGE])

    assert refused == 1
    assert err == (
        f"confcal ingest: error: ingest refused: it would cancel {SEED_SESSIONS - 4} of {SEED_SESSIONS} live sessions "
        "(more than a third), "
        "which looks like a broken source; use --force if it is real\n"
    )
    assert forced == 0
    with Store.open(db) as store:
        assert store.version() == 2


def test_db_from_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "env.sqlite"
    monkeypatch.setenv("CONFCAL_DB", str(target))

    code = main(["ingest", "--tz", "Europe/Paris", ORIGINAL])

    assert code == 0
    assert target.is_file()


@pytest.mark.parametrize("kind", ["missing", "empty", "binary", "not a schedule"])
def test_bad_source_is_one_line_and_store_untouched(
    kind: str, db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = bad_sources(tmp_path)[kind]

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", source])

    err = capsys.readouterr().err
    assert code == 1
    assert err.count("\n") == 1
    assert err.startswith(f"confcal ingest: error: {source}")
    assert not Path(db).exists()


def test_bad_source_among_good_ones_leaves_store_unchanged(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["ingest", "--db", db, "--tz", "Europe/Paris", ORIGINAL])
    with Store.open(db) as store:
        before = (store.version(), store.live())

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", ORIGINAL, bad_sources(tmp_path)["empty"]])

    with Store.open(db) as store:
        after = (store.version(), store.live())
    assert code == 1
    assert after == before


@pytest.mark.parametrize("kind", ["missing", "empty", "binary", "not a schedule"])
def test_console_script_reports_bad_source_in_one_line(kind: str, db: str, tmp_path: Path) -> None:
    source = bad_sources(tmp_path)[kind]
    script = Path(sys.executable).parent / "confcal"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "server.cli"]

    done = subprocess.run(
        [*command, "ingest", "--db", db, source], capture_output=True, text=True, timeout=60, check=False
    )

    assert done.returncode == 1
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"confcal ingest: error: {source}")


@pytest.fixture
def fixture_server() -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(INGEST))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with in_thread(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # keep test output clean


def test_url_sources_are_fetched(db: str, fixture_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    urls = [f"{fixture_server}/original/{p.name}" for p in sorted(Path(ORIGINAL).glob("*.txt"))]

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", "--allow-private", *urls])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[1] == f"version 1: {SEED_SESSIONS} added, 0 changed, 0 cancelled, 0 restored, 0 unchanged"


def test_loopback_url_needs_allow_private(db: str, fixture_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"{fixture_server}/original/000_6d989ba89a10ee92.txt"

    code = main(["ingest", "--db", db, url])

    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"confcal ingest: error: {url}: host 127.0.0.1 is a private address")
    assert not Path(db).exists()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(st.binary(max_size=400), st.text(max_size=400).map(str.encode)))
def test_any_file_gets_a_summary_or_one_line(tmp_path: Path, content: bytes) -> None:
    source = tmp_path / "page.txt"
    source.write_bytes(content)
    db = str(tmp_path / "fuzz.sqlite")
    err = io.StringIO()

    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["ingest", "--db", db, "--tz", "Europe/Paris", str(source)])

    assert code in (0, 1)
    if code == 1:
        assert len(err.getvalue().splitlines()) == 1
        assert err.getvalue().startswith("confcal ingest: error: ")


DAMAGED = Path(__file__).resolve().parents[2] / "fixtures" / "sched" / "damaged"
# Each damaged copy of seed page 000 and what the refusal lists for it.
DEFECTS = {
    "day_31.txt": "45: TorchJD: Jacobian Descent in PyTorch: unreadable time line "
    "'Tuesday April 31, 2026 11:45 - 11:55 CEST' (day is out of range for month); the session is left out",
    "hour_25.txt": "74: Bringing Google’s Colossus to PyTorch: Rapid Storage via fsspec to Keep GPUs Busy: "
    "unreadable time line 'Tuesday April 7, 2026 25:00 - 12:10 CEST' (hour must be in 0..23); the session is left out",
    "truncated.txt": "100: Jigsaw: Domain and Tensor Parallelism for High-Resolution Input Training: unreadable time "
    "line 'Tuesday April 7, 2026 15:00 - 15:' (not a complete date and time range); the session is left out",
    "cut_in_half.txt": "119: Optimizing Reinforcement Learning at Trillion-Parameter Scale: session cut off before "
    "its closing time line; its room, track and level are lost",
}


def with_damaged_page(name: str) -> list[str]:
    others = [str(p) for p in sorted(Path(ORIGINAL).glob("*.txt")) if not p.name.startswith("000_")]
    return [str(DAMAGED / name), *others]


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_damaged_source_is_refused_listing_its_defect_and_the_store_stays_byte_identical(
    name: str, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["ingest", "--db", db, "--tz", "Europe/Paris", ORIGINAL])
    before = Path(db).read_bytes()
    capsys.readouterr()

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", *with_damaged_page(name)])

    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines() == [
        "confcal ingest: error: ingest refused: the sources lost data in 1 place, nothing was stored "
        "(fix the sources, or use --force to ingest what could be read):",
        f"  {DAMAGED / name}:{DEFECTS[name]}",
    ]
    assert Path(db).read_bytes() == before


def test_every_defect_of_every_source_is_listed(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    sources = [str(DAMAGED / name) for name in sorted(DEFECTS)]

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", *sources])

    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err[1:] == [f"  {DAMAGED / name}:{DEFECTS[name]}" for name in sorted(DEFECTS)]
    assert not Path(db).exists()


def test_force_ingests_a_damaged_source_and_still_lists_the_defect(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["ingest", "--db", db, "--tz", "Europe/Paris", ORIGINAL])
    capsys.readouterr()

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", "--force", *with_damaged_page("hour_25.txt")])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[1] == f"version 2: 0 added, 0 changed, 1 cancelled, 0 restored, {SEED_SESSIONS - 1} unchanged"
    assert f"  {DAMAGED / 'hour_25.txt'}:{DEFECTS['hour_25.txt']}" in lines


def test_conference_slug_keeps_two_unnamed_exports_apart(
    db: str, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exports = {
        "graphqlconf-2024": ("sched_graphqlconf2024_session_export_excerpt.json", "America/Los_Angeles"),
        "graphqlconf-2025": ("sched_graphqlconf2025_session_export_excerpt.json", "Europe/Amsterdam"),
    }

    codes = [
        main(["ingest", "--db", db, "--tz", zone, "--conference", slug, str(shared_data / name)])
        for slug, (name, zone) in exports.items()
    ]

    with Store.open(db) as store:
        stored = {slug: store.live(slug) for slug in exports}
    assert codes == [0, 0]
    assert {slug: (s.conference.name, s.conference.timezone, len(s.sessions)) for slug, s in stored.items() if s} == {
        "graphqlconf-2024": ("graphqlconf-2024", "America/Los_Angeles", 9),
        "graphqlconf-2025": ("graphqlconf-2025", "Europe/Amsterdam", 6),
    }
