from __future__ import annotations

from feeds.ical.contentline import fold_line, refold, unfold, well_folded


def test_fold_keeps_multibyte_characters_whole() -> None:
    line = "SUMMARY:" + "é😀" * 60

    folded = fold_line(line)

    assert well_folded(folded)
    assert unfold(folded) == [line.encode()]


def test_refold_repairs_a_line_split_inside_a_character() -> None:
    broken = ("SUMMARY:" + "é" * 40).encode()
    bad = broken[:75] + b"\r\n " + broken[75:] + b"\r\n"  # octet 75 is inside an "é"

    repaired = refold(bad)

    assert (well_folded(bad), well_folded(repaired)) == (False, True)
    assert unfold(repaired) == unfold(bad)


def test_line_of_exactly_75_octets_is_not_folded() -> None:
    line = "X" * 75

    assert fold_line(line) == line.encode() + b"\r\n"
