"""Texts a static build keeps by name in one part, so a rebuild renders only what changed in a
day: a day's cards on the schedule pages (build_pages.py), a day's events in schedule.xml and
schedule.json and its entries in `api/sessions` (build_exports.py).

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
from typing import TypeVar

from feeds.exports.chunks import Texts
from server.site.build_output import Output

T = TypeVar("T")
V = TypeVar("V", str, int)
Pieces = tuple[str, ...]


def kept_pieces(
    output: Output, key: str, items: Sequence[T], names: Sequence[str], make: Callable[[list[T]], Sequence[Pieces]]
) -> list[Pieces]:
    """The texts (in pieces) of `items`, named `names`: those the part `key` holds from the last
    build, `make`'s for the others (called once, with those items in order); the part renewed
    when what it holds changes, so that it holds these items' texts for the next build."""
    known = decode_pieces(output.kept(key))
    todo = [(item, name) for item, name in zip(items, names, strict=True) if name not in known]
    if todo:
        known.update(zip([name for _, name in todo], make([item for item, _ in todo]), strict=True))
    texts = {name: known[name] for name in names}
    if todo or texts.keys() != known.keys():
        output.renew(key, encode_pieces(texts))
    return [texts[name] for name in names]


def kept_texts(output: Output, key: str, name: Callable[[T], str]) -> Texts[T]:
    """`kept_pieces` as a keeper of one text an item (feeds.exports.chunks.Texts), each named by `name`."""

    def texts(items: Sequence[T], render: Callable[[Sequence[T]], list[str]]) -> list[str]:
        names = [name(item) for item in items]
        return [text for (text,) in kept_pieces(output, key, items, names, lambda todo: [(t,) for t in render(todo)])]

    return texts


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
