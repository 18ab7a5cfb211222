"""A lone CR inside a Sched page's title line: the session is kept, whole, as in the page without it."""

from __future__ import annotations

from pathlib import Path

from feeds.pipeline import load_schedule


def seed_page(shared_data: Path) -> Path:
    return shared_data.parent / "seeds" / "000_6d989ba89a10ee92.txt"


def test_a_lone_cr_in_a_title_line_keeps_the_session(shared_data: Path, tmp_path: Path) -> None:
    original = seed_page(shared_data)
    damaged = tmp_path / original.name
    text = original.read_bytes()
    damaged.write_bytes(text.replace(b"Jacobian Descent in PyTorch", b"Jacobian Descent\rin PyTorch", 1))

    clean = load_schedule([str(original)], "Europe/Paris")
    loaded = load_schedule([str(damaged)], "Europe/Paris")

    assert damaged.read_bytes().count(b"\r") == 1
    assert [(s.id, s.title, s.start, s.speakers) for s in loaded.schedule.sessions] == [
        (s.id, s.title, s.start, s.speakers) for s in clean.schedule.sessions
    ]
    assert ([w.message for w in loaded.warnings], loaded.defects) == ([w.message for w in clean.warnings], ())


def test_a_lone_cr_in_a_title_line_of_a_page_with_crlf_lines_keeps_the_session(
    shared_data: Path, tmp_path: Path
) -> None:
    original = seed_page(shared_data)
    damaged = tmp_path / original.name
    text = original.read_bytes().replace(b"\n", b"\r\n")
    damaged.write_bytes(text.replace(b"Jacobian Descent in PyTorch", b"Jacobian Descent\rin PyTorch", 1))

    clean = load_schedule([str(original)], "Europe/Paris")
    loaded = load_schedule([str(damaged)], "Europe/Paris")

    assert [s.title for s in loaded.schedule.sessions] == [s.title for s in clean.schedule.sessions]
    assert len(loaded.schedule.sessions) == 6
