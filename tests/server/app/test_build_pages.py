"""A static build's schedule pages joined from kept parts (build_pages.py): a rebuild after a change
reuses the parts whose inputs it did not touch, and writes what a fresh build writes."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from markupsafe import Markup

from feeds.model import Room, Schedule, Speaker
from server.links import Site
from server.pages import page, page_parts
from server.pages.cards import Card
from server.pages.index_pages import facet_representation
from server.pages.page import day_page_slugs, frame_inputs, page_context, search_representation
from server.pages.page_parts import CardText
from server.pages.subscribe import LISTED_FEEDS
from server.pages.view import View
from server.site.build_output import Output
from server.site.site_build import Kept, site_parts
from server.snapshot.published import Feed, Published
from tests.helpers.build_inspection import site_files
from tests.helpers.crowded import crowded

BASE = "https://cal.example.org"
NOW = datetime(2025, 1, 20, tzinfo=UTC)
SPEAKERS = "subscribe/speaker/index.html"


def build(root: Path, schedule: Schedule) -> dict[str, bytes]:
    """One build of `schedule` into `root`, as `confcal build` writes a conference: every file's bytes."""
    published = Published(schedule, now=NOW, base_url=BASE, lazy=True)
    output = Output(root)
    paths = []
    for path, key, make in site_parts(published, Site.of(BASE), output=output):
        output.put(path, key, make)
        paths.append(path)
    output.finish(())
    return {path: (root / path).read_bytes() for path in paths}


def fresh(schedule: Schedule) -> dict[str, bytes]:
    """The files of `schedule` made from nothing kept."""
    return dict(site_files(Published(schedule, now=NOW, base_url=BASE), Site.of(BASE)))


def edited(schedule: Schedule, session_id: str, **fields: object) -> Schedule:
    return dataclasses.replace(
        schedule,
        sessions=tuple(
            dataclasses.replace(s, **fields) if s.id == session_id else s  # type: ignore[arg-type]
            for s in schedule.sessions
        ),
    )


def edit_in_place(path: Path, old: bytes, new: bytes, later_ns: int) -> None:
    """`old` replaced by `new` (of its size) in the file a build wrote, its modification time
    `later_ns` after the build's: 0 as no build leaves it, a millisecond as an edit by hand
    (not within the clock's step)."""
    written = path.stat()
    path.write_bytes(path.read_bytes().replace(old, new))
    os.utime(path, ns=(written.st_atime_ns, written.st_mtime_ns + later_ns))


def test_a_retitled_session_shows_its_new_title_on_every_page(tmp_path: Path) -> None:
    """A card's markup is kept by its session's content (every field, not its id)."""
    schedule = crowded(LISTED_FEEDS + 1)
    later = edited(schedule, "c0004", title="Talk 4, retitled")
    build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", later)

    assert rebuilt == fresh(later)
    assert [b"Talk 4, retitled" in rebuilt[page] for page in ("index.html", "days/2025-02-01/index.html")] == [
        True,
        True,
    ]


def test_a_session_moved_to_another_day_and_room_is_placed_anew_on_both_days(tmp_path: Path) -> None:
    """The kept cards hold no place in the grid: the move changes the rooms' order (a room's number
    of sessions), so every card of both days moves column; and each day's cards are kept at each
    depth (the first day is on the front page and two directories down on its own). `api/feeds`
    is joined from its kinds' kept entries, the days' made again with their new counts."""
    schedule = crowded(LISTED_FEEDS + 1)
    session = next(s for s in schedule.sessions if s.id == "c0004")  # on the first day
    later = edited(
        schedule,
        "c0004",
        start=session.start + timedelta(days=1, hours=12),
        end=session.end + timedelta(days=1, hours=12),
        room=Room("Room 9"),
    )
    before = build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", later)

    assert rebuilt == fresh(later)
    # The two days' feeds' numbers of events, kept apart from the other kinds' entries.
    assert [rebuilt[path] != before[path] for path in ("index.html", "api/feeds", "api/feeds.json")] == [True] * 3


def test_a_session_moved_on_the_first_day_twice_is_placed_on_both_pages(tmp_path: Path) -> None:
    """The first day's cards are kept at the front page's depth and at its own page's: the second
    rebuild finds the first's cards of either depth, never the other's links."""
    schedule = crowded(LISTED_FEEDS + 1)
    session = next(s for s in schedule.sessions if s.id == "c0004")
    once = edited(schedule, "c0004", start=session.start + timedelta(hours=3), end=session.end + timedelta(hours=3))
    twice = edited(once, "c0006", title="Talk 6, moved as well", room=Room("Room 0"))
    build(tmp_path / "site", schedule)
    build(tmp_path / "site", once)

    rebuilt = build(tmp_path / "site", twice)

    assert rebuilt == fresh(twice)


def test_the_speakers_page_is_remade_when_a_speakers_number_of_events_changes(tmp_path: Path) -> None:
    """subscribe/speaker/ is keyed on the speakers' feeds and each one's number of events."""
    schedule = crowded(LISTED_FEEDS + 1)
    first, second = schedule.sessions[:2]
    busier = edited(schedule, second.id, speakers=(*first.speakers, *second.speakers))
    before = build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", busier)

    assert rebuilt[SPEAKERS] == fresh(busier)[SPEAKERS]
    assert rebuilt[SPEAKERS] != before[SPEAKERS]


def test_the_speakers_page_is_remade_when_a_speakers_name_changes(tmp_path: Path) -> None:
    """... and on each feed's name, whose path (its slug) may stay the same."""
    schedule = crowded(LISTED_FEEDS + 1)
    renamed = edited(schedule, "c0007", speakers=(Speaker("SPEAKER 007"),))
    before = build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", renamed)

    assert rebuilt[SPEAKERS] == fresh(renamed)[SPEAKERS]
    assert b"SPEAKER 007" in rebuilt[SPEAKERS]
    assert [p for p in before if p.startswith("feeds/speaker/speaker-007")] == [
        p for p in rebuilt if p.startswith("feeds/speaker/speaker-007")
    ]


def test_the_speakers_directory_shows_every_change_to_what_an_entry_shows(tmp_path: Path) -> None:
    """The directory is keyed on what each entry shows: a retitled session, a speaker's new bio and
    a speaker's second session each remake it."""
    schedule = crowded(LISTED_FEEDS + 1)
    first, second = schedule.sessions[:2]
    changed = edited(
        edited(
            edited(schedule, "c0004", title="Talk 4, retitled"),
            "c0007",
            speakers=(Speaker("Speaker 007", bio="New bio."),),
        ),
        second.id,
        speakers=(*first.speakers, *second.speakers),
    )
    build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", changed)

    directory = rebuilt["speakers/index.html"]
    assert directory == fresh(changed)["speakers/index.html"]
    assert [b"Talk 4, retitled" in directory, b"New bio." in directory] == [True, True]


def test_a_rebuild_of_the_same_schedule_keeps_the_speakers_directory_as_it_was(tmp_path: Path) -> None:
    schedule = crowded(LISTED_FEEDS + 1)
    before = build(tmp_path / "site", schedule)
    later = edited(schedule, "c0004", title="Talk 4, retitled")
    build(tmp_path / "site", later)

    rebuilt = build(tmp_path / "site", schedule)

    assert rebuilt["speakers/index.html"] == before["speakers/index.html"]


def test_the_speakers_directory_after_changes_one_after_another_is_what_a_fresh_build_writes(tmp_path: Path) -> None:
    """Each rebuild copies the unchanged entries from the file the one before wrote, itself joined
    so: a renamed speaker moves in the directory's order, a new one adds an entry."""
    schedule = crowded(LISTED_FEEDS + 1)
    renamed = edited(schedule, "c0007", speakers=(Speaker("Ärne Ünïcode", slug="speaker-007"),))
    joined = edited(renamed, "c0004", speakers=(Speaker("Zoë Newcomer ☃"),), title="Talk 4, ☃ retitled")
    build(tmp_path / "site", schedule)
    build(tmp_path / "site", renamed)

    rebuilt = build(tmp_path / "site", joined)

    assert rebuilt["speakers/index.html"] == fresh(joined)["speakers/index.html"]


def test_the_speakers_directory_is_made_whole_when_its_last_file_is_not_the_one_recorded(tmp_path: Path) -> None:
    schedule = crowded(LISTED_FEEDS + 1)
    later = edited(schedule, "c0004", title="Talk 4, retitled")
    build(tmp_path / "site", schedule)
    edit_in_place(tmp_path / "site" / "speakers" / "index.html", b"Speaker 006", b"Speaker 00x", 1_000_000)

    rebuilt = build(tmp_path / "site", later)

    assert rebuilt["speakers/index.html"] == fresh(later)["speakers/index.html"]


def test_search_json_joined_from_the_kept_rows_is_what_the_server_answers_after_a_retitle_and_a_move(
    tmp_path: Path,
) -> None:
    """search.json is joined from each session's row as the last build encoded it: the retitled
    session's row is made again, the moved one's too (its day is in its row), the others kept."""
    schedule = crowded(LISTED_FEEDS + 1)
    session = next(s for s in schedule.sessions if s.id == "c0006")
    later = edited(
        edited(schedule, "c0004", title="Talk 4, Ünïcode retitled"),
        "c0006",
        start=session.start + timedelta(days=1),
        end=session.end + timedelta(days=1),
    )
    before = build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", later)

    served = search_representation(Published(later, now=NOW, base_url=BASE)).body
    assert (rebuilt["search.json"], rebuilt["search.json"] == before["search.json"]) == (served, False)


def test_search_json_after_changes_one_after_another_is_what_the_server_answers(tmp_path: Path) -> None:
    """Each rebuild copies the unchanged rows from the file the one before wrote, itself joined so."""
    schedule = crowded(LISTED_FEEDS + 1)
    session = next(s for s in schedule.sessions if s.id == "c0006")
    retitled = edited(schedule, "c0004", title="Talk 4, Ünïcode retitled")
    moved = edited(
        edited(retitled, "c0006", start=session.start + timedelta(days=1), end=session.end + timedelta(days=1)),
        "c0001",
        title="Talk 1, ☃ retitled",
    )
    build(tmp_path / "site", schedule)
    build(tmp_path / "site", retitled)
    build(tmp_path / "site", moved)

    rebuilt = build(tmp_path / "site", schedule)

    assert rebuilt["search.json"] == search_representation(Published(schedule, now=NOW, base_url=BASE)).body


def test_search_json_with_a_new_first_row_before_the_kept_ones_is_what_the_server_answers(tmp_path: Path) -> None:
    """The new row comes first, and the last file's first row right after it."""
    schedule = crowded(LISTED_FEEDS + 1)
    first = min(schedule.sessions, key=lambda s: s.id)
    added = dataclasses.replace(schedule, sessions=(*schedule.sessions, dataclasses.replace(first, id="a0000")))
    build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", added)

    assert rebuilt["search.json"] == search_representation(Published(added, now=NOW, base_url=BASE)).body


def test_search_json_copies_the_days_a_change_leaves_from_the_last_file_unread(tmp_path: Path) -> None:
    """An unchanged day's rows are the kernel's copy of them from the file the last build
    wrote, trusted by its size and modification time: a byte changed under them with both kept
    (which no build does) shows through. Talk 4 is on the first day, talk 5 on the second."""
    schedule = crowded(LISTED_FEEDS + 1)
    later = edited(schedule, "c0004", title="Talk 4, retitled")
    build(tmp_path / "site", schedule)
    edit_in_place(tmp_path / "site" / "search.json", b"talk 5 speaker", b"talk y speaker", 0)

    rebuilt = build(tmp_path / "site", later)

    made = search_representation(Published(later, now=NOW, base_url=BASE)).body
    assert (
        rebuilt["search.json"] == made,
        rebuilt["search.json"] == made.replace(b"talk 5 speaker", b"talk y speaker"),
    ) == (
        False,
        True,
    )


def test_search_json_makes_a_days_rows_again_when_the_last_file_is_not_the_one_recorded(tmp_path: Path) -> None:
    schedule = crowded(LISTED_FEEDS + 1)
    later = edited(schedule, "c0004", title="Talk 4, retitled")
    build(tmp_path / "site", schedule)
    edit_in_place(tmp_path / "site" / "search.json", b"talk 5 speaker", b"talk y speaker", 1_000_000)

    rebuilt = build(tmp_path / "site", later)

    assert rebuilt["search.json"] == search_representation(Published(later, now=NOW, base_url=BASE)).body


def test_a_track_page_copies_the_rows_of_the_sessions_a_change_leaves_from_its_last_file(tmp_path: Path) -> None:
    """Talks 1 and 4 are both in track 1: retitling talk 4 makes its row, and copies talk 1's
    from the file the last build wrote, trusted by its size and modification time."""
    schedule = crowded(LISTED_FEEDS + 1)
    later = edited(schedule, "c0004", title="Talk 4, retitled")
    build(tmp_path / "site", schedule)
    edit_in_place(tmp_path / "site" / "tracks" / "track-1" / "index.html", b">Talk 1<", b">Talk X<", 0)

    rebuilt = build(tmp_path / "site", later)

    made = facet_representation(Published(later, now=NOW, base_url=BASE), Site.of(BASE), "track", track_1(later)).body
    page = rebuilt["tracks/track-1/index.html"]
    assert (page == made, page == made.replace(b">Talk 1<", b">Talk X<")) == (False, True)


def track_1(schedule: Schedule) -> Feed:
    feed = Published(schedule, now=NOW, base_url=BASE).feed("track", "track-1")
    assert feed is not None
    return feed


def test_every_sessions_card_is_made_before_the_first_session_page_is_given(tmp_path: Path) -> None:
    """The workers forked from then on inherit the cards, instead of each making its sessions' again."""
    schedule = crowded(LISTED_FEEDS + 1)
    published = Published(schedule, now=NOW, base_url=BASE, lazy=True)
    parts = site_parts(published, Site.of(BASE), output=Output(tmp_path / "site"))

    first = next(path for path, _, _ in parts if path.startswith("sessions/"))

    cards: dict[str, object] = published.memo(("cards",), dict)
    assert (first, sorted(cards)) == ("sessions/c0000/index.html", sorted(s.id for s in schedule.sessions))


def test_a_rebuild_makes_before_its_session_pages_the_cards_of_the_sessions_written_alone(tmp_path: Path) -> None:
    """A one-change rebuild makes one card, not one for every session of the conference."""
    schedule = crowded(LISTED_FEEDS + 1)
    published = Published(schedule, now=NOW, base_url=BASE, lazy=True)
    kept = Kept(written=frozenset({"c0004"}))
    parts = site_parts(published, Site.of(BASE), output=Output(tmp_path / "site"), kept=kept)

    first = next(path for path, _, _ in parts if path.startswith("sessions/"))

    cards: dict[str, object] = published.memo(("cards",), dict)
    assert (first, sorted(cards)) == ("sessions/c0004/index.html", ["c0004"])


def test_a_schedule_pages_frame_is_keyed_the_same_whatever_markers_the_process_drew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A page's key names its frame by the frame's inputs, less the markers for its parts, which
    each process draws anew: else every rebuild in a new process would make every page again."""
    published = Published(crowded(40), now=NOW, base_url=BASE, lazy=True)
    site = Site.of(BASE)
    views = [(View(), False), *((View(day=slug), True) for slug in day_page_slugs(published))]
    before = [page_context(published, site, view, day_page=day_page) for view, day_page in views]

    monkeypatch.setattr(page, "SECTIONS", Markup("\x00sections-of-another-process\x00"))
    monkeypatch.setattr(page, "SUBSCRIBE", Markup("\x00subscribe-of-another-process\x00"))
    after = [page_context(published, site, view, day_page=day_page) for view, day_page in views]

    assert [(a["sections"] == b["sections"], a["subscribe"] == b["subscribe"]) for a, b in zip(after, before)] == [
        (False, False)
    ] * len(views)
    assert repr([frame_inputs(context) for context in after]) == repr([frame_inputs(context) for context in before])


def test_a_rebuild_renders_the_changed_sessions_cards_alone_taking_the_others_from_their_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schedule = crowded(LISTED_FEEDS + 1)
    later = edited(schedule, "c0004", title="Talk 4, retitled")
    build(tmp_path / "site", schedule)
    rendered: list[str] = []
    card_texts = page_parts.card_texts

    def counted(published: Published, depth: int, hidden: Collection[str], cards: Sequence[Card]) -> list[CardText]:
        rendered.extend(card.id for card in cards)
        return card_texts(published, depth, hidden, cards)

    monkeypatch.setattr(page_parts, "card_texts", counted)

    rebuilt = build(tmp_path / "site", later)

    assert set(rendered) == {"c0004"}
    assert rebuilt == fresh(later)
