"""Sets of time intervals as sorted, disjoint NumPy arrays (seconds)."""

from __future__ import annotations

import numpy as np


class IntervalSet:
    """The union of some intervals, stored merged: ``starts`` sorted, none overlapping."""

    def __init__(self, starts: np.ndarray, ends: np.ndarray):
        starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
        order = np.argsort(starts, kind="stable")
        starts, ends = starts[order], ends[order]
        if len(starts):
            # An interval starts a new group when it begins after every earlier end.
            reach = np.maximum.accumulate(ends)
            new_group = np.empty(len(starts), dtype=bool)
            new_group[0] = True
            new_group[1:] = starts[1:] > reach[:-1]
            self.starts = starts[new_group]
            self.ends = np.maximum.reduceat(ends, np.flatnonzero(new_group))
        else:
            self.starts, self.ends = starts, ends
        lengths = self.ends - self.starts
        self._covered_before = np.concatenate([[0.0], np.cumsum(lengths)])

    def __len__(self) -> int:
        return len(self.starts)

    def covered_until(self, t: np.ndarray | float) -> np.ndarray:
        """Total length of the set that lies before time ``t``."""
        t = np.asarray(t, dtype=float)
        index = np.searchsorted(self.starts, t, side="right") - 1
        safe = np.clip(index, 0, max(len(self.starts) - 1, 0))
        if not len(self.starts):
            return np.zeros_like(t)
        partial = np.clip(t - self.starts[safe], 0.0, self.ends[safe] - self.starts[safe])
        return np.where(index >= 0, self._covered_before[safe] + partial, 0.0)

    def covered(self, start: np.ndarray | float, end: np.ndarray | float) -> np.ndarray:
        """How much of each window [start, end] the set covers."""
        return self.covered_until(end) - self.covered_until(start)

    def gaps_within(self, start: float, end: float) -> list[tuple[float, float]]:
        """The parts of [start, end] the set does not cover, in time order."""
        first = max(np.searchsorted(self.ends, start, side="left"), 0)
        gaps, cursor = [], start
        for s, e in zip(self.starts[first:], self.ends[first:], strict=True):
            if s >= end:
                break
            if s > cursor:
                gaps.append((float(cursor), float(s)))
            cursor = max(cursor, e)
        if cursor < end:
            gaps.append((float(cursor), float(end)))
        return gaps
