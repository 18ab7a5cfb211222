from __future__ import annotations

from feeds.ical.contentline import ensure_folded, fold_line, refold, unfold, well_folded


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


def test_continuation_lines_fill_75_octets_counting_their_leading_space() -> None:
    line = "DESCRIPTION:" + "x" * 200

    folded = fold_line(line)

    assert [len(physical) for physical in folded.split(b"\r\n")] == [75, 75, 64, 0]


def test_unfold_joins_on_a_space_or_a_tab_and_keeps_spaces_inside_lines() -> None:
    data = b"SUMMARY:Opening \r\n talk\r\nLOCATION:Room\r\n\tA\r\n"

    assert unfold(data) == [b"SUMMARY:Opening talk", b"LOCATION:RoomA"]


def test_refold_gives_each_logical_line_its_own_folded_lines() -> None:
    data = b"SUMMARY:" + b"s" * 70 + b"\r\nUID:one\r\n"

    assert refold(data) == b"SUMMARY:" + b"s" * 67 + b"\r\n sss\r\nUID:one\r\n"


def test_a_line_over_75_octets_is_not_well_folded_even_with_spaces_in_it() -> None:
    assert [well_folded(b"X" * 76), well_folded(b"SUMMARY:" + b"a b " * 20)] == [False, False]


def test_ensure_folded_keeps_good_bytes_and_repairs_bad_ones() -> None:
    good = b"SUMMARY:" + b"s" * 66 + b"\r\n s\r\n"  # 74 octets, as icalendar folds
    bad = b"SUMMARY:" + b"s" * 70 + b"\r\n"

    assert (ensure_folded(good), ensure_folded(bad)) == (good, refold(bad))
    assert refold(bad) != bad
