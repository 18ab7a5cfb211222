"""`confcal source add|list|remove`: what each prints, and bad input as one line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.cli import main
from server.commands.source import format_interval, interval
from server.jobs import jobs_for
from server.jobs.refresh import run_refresh
from server.store import Store
from server.store.sources import SourceStore

URLS = ["https://sched.example.org/list", "https://sched.example.org/detail"]


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "store.sqlite")


def test_add_registers_the_source_and_queues_its_first_run(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["source", "add", *URLS, "--every", "30m", "--tz", "Europe/Paris", "--db", db])

    assert (code, capsys.readouterr().out) == (0, "source 1: 2 URL(s), every 30m\n")
    with Store.open(db) as store:
        (source,) = SourceStore(store.engine).all()
        jobs = jobs_for(store)
        pending = [(task.name, task.args) for task in jobs.queue.pending()]
        jobs.queue.storage.close()
    assert (source.spec.urls, source.spec.interval, source.spec.tz) == (
        tuple(URLS),
        timedelta(minutes=30),
        "Europe/Paris",
    )
    assert pending == [("refresh_source", (1, 0))]


def test_list_shows_last_fetch_result_and_next_run(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["source", "add", *URLS, "--conference", "paris-2026", "--db", db])
    with Store.open(db) as store:
        # The address check refuses before any request: a real, offline refresh.
        run_refresh(store, 1, 0, lambda: datetime(2026, 4, 1, 9, 0, tzinfo=UTC))
    capsys.readouterr()

    main(["source", "list", "--db", db])

    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["1: every 15m, conference paris-2026", f"  {URLS[0]}", f"  {URLS[1]}"]
    assert lines[3].startswith(f"  last fetch: 2026-04-01 09:00:00 UTC: error: {URLS[0]}: ")
    assert lines[4:] == ["  next run: 2026-04-01 09:15:00 UTC"]


def test_list_of_a_new_source_and_of_none(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["source", "list", "--db", db])
    assert capsys.readouterr().out == "no sources\n"
    main(["source", "add", URLS[0], "--every", "2s", "--allow-private", "--format", "sched-page", "--db", db])
    capsys.readouterr()

    main(["source", "list", "--db", db])

    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        "1: every 2s, format sched-page, private addresses allowed",
        f"  {URLS[0]}",
        "  last fetch: never",
    ]


def test_list_hides_passwords_and_escapes_control_characters(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["source", "add", "https://me:secret@sched.example.org/list\x1b]0;owned\x07", "--db", db])
    capsys.readouterr()

    main(["source", "list", "--db", db])

    assert capsys.readouterr().out.splitlines()[1] == "  https://***@sched.example.org/list\\x1b]0;owned\\x07"


def test_remove(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["source", "add", *URLS, "--db", db])
    capsys.readouterr()

    code = main(["source", "remove", "1", "--db", db])

    assert (code, capsys.readouterr().out) == (0, "source 1 removed; the schedule it brought in stays\n")
    with Store.open(db) as store:
        assert SourceStore(store.engine).all() == ()


def test_removing_an_unknown_source_is_one_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["source", "remove", "7", "--db", db])

    assert (code, capsys.readouterr().err) == (
        1,
        "confcal source: error: no source 7 (`confcal source list` shows them)\n",
    )


def test_a_file_is_not_a_source(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["source", "add", "pages/", "--db", db])

    assert (code, capsys.readouterr().err) == (
        1,
        "confcal source: error: pages/: the server fetches a source itself: give http(s) URLs\n",
    )


@pytest.mark.parametrize(("text", "seconds"), [("2s", 2), ("15m", 900), ("2h", 7200), ("1d", 86400)])
def test_intervals(text: str, seconds: int) -> None:
    assert interval(text) == timedelta(seconds=seconds)
    assert format_interval(timedelta(seconds=seconds)) == text


@pytest.mark.parametrize("text", ["0s", "15", "1.5m", "m", "-2s", "2w"])
def test_bad_interval_is_a_usage_error(text: str, db: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["source", "add", URLS[0], "--every", text, "--db", db])

    assert exit_info.value.code == 2
