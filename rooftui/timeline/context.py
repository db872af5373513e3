"""What every analysis needs about one trace, worked out once."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from rooftui.timeline.hoststack import HostStacks
from rooftui.timeline.intervals import IntervalSet
from rooftui.timeline.steps import find_steps
from rooftui.timeline.trace import Trace

RANGE_SEPARATOR = " > "
CALL_SEPARATOR = " > "


class TraceContext:
    """A trace with its steps, the GPU's busy time and host-stack lookups."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self.steps, self.main_thread = find_steps(trace)
        self.stacks = HostStacks(trace)
        self._step_starts = np.array([step.start for step in self.steps])
        self._step_ends = np.array([step.end for step in self.steps])

    @cached_property
    def gpu_busy(self) -> IntervalSet:
        """When any GPU stream ran anything (kernel, copy or memset)."""
        return IntervalSet(self.trace.gpu.start, self.trace.gpu.end)

    @cached_property
    def _calls_by_correlation(self) -> tuple[np.ndarray, np.ndarray]:
        calls = self.trace.host_calls
        order = np.argsort(calls.correlation, kind="stable")
        return calls.correlation[order], order

    def launching_calls(self, correlations: np.ndarray) -> np.ndarray:
        """Rows in ``host_calls`` of the calls with these correlation ids; -1 where none."""
        sorted_ids, order = self._calls_by_correlation
        if not len(sorted_ids):
            return np.full(len(correlations), -1)
        pos = np.clip(np.searchsorted(sorted_ids, correlations), 0, len(sorted_ids) - 1)
        found = (sorted_ids[pos] == correlations) & (correlations >= 0)
        return np.where(found, order[pos], -1)

    def step_index(self, times: np.ndarray | float) -> np.ndarray:
        """Index into ``steps`` of the step each time falls in; -1 outside every step."""
        times = np.asarray(times, dtype=float)
        index = np.searchsorted(self._step_starts, times, side="right") - 1
        safe = np.clip(index, 0, len(self.steps) - 1)
        return np.where((index >= 0) & (times <= self._step_ends[safe]), index, -1)

    def user_range(self, thread: int | None, t: float) -> str:
        """The ``record_function``/NVTX ranges open at ``t``, below the step, joined."""
        annotations, _ = self.stacks.describe(thread, t)
        inside_step = [name for name in annotations if not name.startswith("ProfilerStep#")]
        return RANGE_SEPARATOR.join(inside_step) or "(no range)"

    def host_call(self, thread: int | None, t: float) -> str:
        """The operator stack open at ``t`` (``aten::item > aten::_local_scalar_dense``)."""
        _, operators = self.stacks.describe(thread, t)
        return CALL_SEPARATOR.join(operators)

    @property
    def mean_step_s(self) -> float:
        return float(np.mean(self._step_ends - self._step_starts))
