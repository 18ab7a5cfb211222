"""One version's entry in the public changelog, rendered (changes.py serves the documents,
build_changes.py keeps the entries), and the three documents joined from entries: the page
(`changes/`), its Atom feed (`changes.atom`, RFC 4287) and the recent changes by session
(`api/changes`). Pure: no store, no clock. Times are in the conference's zone, the Atom
`updated` stamps in UTC.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET
from zoneinfo import ZoneInfo

from markupsafe import Markup

from feeds import urls
from feeds.model import Conference
from server.links import Site
from server.pages.render import fragment, render
from server.store.changes import ChangeKind, SessionChange, VersionChanges, place

ATOM_NS = "http://www.w3.org/2005/Atom"
# The Atom feed and the page's JSON carry the most recent versions only; the page lists all.
RECENT = 50
LABELS = {
    ChangeKind.NEW: "New",
    ChangeKind.MOVED: "Moved",
    ChangeKind.RETITLED: "Retitled",
    ChangeKind.CANCELLED: "Cancelled",
    ChangeKind.RESTORED: "Back on the schedule",
}
# What the page's note tells an attendee about one of their picks (new sessions cannot be one).
NOTED = (ChangeKind.MOVED, ChangeKind.RETITLED, ChangeKind.CANCELLED, ChangeKind.RESTORED)


def text(change: SessionChange, zone: ZoneInfo) -> str:
    """The words after a session's title: `Tue 7 Apr 11:00–11:30, Master Stage → Tue 7 Apr
    12:00–12:30, Junior Stage`, `was: Old title`, or when and where it is (was)."""
    if change.kind is ChangeKind.MOVED and change.before is not None:
        return f"{place(change.before, zone)} → {place(change.after, zone)}"
    if change.kind is ChangeKind.RETITLED and change.before is not None:
        return f"was “{change.before.title}”"
    return place(change.after, zone)


def _heading(entry: VersionChanges) -> str:
    if entry.first:
        return "Schedule published"
    if entry.rollback_of is not None:
        return f"Rolled back to version {entry.rollback_of}"
    return "Schedule updated"


def _summary(entry: VersionChanges) -> str:
    if entry.first:
        return f"The schedule was published with {entry.sessions} sessions."
    counts = [f"{len(entry.of_kind(k))} {LABELS[k].lower()}" for k in ChangeKind if entry.of_kind(k)]
    return ", ".join(counts).capitalize() + "."


@dataclass(frozen=True)
class _Item:
    id: str
    title: str
    path: str  # site-relative session page
    text: str


@dataclass(frozen=True)
class Entry:
    """What one visible version puts in the three documents, rendered: its section of the page,
    its Atom entry and its sessions in `api/changes`. A version's changes never change once
    published, so this depends on the version, the conference (its zone), the site's base URL
    (the Atom content's links) and the code alone (and for a version from before the store
    recorded rows, on the first version it recorded): a build keeps it (build_changes.py)."""

    version: int
    first: bool
    updated: str  # RFC 3339, UTC (Atom `updated`, the page's <time>)
    id: str  # the Atom entry's id
    title: str  # the Atom entry's title
    summary: str
    section: str  # the page's <section> (HTML)
    content: str  # the Atom entry's content: the page's lists with absolute links (HTML)
    noted: dict[str, list[dict[str, str]]]  # `api/changes`: what changed of each session


def entry_of(entry: VersionChanges, site: Site, zone: ZoneInfo) -> Entry:
    """`entry` (a visible version) rendered for the page, the Atom feed and `api/changes`."""
    groups = [] if entry.first else _groups(entry, zone)
    section = {
        "version": entry.version,
        "heading": _heading(entry),
        "summary": _summary(entry),
        "updated": _updated(entry),
        "when": entry.created.strftime("%-d %B %Y, %H:%M UTC"),
        "groups": groups,
    }
    return Entry(
        version=entry.version,
        first=entry.first,
        updated=_updated(entry),
        id=entry_id(entry),
        title=f"{_heading(entry)} (version {entry.version})",
        summary=_summary(entry),
        section=str(fragment("_changes_entry.html", 1, {"entry": section})),
        content=_entry_html(_summary(entry), groups, site),
        noted=_noted(entry, zone),
    )


def _groups(entry: VersionChanges, zone: ZoneInfo) -> list[dict[str, Any]]:
    return [
        {
            "kind": kind.value,
            "label": LABELS[kind],
            "items": [_Item(c.id, c.after.title, urls.session_page(c.id), text(c, zone)) for c in entry.of_kind(kind)],
        }
        for kind in ChangeKind
        if entry.of_kind(kind)
    ]


def _updated(entry: VersionChanges) -> str:
    return entry.created.strftime("%Y-%m-%dT%H:%M:%SZ")


def page_body(conference: Conference, found: Sequence[Entry]) -> bytes:
    """The changelog page listing `found` (newest first)."""
    context = {
        "conference": conference,
        "when": "",
        "description": f"Every published change to the schedule of {conference.name}: new, moved, "
        "retitled and cancelled sessions.",
        "sections": [Markup(e.section) for e in found],
    }
    return render("changes.html", 1, context)


def entry_id(entry: VersionChanges) -> str:
    """A version's Atom id (RFC 4287 4.2.6): the same for the same version whatever the host or
    base URL it is served under, and never reused by another version."""
    name = f"confcal:{entry.conference}:{entry.version}:{entry.created.isoformat()}"
    return uuid.uuid5(uuid.NAMESPACE_URL, name).urn


def atom_body(conference: Conference, site: Site, found: Sequence[Entry]) -> bytes:
    """The Atom feed (RFC 4287) of `found` (newest first): one entry per visible version."""
    recent_entries = found[:RECENT]
    ET.register_namespace("", ATOM_NS)

    def sub(parent: ET.Element, tag: str, value: str | None = None, **attrs: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{ATOM_NS}}}{tag}", attrs)
        element.text = value
        return element

    feed = ET.Element(f"{{{ATOM_NS}}}feed")
    sub(feed, "id", uuid.uuid5(uuid.NAMESPACE_URL, f"confcal:{conference.slug}:changes").urn)
    sub(feed, "title", f"{conference.name}: schedule changes")
    sub(feed, "updated", recent_entries[0].updated if recent_entries else "1970-01-01T00:00:00Z")
    sub(sub(feed, "author"), "name", conference.name)
    sub(feed, "link", rel="self", type="application/atom+xml", href=site.url(urls.CHANGES_ATOM))
    sub(feed, "link", rel="alternate", type="text/html", href=site.url(urls.CHANGES))
    for entry in recent_entries:
        item = sub(feed, "entry")
        sub(item, "id", entry.id)
        sub(item, "title", entry.title)
        sub(item, "updated", entry.updated)
        sub(item, "link", rel="alternate", type="text/html", href=site.url(f"{urls.CHANGES}#v{entry.version}"))
        sub(item, "summary", entry.summary)
        sub(item, "content", entry.content, type="html")
    body: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return body + b"\n"


def _entry_html(summary: str, groups: list[dict[str, Any]], site: Site) -> str:
    """The entry's content: the page's lists, with absolute links (escaped once more by XML)."""
    parts = [ET.tostring(_element("p", summary), encoding="unicode")]
    for group in groups:
        parts.append(ET.tostring(_element("h3", group["label"]), encoding="unicode"))
        listing = ET.Element("ul")
        for item in group["items"]:
            line = ET.SubElement(listing, "li")
            link = ET.SubElement(line, "a", {"href": site.url(item.path)})
            link.text = item.title
            link.tail = f": {item.text}" if item.text else None
        parts.append(ET.tostring(listing, encoding="unicode"))
    return "".join(parts)


def _element(tag: str, value: str) -> ET.Element:
    element = ET.Element(tag)
    element.text = value
    return element


def recent_body(found: Sequence[Entry]) -> bytes:
    """`{"version": N, "changes": [{"version", "updated", "sessions": {id: [{"kind", "text"}]}}]}`,
    newest first: the changes the page can tell an attendee about their picks."""
    document = {
        "version": found[0].version if found else 0,
        "changes": [
            {"version": e.version, "updated": e.updated, "sessions": e.noted} for e in found[:RECENT] if not e.first
        ],
    }
    return json.dumps(document, ensure_ascii=False, sort_keys=True).encode("utf-8")


def _noted(entry: VersionChanges, zone: ZoneInfo) -> dict[str, list[dict[str, str]]]:
    found: dict[str, list[dict[str, str]]] = {}
    for change in entry.changes:
        if change.kind in NOTED:
            found.setdefault(change.id, []).append(
                {"kind": change.kind.value, "title": change.after.title, "text": text(change, zone)}
            )
    return found
