"""The subscribe groups of a page, read with the standard library's HTML parser: for each group
(`<section class="feeds" id="feeds-{kind}">`, or "feed-index" when it links to its own page), its feed entries' ids and every link in it with
its text. The schedule page's tests and the feed index page's tests read both pages the same way."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Group:
    entries: list[str] = field(default_factory=list)  # the ids of its `li.feed`
    links: list[tuple[str, str]] = field(default_factory=list)  # (href, text) of every `a`


class _Groups(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.groups: dict[str, Group] = {}
        self._group: Group | None = None
        self._sections = 0  # open <section>s inside the current group
        self._link: list[str] | None = None  # href and the text so far of an open <a>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "section" and found.get("class") in ("feeds", "feed-index"):
            self._group = self.groups.setdefault(found["id"].removeprefix("feeds-"), Group())
        if self._group is None:
            return
        self._sections += tag == "section"
        if tag == "li" and found.get("class") == "feed":
            self._group.entries.append(found["id"])
        if tag == "a":
            self._link = [found.get("href", ""), ""]

    def handle_data(self, data: str) -> None:
        if self._link is not None:
            self._link[1] += data

    def handle_endtag(self, tag: str) -> None:
        if self._group is None:
            return
        if tag == "a" and self._link is not None:
            self._group.links.append((self._link[0], self._link[1]))
            self._link = None
        if tag == "section":
            self._sections -= 1
            if not self._sections:
                self._group = None


def feed_groups(html: str) -> dict[str, Group]:
    """Kind -> its group on the page."""
    parser = _Groups()
    parser.feed(html)
    return parser.groups
