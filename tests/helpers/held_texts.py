"""A keeper of texts in memory (feeds.exports.chunks.Texts), as a build's kept part is on disk:
it answers the items whose name it holds and renders the others, noting which."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class HeldTexts(Generic[T]):
    def __init__(self, name: Callable[[T], str]) -> None:
        self.name = name
        self.held: dict[str, str] = {}
        self.rendered: list[str] = []  # the names of the items it rendered, in order

    def __call__(self, items: Sequence[T], render: Callable[[Sequence[T]], list[str]]) -> list[str]:
        todo = [item for item in items if self.name(item) not in self.held]
        self.rendered.extend(self.name(item) for item in todo)
        self.held.update(zip([self.name(item) for item in todo], render(todo), strict=True))
        return [self.held[self.name(item)] for item in items]
