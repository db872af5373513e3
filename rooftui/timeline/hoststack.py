"""What the host was doing at a moment: the operator and range stack on a thread."""

from __future__ import annotations

import numpy as np

from rooftui.timeline.trace import Trace


class HostStacks:
    """Answers "which ranges enclose time t on thread T", outermost first.

    Ranges on one thread nest (a profiler records a call tree), so each range's
    parent is found once with a stack pass; a lookup is then a binary search plus
    a walk up at most the nesting depth. Threads are indexed on first use.
    """

    def __init__(self, trace: Trace):
        self.trace = trace
        ranges = trace.host_ranges  # by thread, start, and the longer first on ties
        self._threads = {}
        if len(ranges):
            bounds = np.flatnonzero(np.diff(ranges.thread)) + 1
            for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(ranges)], strict=True):
                self._threads[int(ranges.thread[lo])] = (int(lo), int(hi))
        self._parents: dict[int, np.ndarray] = {}

    def _parent_index(self, thread: int) -> np.ndarray:
        parents = self._parents.get(thread)
        if parents is None:
            lo, hi = self._threads[thread]
            starts = self.trace.host_ranges.start[lo:hi].tolist()
            ends = self.trace.host_ranges.end[lo:hi].tolist()
            parent_list = [-1] * (hi - lo)
            open_ranges: list[int] = []
            for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
                while open_ranges and ends[open_ranges[-1]] < start:
                    open_ranges.pop()
                # Ranges that overlap without nesting (rare: async ranges) are
                # closed here, so the stack stays a chain of containers.
                while open_ranges and ends[open_ranges[-1]] < end:
                    open_ranges.pop()
                parent_list[i] = open_ranges[-1] if open_ranges else -1
                open_ranges.append(i)
            parents = self._parents[thread] = np.array(parent_list, dtype=np.int64)
        return parents

    def enclosing(self, thread: int | None, t: float) -> list[int]:
        """Row numbers (into ``trace.host_ranges``) of the ranges open at ``t``, outermost first."""
        if thread not in self._threads:
            return []
        lo, hi = self._threads[thread]
        parents = self._parent_index(thread)
        starts = self.trace.host_ranges.start
        ends = self.trace.host_ranges.end
        i = int(np.searchsorted(starts[lo:hi], t, side="right")) - 1
        while i >= 0 and ends[lo + i] < t:
            i = int(parents[i])
        stack = []
        while i >= 0:
            stack.append(lo + i)
            i = int(parents[i])
        return stack[::-1]

    def describe(self, thread: int | None, t: float) -> tuple[list[str], list[str]]:
        """(user ranges, operators) open at ``t`` on ``thread``, outermost first, as names."""
        rows = self.enclosing(thread, t)
        ranges = self.trace.host_ranges
        annotations = [self.trace.names[ranges.name[r]] for r in rows if ranges.is_annotation[r]]
        operators = [self.trace.names[ranges.name[r]] for r in rows if not ranges.is_annotation[r]]
        return annotations, operators
