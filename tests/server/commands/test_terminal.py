"""Control and bidi characters from sources reach the terminal escaped, through every command's
output and error line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.cli import main
from server.commands.terminal import safe, safe_lines

HOSTILE = Path(__file__).resolve().parents[2] / "fixtures" / "terminal" / "hostile_titles.txt"
DANGEROUS = {*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), "\u061c", "\u200e", "\u200f"} | {
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
    "\u2028",
    "\u2029",
}


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # OSC: retitles the window
        ("\x1b[2J", "\\x1b[2J"),  # CSI: clears the screen
        ("\x9b31m", "\\x9b31m"),  # C1 CSI in one character
        ("a\rb\nc\td\x00\x7f", "a\\x0db\\x0ac\\x09d\\x00\\x7f"),
        ("\u202egnp.exe\u202c", "\\u202egnp.exe\\u202c"),  # right-to-left override
        ("\u2066x\u2069 \u200e\u200f\u061c", "\\u2066x\\u2069 \\u200e\\u200f\\u061c"),
        ("\u2028\u2029", "\\u2028\\u2029"),
    ],
)
def test_each_class_is_escaped(raw: str, shown: str) -> None:
    assert safe(raw) == shown


@given(st.text())
def test_nothing_dangerous_survives_and_the_rest_is_unchanged(text: str) -> None:
    shown = safe(text)

    assert not DANGEROUS & set(shown)
    if not DANGEROUS & set(text):
        assert shown == text


def test_safe_lines_keeps_the_line_breaks_between_lines() -> None:
    assert safe_lines("one\x1b[A\ntwo") == "one\\x1b[A\ntwo"
    assert safe_lines(["one\ntwo", "three"]) == "one\\x0atwo\nthree"


def test_ingest_prints_hostile_titles_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ingest", "--db", str(tmp_path / "s.sqlite"), "--tz", "Europe/Paris", str(HOSTILE)])

    out = capsys.readouterr().out
    assert code == 0
    assert not DANGEROUS - {"\n"} & set(out)
    titled = [line for line in out.splitlines() if "CUDA Graphs" in line]
    assert [line.split(maxsplit=2)[2] for line in titled] == [
        "CUDA Graphs\\x1b]0;pwned\\x07 Without the Pain\\x1b[2J: \\u202eParameterized\\u202c Graph "
        "\\u2066Launch\\u2069 in\\x9b31m PyTorch\\x7f"
    ]


def test_an_error_line_is_escaped_and_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "page\x1b]0;pwned\x07.txt"
    empty.write_bytes(b"")

    file_code = main(["ingest", "--db", str(tmp_path / "s.sqlite"), str(empty)])
    file_err = capsys.readouterr().err
    url_code = main(["ingest", "--db", str(tmp_path / "s.sqlite"), "http://organiser:hunter2@127.0.0.1:9/page"])
    url_err = capsys.readouterr().err

    assert (file_code, url_code) == (1, 1)
    assert file_err == f"confcal ingest: error: {tmp_path}/page\\x1b]0;pwned\\x07.txt: is empty\n"
    assert url_err.startswith("confcal ingest: error: http://***@127.0.0.1:9/page: host 127.0.0.1 is a private address")
