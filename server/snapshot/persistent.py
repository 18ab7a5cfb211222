"""A map and a sequence that a snapshot makes from the one before it by sharing all but the change.

A snapshot is read by requests in flight while the next one is made, so neither may change. A
copy of a large conference's sessions by id, feeds by name, feeds' members or all.ics's sorted
sessions touches every entry, and a new version with one changed session paid for those copies
in proportion to the conference. These structures are never changed once made; making one with
a few entries changed costs about a chunk's or an overlay's size, whatever the whole's.

- `Overlay`: a dict shared between snapshots (never changed once shared) and the small dict of
  the entries changed since, copied whole into the next snapshot's overlay; past `TOP` entries
  the two are joined into a new shared dict, one copy every `TOP` changed entries.
- `Chunked`: a sequence held as a tuple of tuples of at most about `CHUNK` items; replacing,
  removing or inserting an item copies the tuple of chunks and the one chunk it is in.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, chain
from typing import Any, Generic, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

# Changed entries an overlay holds before they are joined into the shared dict: copying this
# many per snapshot is nothing beside the rest, and joining them costs one copy of the whole.
TOP = 1024
# Items per chunk: a change copies about n / CHUNK chunk references and one chunk of CHUNK items.
CHUNK = 512

_MISSING: Any = object()


class Overlay(Mapping[K, V]):
    """An immutable mapping: `base` (shared with other overlays, never changed) under `top`."""

    __slots__ = ("_base", "_len", "_top")

    def __init__(self, base: dict[K, V] | None = None) -> None:
        """`base` is taken over, not copied: the caller must not change it afterwards."""
        self._base: dict[K, V] = base if base is not None else {}
        self._top: dict[K, V] = {}
        self._len = len(self._base)

    def updated(self, items: Iterable[tuple[K, V]]) -> Overlay[K, V]:
        """This mapping with `items` set (later items win), sharing the base."""
        changed = dict(items)
        top = self._top.copy()
        top.update(changed)
        if len(top) > TOP:
            base = self._base.copy()
            base.update(top)
            return Overlay(base)
        made: Overlay[K, V] = Overlay(self._base)
        made._top = top
        made._len = self._len + sum(1 for key in changed if key not in self)
        return made

    def __getitem__(self, key: K) -> V:
        found = self._top.get(key, _MISSING)
        return self._base[key] if found is _MISSING else found

    @overload
    def get(self, key: K, /) -> V | None: ...

    @overload
    def get(self, key: K, default: V | T, /) -> V | T: ...

    def get(self, key: K, default: object = None, /) -> object:
        # Mapping's own `get` goes through `__getitem__` and a KeyError for every key not here.
        found = self._top.get(key, _MISSING)
        return self._base.get(key, default) if found is _MISSING else found

    def __contains__(self, key: object) -> bool:
        return key in self._top or key in self._base

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[K]:
        base = self._base
        return chain(base, (key for key in self._top if key not in base))

    def __repr__(self) -> str:
        return f"Overlay({len(self._base)} shared, {len(self._top)} changed)"


class Chunked(Sequence[T], Generic[T]):
    """An immutable sequence in chunks; `replaced`, `removed` and `inserted` share every chunk
    but the ones they change."""

    __slots__ = ("_chunks", "_ends")

    def __init__(self, chunks: tuple[tuple[T, ...], ...]) -> None:
        self._chunks = chunks
        self._ends = tuple(accumulate(map(len, chunks)))

    @classmethod
    def of(cls, items: Iterable[T]) -> Chunked[T]:
        whole = tuple(items)
        return cls(tuple(whole[at : at + CHUNK] for at in range(0, len(whole), CHUNK)))

    @property
    def chunks(self) -> tuple[tuple[T, ...], ...]:
        return self._chunks

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __iter__(self) -> Iterator[T]:
        return chain.from_iterable(self._chunks)

    @overload
    def __getitem__(self, at: int) -> T: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[T, ...]: ...

    def __getitem__(self, at: int | slice) -> T | tuple[T, ...]:
        if isinstance(at, slice):
            start, stop, step = at.indices(len(self))
            if step != 1:
                return tuple(self)[at]
            return self._span(start, stop)
        size = len(self)
        if at < 0:
            at += size
        if not 0 <= at < size:
            raise IndexError("Chunked index out of range")
        chunk = bisect_right(self._ends, at)
        start = self._ends[chunk - 1] if chunk else 0
        return self._chunks[chunk][at - start]

    def _span(self, start: int, stop: int) -> tuple[T, ...]:
        """The items from `start` up to `stop`, reading only the chunks they are in."""
        found: list[T] = []
        chunk = bisect_right(self._ends, start)
        while start < stop and chunk < len(self._chunks):
            begins = self._ends[chunk - 1] if chunk else 0
            found += self._chunks[chunk][start - begins : stop - begins]
            start = self._ends[chunk]
            chunk += 1
        return tuple(found)

    def starts(self) -> Iterator[tuple[int, tuple[T, ...]]]:
        """(the index of its first item, the chunk) of every chunk."""
        return zip((0, *self._ends), self._chunks, strict=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chunked):
            return NotImplemented
        return same_items(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Chunked({len(self)} items in {len(self._chunks)} chunks)"

    def replaced(self, changes: Mapping[int, T]) -> Chunked[T]:
        """The items at the indexes of `changes` replaced by their values."""
        chunks = list(self._chunks)
        by_chunk: dict[int, list[T]] = {}
        for at, item in changes.items():
            chunk = bisect_right(self._ends, at)
            start = self._ends[chunk - 1] if chunk else 0
            if chunk not in by_chunk:
                by_chunk[chunk] = list(chunks[chunk])
            by_chunk[chunk][at - start] = item
        for chunk, items in by_chunk.items():
            chunks[chunk] = tuple(items)
        return Chunked(tuple(chunks))

    def removed(self, item: T, key: Callable[[T], Any]) -> Chunked[T]:
        """`item` (by identity) taken out of this sequence sorted by `key`; the same if absent."""
        order = key(item)
        chunk = bisect_left(self._chunks, order, key=lambda c: key(c[-1]))
        for at in range(chunk, len(self._chunks)):
            items = self._chunks[at]
            found = bisect_left(items, order, key=key)
            while found < len(items) and items[found] is not item:
                found += 1
            if found < len(items):
                rest = items[:found] + items[found + 1 :]
                if rest:
                    return Chunked((*self._chunks[:at], rest, *self._chunks[at + 1 :]))
                return Chunked((*self._chunks[:at], *self._chunks[at + 1 :]))
            if items and key(items[-1]) > order:
                break
        for at, items in enumerate(self._chunks):  # not where its order says: look everywhere
            if any(x is item for x in items):
                rest = tuple(x for x in items if x is not item)
                return Chunked((*self._chunks[:at], *((rest,) if rest else ()), *self._chunks[at + 1 :]))
        return self

    def inserted(self, item: T, key: Callable[[T], Any]) -> Chunked[T]:
        """`item` put in its place in this sequence sorted by `key` (after equal ones)."""
        if not self._chunks:
            return Chunked(((item,),))
        order = key(item)
        at = min(bisect_right(self._chunks, order, key=lambda c: key(c[-1])), len(self._chunks) - 1)
        items = list(self._chunks[at])
        insort(items, item, key=key)
        if len(items) > 2 * CHUNK:
            half = len(items) // 2
            made: tuple[tuple[T, ...], ...] = (tuple(items[:half]), tuple(items[half:]))
        else:
            made = (tuple(items),)
        return Chunked((*self._chunks[:at], *made, *self._chunks[at + 1 :]))


def same_items(a: Sequence[T], b: Sequence[T]) -> bool:
    """Whether `a` and `b` hold equal items in the same order; where two `Chunked` hold the same
    chunk at the same place its items are not compared, so two versions of a large feed that
    differ in a chunk or two compare in the time of those chunks."""
    if a is b:
        return True
    if len(a) != len(b):
        return False
    if isinstance(a, Chunked) and isinstance(b, Chunked):
        if a._ends == b._ends:  # chunked alike: compared in C, shared chunks by identity
            return a.chunks == b.chunks
        shared = {(start, id(chunk)) for start, chunk in b.starts()}
        return all(
            (start, id(chunk)) in shared or chunk == b[start : start + len(chunk)] for start, chunk in a.starts()
        )
    return tuple(a) == tuple(b)
