"""Training steps: the ``ProfilerStep#N`` ranges that ``prof.step()`` of torch.profiler writes."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from rooftui.timeline.trace import Trace

_STEP_NAME = re.compile(r"^ProfilerStep#(\d+)$")


@dataclass(frozen=True)
class Step:
    """One step on the host: from ``prof.step()`` to the next. ``number`` None: no steps marked."""

    number: int | None
    start: float
    end: float

    @property
    def duration(self) -> float:
        return self.end - self.start

    @property
    def label(self) -> str:
        return "whole trace" if self.number is None else f"step {self.number}"


def _step_number(name: str) -> int:
    """N of a ``ProfilerStep#N`` range name."""
    match = _STEP_NAME.match(name)
    if match is None:
        raise ValueError(f"not a ProfilerStep range: {name!r}")
    return int(match.group(1))


def find_steps(trace: Trace) -> tuple[list[Step], int | None]:
    """The steps in time order, and the thread that marked them (the training loop's).

    A trace without ``ProfilerStep#N`` ranges counts as one step spanning all its
    GPU work, so every finding still has a "per step" cost.
    """
    ranges = trace.host_ranges
    codes = trace.codes_where(lambda name: _STEP_NAME.match(name) is not None)
    rows = np.flatnonzero(np.isin(ranges.name, codes) & (ranges.is_annotation == 1))
    rows = rows[ranges.end[rows] > ranges.start[rows]]  # a zero-length step has no time to share
    if len(rows):
        rows = rows[np.argsort(ranges.start[rows], kind="stable")]
        steps = [
            Step(
                _step_number(trace.names[ranges.name[r]]),
                float(ranges.start[r]),
                float(ranges.end[r]),
            )
            for r in rows
        ]
        threads, counts = np.unique(ranges.thread[rows], return_counts=True)
        return steps, int(threads[np.argmax(counts)])
    whole = Step(None, float(trace.gpu.start.min()), float(trace.gpu.end.max()))
    return [whole], _busiest_launching_thread(trace)


def _busiest_launching_thread(trace: Trace) -> int | None:
    if not len(trace.host_calls):
        return None
    threads, counts = np.unique(trace.host_calls.thread, return_counts=True)
    return int(threads[np.argmax(counts)])
