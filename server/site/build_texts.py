"""Texts a static build keeps by name in one part, so a rebuild renders only what changed in a
day: a day's cards on the schedule pages (build_pages.py), a day's events in schedule.xml and
schedule.json and its entries in `api/sessions` (build_exports.py). The day holds them in
order, so the part holds where they are in it (`ChunkTexts`), and the day as kept gives their
bytes.

Each item's text is a function of its name alone (a session's key, which names everything it is
made from besides the conference and the base URL, with what else the text shows of it), never
of its neighbours or its place. The part is named by the day, not by its items: a day that
changed by one session finds every other text under the same name, and renders that one.

Also here: a map a build keeps whole for the next one (`kept_map`), where a value is what the
last build found for a name, which the next takes while it knows the name is as it was: each
speaker page's key (site_build.py), each session id's hash (build_exports.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from itertools import accumulate, chain, islice
from typing import Generic, TypeVar

from server.site.build_output import Output

T = TypeVar("T")
V = TypeVar("V", str, int)
Pieces = tuple[str, ...]


# How far past the last piece `_place` looks for the next one's start before searching the rest
# of the chunk: what stands between two pieces (a room's element, a comma) is far shorter.
_NEAR = 2000
# Characters of a piece looked for, the rest compared where they are found: CPython searches for
# a needle under a hundred characters in under 30,000 without preparing it.
_HEAD = 64


class ChunkTexts(Generic[T]):
    """The texts of a chunk's items (a day of schedule.xml, schedule.json or `api/sessions`, a
    day's section of the schedule pages), each named by `name`, kept as the part `key`: not
    their bytes, which the chunk holds in order (a day's chunk is its items' texts joined, with
    what stands between them), but where the chunk holds each piece of them, with the chunk's
    own key, so the next build reads them from where the chunk is kept (`Output.placed_bytes`,
    or its part). When the chunk does not hold the texts in order, their bytes are kept
    instead (`encode_pieces`), and read back as well."""

    def __init__(self, output: Output, key: str, name: Callable[[T], str]) -> None:
        self._output, self._key, self._name = output, key, name
        self._given: dict[str, Pieces] = {}  # the texts last given, by name, in order

    def texts(self, items: Sequence[T], render: Callable[[Sequence[T]], list[str]]) -> list[str]:
        """`items`' texts, one an item (feeds.exports.chunks.Texts): those the last chunk held,
        `render`'s for the others (called once, with those items in order)."""
        return [text for (text,) in self.pieces(items, lambda todo: [(text,) for text in render(todo)])]

    def pieces(self, items: Sequence[T], render: Callable[[Sequence[T]], Sequence[Pieces]]) -> list[Pieces]:
        """`texts`, in pieces (as many an item as the first has)."""
        names = [self._name(item) for item in items]
        known = self._known()
        todo = [(item, name) for item, name in zip(items, names, strict=True) if name not in known]
        if todo:
            known.update(zip([name for _, name in todo], render([item for item, _ in todo]), strict=True))
        self._given = {name: known[name] for name in names}
        return list(self._given.values())

    def keep(self, chunk: str, body: bytes) -> None:
        """Keep where `body`, the bytes of the kept chunk `chunk`, holds the texts last given (as
        places in its UTF-8 text); their bytes when it does not hold them in order. Any text equal
        to a piece serves as its place."""
        given = self._given
        # Places in the chunk's text, not its bytes: one decoding of the chunk, not an encoding
        # of every piece, and the next build slices the text it decodes once.
        text = body.decode("utf-8")
        places: list[int] = []
        at = 0
        for piece in chain.from_iterable(given.values()):
            found = _place(text, piece, at)
            if found < 0:
                self._output.renew(self._key, encode_pieces(given))
                return
            at = found + len(piece)
            places += (found, at)
        width = len(next(iter(given.values()), ()))
        kept = [chunk, width, list(given), places]
        self._output.renew(self._key, json.dumps(kept, separators=(",", ":")).encode())

    def _known(self) -> dict[str, Pieces]:
        stored = self._output.kept(self._key)
        if not stored or not stored.startswith(b'["'):
            return decode_pieces(stored)  # the texts' bytes (`encode_pieces`), or none
        # Places in the chunk's text, as this code kept them: the key names the code (`code_key`).
        chunk, width, names, places = json.loads(stored)
        body = self._output.placed_bytes(chunk) or self._output.kept(chunk)
        if body is None:
            return {}
        text = body.decode("utf-8")
        texts = iter([text[start:end] for start, end in zip(places[::2], places[1::2], strict=True)])
        return {name: tuple(islice(texts, width)) for name in names}


def _place(text: str, piece: str, at: int) -> int:
    """`text.find(piece, at)`, looked for near `at` first. In a long text, CPython's `find`
    prepares every needle of a hundred characters or more for a two-way search, a pass over the
    needle each time, while a chunk's pieces (a day's events, hundreds of bytes each) follow
    each other after a few characters: so the piece's head is looked for in the characters
    after `at` and the piece compared where it is found."""
    head, end = piece[:_HEAD], at + _NEAR + len(piece)
    found = text.find(head, at, end)
    while found >= 0:
        if text.startswith(piece, found):
            return found
        found = text.find(head, found + 1, end)
    return text.find(piece, at)


def encode_pieces(texts: Mapping[str, Sequence[str]]) -> bytes:
    """Texts in pieces by name, each in as many pieces as the first: a JSON line of that number,
    the names and every piece's length, then the pieces (any text: schedule text may hold any
    character but a marker). Flat lists, so that C makes the line, not a loop a name."""
    width = len(next(iter(texts.values()), ()))
    pieces = list(chain.from_iterable(texts.values()))
    line = json.dumps([width, list(texts), list(map(len, pieces))], separators=(",", ":"))
    return line.encode() + b"\n" + "".join(pieces).encode("utf-8")


def decode_pieces(stored: bytes | None) -> dict[str, Pieces]:
    """`encode_pieces`' map back (empty for no part)."""
    if not stored:
        return {}
    line, _, rest = stored.partition(b"\n")
    width, names, lengths = json.loads(line)
    body = rest.decode("utf-8")
    ends = list(accumulate(lengths))
    pieces = iter([body[start:end] for start, end in zip([0, *ends], ends, strict=False)])
    return {name: tuple(islice(pieces, width)) for name in names}


def kept_map(output: Output, key: str) -> dict[str, V]:
    """The map the last build kept as the part `key` (`keep_map`); empty when it kept none."""
    stored = output.kept(key)
    if stored is None:
        return {}
    names, values = json.loads(stored)
    return dict(zip(names, values, strict=True))


def keep_map(output: Output, key: str, values: Mapping[str, V], last: Mapping[str, V]) -> None:
    """Keep `values` as the part `key` for the next build: as it is when `last` (what
    `kept_map` gave) is the same map, else written again."""
    if values == last:
        output.hold(key)
        return
    output.renew(key, json.dumps([list(values), list(values.values())], separators=(",", ":")).encode())
