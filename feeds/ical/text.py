"""TEXT values (RFC 5545 §3.3.11) written so that every parser reads back the text we meant.

icalendar's writer first turns a literal backslash-N written by a speaker into a line break, so
`\\N`, and with it `\\,` and `\\;` after other steps, came back as different text. `escape` is the
plain §3.3.11 rule: backslash, semicolon and comma are escaped, a line break is written `\\n`,
nothing else is touched.

What iCalendar cannot carry is decided once, in `clean_text`, before escaping: CR and CRLF become
LF (TEXT has one line break), so do U+2028 and U+2029 (Python's `splitlines`, in vdirsyncer and
khal, splits a content line at them, and khal then drops the rest of the event's text), and the other control characters (C0 except TAB, DEL and C1), which
the TEXT grammar excludes, are dropped, and so is U+FEFF (a stray byte order mark). So a text round-trips through a feed exactly when it holds
none of those; otherwise it comes back as `clean_text` of itself, in every feed and download.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from icalendar import vCategory, vText

# Unicode category Cc (C0, DEL, C1) except TAB and LF, which TEXT may carry, and U+FEFF: a byte
# order mark left in a copied title, which some parsers strip at the start of a value and others
# keep, so it is dropped everywhere.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufeff]")


def clean_text(text: str) -> str:
    """`text` as a TEXT value can hold it: line breaks as LF, no other control characters."""
    breaks = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    return _CONTROL.sub("", breaks)


def escape(text: str) -> str:
    """RFC 5545 §3.3.11 escaping of an already clean text; backslashes first, so that the
    backslashes the other escapes add are not doubled."""
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


class Text(vText):
    """A TEXT property value, cleaned and escaped by `clean_text` and `escape`."""

    def __new__(cls, value: str) -> Text:
        return super().__new__(cls, clean_text(value))

    def to_ical(self) -> bytes:
        return escape(str(self)).encode("utf-8")


class Categories(vCategory):
    """CATEGORIES (RFC 5545 §3.8.1.2): TEXT values joined by unescaped commas."""

    def __init__(self, values: Iterable[str]) -> None:
        texts = [Text(value) for value in values]
        # icalendar's own list (vText of each) is replaced on the next line by our cleaned Texts.
        super().__init__([str(t) for t in texts])
        self.cats = list(texts)
