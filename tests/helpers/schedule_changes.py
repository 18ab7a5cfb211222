"""A conference's schedule changed step by step in a store, as Hypothesis state machines drive
it: sessions moved across days, rooms and tracks, retitled, described, given other speakers,
cancelled, restored and added; the conference renamed, or given another zone or last day;
another conference ingested beside it; the base URL and the default conference changed; the
clock moved on. A machine built on `ScheduleChanges` checks what it serves or builds in `check`,
after an ingest when the step says so (`then`) and whenever its own rules do."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from contextlib import ExitStack
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from feeds.model import Conference, Level, Link, Room, Schedule, Session, Speaker, Track
from server.store import Store

BASES = ("https://cal.example.org", "https://other.example.net/schedule")
PARIS = ZoneInfo("Europe/Paris")
CONFERENCE = Conference("Rebuilds Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 9), city="Paris")
# Another conference in the same store: each one's pages link to the other.
OTHER = Conference("Other Conf", "America/New_York", date(2026, 5, 1), date(2026, 5, 1), slug="other-conf")
START = datetime(2026, 3, 1, 9, tzinfo=UTC)
SPEAKERS = (
    Speaker("Ada Lovelace", role="Engineer", affiliation="ACME", bio="Writes compilers."),
    Speaker("Grace Hopper", affiliation="Navy"),
    Speaker("Alan Turing", bio="Breaks codes."),
    Speaker("Émilie du Châtelet", role="Physicist"),
)
TITLES = (
    "Scaling Training with FSDP2",
    'A & B <in> "quotes"; semicolons, commas\\ and a\nnewline',
    "Überschrift mit Umlauten und einem sehr langen Titel, der in iCalendar gefaltet werden muss",
    "Graph Breaks Explained",
)
# The last of each is spelled as a source may spell the first: the same slug, a name sorting
# before it, which names the feed while a session has it.
ROOMS = ("Hall", "Side Room", "Annex", "HALL")
TRACKS = ("Systems", "Compilers", "A New Track", "SYSTEMS")
# At the start (`add` brings more): more than twenty, so that a build keeps the schedule it read
# as it is while one or two sessions change, and makes it again past a few (build_schedule.py).
TALKS = 24
NUMBER = st.integers(0, 99)  # which talk: the n-th of those there, modulo their number
THEN = st.booleans()  # check right after the ingest, or after more steps


def talk(number: int, day: int, hour: int, minute: int = 0) -> Session:
    """A talk matched across ingests by its source id (feeds.identity), 40 minutes long."""
    start = datetime(2026, 4, 7 + day, hour, minute, tzinfo=PARIS)
    return Session(
        id="provisional",
        source_id=f"talk-{number}",
        title=f"Talk {number}",
        start=start,
        end=start + timedelta(minutes=40),
        room=Room(ROOMS[number % 2]),
        track=Track(TRACKS[number % 2]),
        level=Level("Beginner" if number % 3 else "Advanced"),
        description=f"What talk {number} is about.",
        speakers=(SPEAKERS[number % len(SPEAKERS)],),
    )


class ScheduleChanges(RuleBasedStateMachine):
    """The store (in a directory of its own, `root`) and the changes; `check` is the machine's."""

    def __init__(self) -> None:
        super().__init__()
        self.closing = ExitStack()
        self.root = Path(tempfile.mkdtemp(prefix="confcal-changes-"))
        self.closing.callback(shutil.rmtree, self.root, ignore_errors=True)
        self.store = self.closing.enter_context(Store.open(str(self.root / "store.sqlite")))
        self.talks: dict[int, Session] = {n: talk(n, n % 3, 8 + n % 10, 30 * (n // 10 % 2)) for n in range(TALKS)}
        self.removed: dict[int, Session] = {}
        self.last_change: tuple[int, Session] | None = None  # the talk `change` changed, as it was
        self.conference = CONFERENCE
        self.base = BASES[0]
        self.default = CONFERENCE.slug
        self.now = START
        self.ingest()

    def check(self) -> None:
        raise NotImplementedError

    def ingest(self, then: bool = False) -> None:
        """Ingest the talks as they are now; `then`: check right after (else later, after more)."""
        self.now += timedelta(minutes=1)
        schedule = Schedule(self.conference, tuple(self.talks.values()))
        self.store.ingest(schedule, now=self.now, force=True)  # cancelling many at once is the point
        if then:
            self.check()

    def change(self, number: int, then: bool, **fields: object) -> None:
        numbers = sorted(self.talks)
        chosen = numbers[number % len(numbers)]
        self.last_change = chosen, self.talks[chosen]
        self.talks[chosen] = dataclasses.replace(self.talks[chosen], **fields)  # type: ignore[arg-type]
        self.ingest(then)

    @precondition(lambda self: self.last_change is not None)
    @rule()
    def change_back(self) -> None:
        # The last change checked, then undone: what was made of it must be unmade.
        assert self.last_change is not None
        chosen, before = self.last_change
        self.last_change = None
        self.check()
        if chosen in self.talks:
            self.talks[chosen] = before
        self.ingest(then=True)

    @rule(number=NUMBER, day=st.integers(0, 2), hour=st.integers(8, 18), minute=st.sampled_from([0, 30]), then=THEN)
    def move(self, number: int, day: int, hour: int, minute: int, then: bool) -> None:
        start = datetime(2026, 4, 7 + day, hour, minute, tzinfo=PARIS)
        self.change(number, then, start=start, end=start + timedelta(minutes=40))

    @rule(number=NUMBER, title=st.sampled_from(TITLES), then=THEN)
    def retitle(self, number: int, title: str, then: bool) -> None:
        self.change(number, then, title=title)

    @rule(number=NUMBER, room=st.none() | st.sampled_from(ROOMS), track=st.none() | st.sampled_from(TRACKS), then=THEN)
    def regroup(self, number: int, room: str | None, track: str | None, then: bool) -> None:
        self.change(number, then, room=Room(room) if room else None, track=Track(track) if track else None)

    @rule(number=NUMBER, speakers=st.sets(st.sampled_from(SPEAKERS), max_size=3), then=THEN)
    def respeak(self, number: int, speakers: set[Speaker], then: bool) -> None:
        self.change(number, then, speakers=tuple(sorted(speakers, key=lambda s: s.name)))

    @rule(bio=st.sampled_from(["Writes compilers.", "Now at another lab.", None]), then=THEN)
    def rewrite_a_bio(self, bio: str | None, then: bool) -> None:
        # A bio is stored without being a revision of the sessions (server.store.diff).
        ada = dataclasses.replace(SPEAKERS[0], bio=bio)
        for number, session in self.talks.items():
            swapped = tuple(ada if s.name == ada.name else s for s in session.speakers)
            self.talks[number] = dataclasses.replace(session, speakers=swapped)
        self.ingest(then)

    @precondition(lambda self: len(self.talks) > 2)
    @rule(number=NUMBER, then=THEN)
    def remove(self, number: int, then: bool) -> None:
        numbers = sorted(self.talks)
        chosen = numbers[number % len(numbers)]
        self.removed[chosen] = self.talks.pop(chosen)
        self.ingest(then)

    @precondition(lambda self: bool(self.removed))
    @rule(then=THEN)
    def restore(self, then: bool) -> None:
        number, session = self.removed.popitem()
        self.talks[number] = session
        self.ingest(then)

    @rule(day=st.integers(0, 2), hour=st.integers(8, 18), then=THEN)
    def add(self, day: int, hour: int, then: bool) -> None:
        number = max([*self.talks, *self.removed]) + 1
        self.talks[number] = talk(number, day, hour)
        self.ingest(then)

    @rule(
        number=NUMBER,
        kind=st.sampled_from(["talk", "workshop", "keynote"]),
        level=st.none() | st.sampled_from(["Beginner", "Advanced"]),
        description=st.sampled_from(["", "Short.", "Long, with a link: https://example.org/a?b=c&d=e."]),
        extras=st.booleans(),
        then=THEN,
    )
    def describe(self, number: int, kind: str, level: str | None, description: str, extras: bool, then: bool) -> None:
        links = (Link("https://example.org/slides.pdf", "Slides", "slides"),) if extras else ()
        language, subtitle = ("fr", "Un sous-titre") if extras else (None, None)
        self.change(
            number,
            then,
            kind=kind,
            level=Level(level) if level else None,
            description=description,
            links=links,
            language=language,
            subtitle=subtitle,
            do_not_record=extras,
        )

    @rule(name=st.sampled_from(["Rebuilds Conf", "Rebuilds Conf 2026"]), city=st.none() | st.just("Lyon"), then=THEN)
    def rename_the_conference(self, name: str, city: str | None, then: bool) -> None:
        # The slug stays: it names the conference in the store and in the site.
        self.conference = dataclasses.replace(self.conference, name=name, city=city)
        self.ingest(then)

    @rule(zone=st.sampled_from(["Europe/Paris", "Europe/London"]), last_day=st.sampled_from([9, 10]), then=THEN)
    def reschedule_the_conference(self, zone: str, last_day: int, then: bool) -> None:
        # The sessions keep their instants: in another zone they show other times, and every
        # event its VTIMEZONE.
        self.conference = dataclasses.replace(self.conference, timezone=zone, end_date=date(2026, 4, last_day))
        self.ingest(then)

    @rule(talks=st.integers(1, 3))
    def ingest_the_other_conference(self, talks: int) -> None:
        self.now += timedelta(minutes=1)
        start = datetime(2026, 5, 1, 10, tzinfo=ZoneInfo(OTHER.timezone))
        sessions = tuple(
            Session(
                "provisional",
                f"Other talk {n}",
                start + timedelta(hours=n),
                start + timedelta(hours=n, minutes=30),
                source_id=f"other-{n}",
            )
            for n in range(talks)
        )
        self.store.ingest(Schedule(OTHER, sessions), now=self.now, force=True)

    @precondition(lambda self: len(self.store.conferences()) > 1)
    @rule(base=st.sampled_from(BASES), default=st.sampled_from([CONFERENCE.slug, OTHER.slug]))
    def change_the_build_options(self, base: str, default: str) -> None:
        self.base, self.default = base, default

    @rule(hours=st.sampled_from([1, 24, 24 * 31]))
    def pass_time(self, hours: int) -> None:
        self.now += timedelta(hours=hours)

    def teardown(self) -> None:
        self.closing.close()
