"""Parser for Sched schedule pages copied as text: list views (often filtered) and single sessions.

A session on such a page reads, in order:

    11:00 CEST                                              slot header (list views)
    Lightning Talk: Title - Name, Company & Name, Company   title line (missing on some single pages)
    Tuesday April 7, 2026 11:00 - 11:10 CEST                opening time line
    description paragraphs (may contain " - ")
    Speakers                                                then one block per speaker:
      avatar for Name | initials ("AW")  /  Name  /  Role, Company  /  bio ... Read More →
    Tuesday April 7, 2026 11:00 - 11:10 CEST                closing time line (same text)
    Room                                                    then, with no blank line between:
    \u00a0 Track                                            optional
      • Audience Level Any / • Slides Attached Yes          optional bullets

The parser walks from one opening time line to its closing twin; the title is the line before the
opening when a slot header (or the previous session) precedes it. Page chrome is recognised only to
find the conference name, place, display zone and filter facet.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from feeds.people import find
from feeds.sources import sched_lines as L
from feeds.sources.records import SourceWarning
from feeds.sources.sched_parsed import Facet, ParsedPage, RawSession, RawSpeaker, WallSpan

_CHROME_PREFIXES = (
    "Loading",
    "View More Details",
    "Note: The schedule",
    "The Sched app",
    "This schedule is",
    "Sign up or log in",
    "arrow_back",
    "Share Modal",
    "Share this link",
    "Or copy link",
    "Filter sessions",
    "Apply filters",
    "Filtered by",
    "Speakers",
)


class _Page:
    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.lines = text.split("\n")
        self.warnings: list[SourceWarning] = []

    def warn(self, index: int | None, message: str) -> None:
        self.warnings.append(SourceWarning(self.source, None if index is None else index + 1, message))

    def text(self, i: int) -> str:
        return self.lines[i].strip() if 0 <= i < len(self.lines) else ""

    def prev_nonblank(self, i: int) -> int:
        i -= 1
        while i >= 0 and not self.text(i):
            i -= 1
        return i

    def next_nonblank(self, i: int, stop: int) -> int:
        i += 1
        while i < stop and not self.text(i):
            i += 1
        return i

    def time_line(self, i: int) -> WallSpan | str | None:
        """The span a time line gives, the reason it cannot be read (a damaged time line), or None
        for any other line."""
        try:
            found = L.span(self.lines[i], i + 1)
        except ValueError as exc:
            return str(exc)
        if found is None and L.is_damaged_time_line(self.lines[i]):
            return "not a complete date and time range"
        return found


def parse(text: str, source: str) -> ParsedPage:
    """One page's sessions, header and defects. A defect loses data (a damaged time line, a session
    cut off before its closing time line or its room): the ingest refuses the page unless forced."""
    page = _Page(text, source)
    times = {i: t for i in range(len(page.lines)) if (t := page.time_line(i)) is not None}
    sessions: list[RawSession] = []
    defects: list[SourceWarning] = []
    last_end = -1
    order = sorted(times)
    k = 0
    while k < len(order):
        opening = order[k]
        closing = order[k + 1] if k + 1 < len(order) else None
        paired = closing is not None and _twins(page.text(opening), page.text(closing), times[opening])
        stop = len(page.lines) if closing is None else closing
        session, last_end = _session(page, times, opening, closing if paired else None, stop, last_end)
        k += 2 if paired else 1
        title = session.title or (sessions[-1].title if sessions and sessions[-1].title else None) or "(no title)"
        where = session.line if session.title else opening + 1

        def defect(line: int, what: str) -> None:
            defects.append(SourceWarning(source, line, f"{title}: {what}"))

        reason = times[opening]
        if isinstance(reason, str):
            defect(opening + 1, f"unreadable time line {page.text(opening)!r} ({reason}); the session is left out")
            continue
        if not paired:
            defect(where, "session cut off before its closing time line; its room, track and level are lost")
        elif page.next_nonblank(closing or 0, len(page.lines)) >= len(page.lines):
            defect(where, "page ends after the closing time line; the session's room is lost")
        sessions.append(session)
    loose = not sessions and any(
        len(line.strip()) > 60 and not line.strip().startswith(_CHROME_PREFIXES) for line in page.lines
    )
    return replace(
        _header(page), sessions=tuple(sessions), warnings=tuple(page.warnings), defects=tuple(defects), loose_text=loose
    )


def _twins(opening: str, closing: str, reading: WallSpan | str) -> bool:
    """Whether `closing` is the closing time line of `opening`: the same text, or for a damaged
    opening cut short ("... 15:00 - 15:"), a line it is the beginning of."""
    return closing == opening or isinstance(reading, str) and closing.startswith(opening)


def _header(page: _Page) -> ParsedPage:
    facets: list[Facet] = []
    conference = place = zone = None
    for i, raw in enumerate(page.lines):
        line = raw.strip()
        if (f := L.facet(line)) is not None:
            facets.append(Facet(f[0], f[1], i + 1))
        conference = conference or L.registered_for(line)
        zone = zone or L.shown_in(line)
        if place is None and line.startswith("View More Details"):
            before = page.prev_nonblank(i)
            place = page.text(before) or None if before >= 0 else None
    return ParsedPage(page.source, facets=tuple(facets), conference=conference, place=place, zone_label=zone)


def _session(
    page: _Page, times: dict[int, WallSpan | str], opening: int, closing: int | None, stop: int, last_end: int
) -> tuple[RawSession, int]:
    title_line = _title_line(page, opening, last_end)
    speakers_at = next((i for i in range(opening + 1, stop) if page.text(i) == "Speakers"), stop)
    body_end = speakers_at
    if closing is None and stop < len(page.lines):
        # Without a closing line the next title line was read as description; give it back.
        body_end = min(body_end, page.prev_nonblank(stop) if page.prev_nonblank(stop) > opening else stop)
    description = _paragraphs(page.lines[opening + 1 : body_end])
    speakers = _speaker_blocks(page, speakers_at + 1, stop) if speakers_at < stop else ()
    title = kind = None
    title_speakers: tuple[RawSpeaker, ...] = ()
    if title_line is not None:
        title_text = " ".join(page.text(i) for i in range(title_line, opening) if page.text(i))
        title, title_speakers = _split_title(title_text, [s.name for s in speakers])
        kind, title = L.split_kind(title)
    room = track = level = None
    slides: bool | None = None
    extra: list[tuple[str, str]] = []
    end = stop
    if closing is not None:
        # Each line after the closing time line is read by what it is, not where it stands: a
        # session without a type has its bullets right after the room.
        i = closing + 1
        while i < len(page.lines) and page.text(i):
            raw = page.lines[i]
            if (item := L.bullet(raw)) is not None:
                if item.startswith("Audience Level "):
                    level = item[len("Audience Level ") :].strip()
                elif item.startswith("Slides Attached "):
                    slides = item[len("Slides Attached ") :].strip().lower() in ("yes", "true")
                else:
                    extra.append(("", item))
            elif L.is_track(raw):
                if track is None:
                    track = raw.strip(L.NBSP + " \t")
            elif i == closing + 1 and not (L.is_slot(raw) or i in times):
                room = page.text(i)
            else:
                break
            i += 1
        end = i - 1
    span = times[opening]
    session = RawSession(
        line=(title_line if title_line is not None else opening) + 1,
        span=None if isinstance(span, str) else span,
        title=title,
        kind=kind,
        title_speakers=title_speakers,
        speakers=speakers,
        description=description,
        room=room,
        track=track,
        level=level,
        slides=slides,
        extra=tuple(extra),
    )
    return session, end


def _title_line(page: _Page, opening: int, last_end: int) -> int | None:
    """The first line of the session's title, which ends on the last non-blank line before the
    time line. A title may run over a few adjacent lines (a stray line break, such as a lone CR,
    inside it): they are one title when the first of them follows a slot, a day header or the
    previous session, so a break inside a title never drops the session."""
    candidate = page.prev_nonblank(opening)
    if candidate < 0 or candidate <= last_end or not _title_text(page, candidate):
        return None
    before = page.prev_nonblank(candidate)
    if before < 0 or _anchors_title(page, before, last_end):
        return candidate
    first = candidate
    while (
        first - before == 1 and before > last_end and candidate - first < _TITLE_LINES - 1 and _title_text(page, before)
    ):
        if page.time_line(before) is not None:
            return None
        first, before = before, page.prev_nonblank(before)
        if before >= 0 and _anchors_title(page, before, last_end):
            return first
    return None


# The most lines one title may run over; more are description text, not a broken title.
_TITLE_LINES = 4


def _title_text(page: _Page, i: int) -> bool:
    line = page.text(i)
    return not (line.startswith(_CHROME_PREFIXES) or L.facet(line) or L.is_slot(line) or L.is_day_header(line))


def _anchors_title(page: _Page, i: int, last_end: int) -> bool:
    """Whether line `i` is what stands right before a title: a slot, a day header or the previous
    session's last line."""
    return L.is_slot(page.lines[i]) or L.is_day_header(page.lines[i]) or i == last_end


def _split_title(line: str, block_names: list[str]) -> tuple[str, tuple[RawSpeaker, ...]]:
    """Split "Title - speakers" at the " - " whose tail names a speaker of the blocks (the rightmost
    one when there are no blocks): titles and descriptions may contain " - " themselves."""
    cuts = [i for i in range(len(line)) if line.startswith(" - ", i)]
    if not cuts:
        return line.strip(), ()
    chosen = cuts[-1]
    if block_names:
        for cut in reversed(cuts):
            people = L.title_speakers(line[cut + 3 :])
            if any(find(p.name, block_names) is not None for p in people):
                chosen = cut
                break
    return line[:chosen].strip(), L.title_speakers(line[chosen + 3 :])


def _paragraphs(lines: list[str]) -> str:
    paragraphs: list[list[str]] = [[]]
    for raw in lines:
        line = raw.strip()
        if line:
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join("\n".join(p) for p in paragraphs if p)


@dataclass
class _Block:
    name: str
    role: str | None = None
    bio: list[str] = field(default_factory=list)

    def speaker(self) -> RawSpeaker:
        role, affiliation = L.role_line(self.role) if self.role else (None, None)
        bio = L.strip_read_more("\n\n".join(self.bio)) or None
        return RawSpeaker(self.name, role=role, affiliation=affiliation, bio=bio)


def _speaker_blocks(page: _Page, start: int, stop: int) -> tuple[RawSpeaker, ...]:
    """One block per "avatar for Name" (or initials) line: name, role line, then bio lines."""
    blocks: list[_Block] = []
    i = page.next_nonblank(start - 1, stop)
    while i < stop:
        line = page.text(i)
        nxt = page.next_nonblank(i, stop)
        if L.avatar(line) is not None or L.is_initials(line, page.text(nxt) if nxt < stop else None):
            if nxt >= stop:
                break
            blocks.append(_Block(page.text(nxt)))
            i = page.next_nonblank(nxt, stop)
            continue
        if not blocks:
            page.warn(i, "text before the first speaker block ignored")
        elif blocks[-1].role is None and not blocks[-1].bio and _looks_like_role(line):
            blocks[-1].role = line
        else:
            blocks[-1].bio.append(line)
        i = nxt
    return tuple(b.speaker() for b in blocks)


def _looks_like_role(line: str) -> bool:
    return len(line) <= 120 and not L.READ_MORE.search(line)
