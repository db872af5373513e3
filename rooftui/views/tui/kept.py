"""Answers a Textual-free model keeps by what they depend on, a bounded number of them.

A redraw asks again for what the last one made (a chart at the same size, a legend's rows
for the same content): the models keep those answers here rather than each in a dict of
its own. Beyond ``most`` the oldest answer is dropped, so a long session of resizes keeps
at most that many.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Kept(Generic[V]):
    """At most ``most`` answers, by key; ``get(key, make)`` makes one only when not kept."""

    def __init__(self, most: int):
        self.most = most
        self._made: dict[Hashable, V] = {}

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        if key not in self._made:
            value = make()
            if len(self._made) >= self.most:
                del self._made[next(iter(self._made))]  # the oldest
            self._made[key] = value
        return self._made[key]

    def clear(self) -> None:
        self._made.clear()
