"""GPU idle time per step: how much of each step no stream ran anything, and during what.

Idle time is the step's length minus the union of all GPU activity (kernels,
copies, memsets on every stream) inside it. It is broken down by the top-level
``record_function`` range the training thread was in while the GPU idled
("data_loading", "optimizer", ...), and the idle gap that spans each boundary
between two steps is reported separately: that is the gap a synchronous input
copy leaves between steps.

Idle time also splits by gap length. Gaps shorter than SHORT_GAP_S are the GPU
waiting for the next launch: the host issues work more slowly than the GPU runs
it (host-bound; the profiler's own overhead adds to it). Longer gaps are stalls:
data loading, syncs, Python between phases.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise

import numpy as np

from rooftui.timeline.context import TraceContext
from rooftui.timeline.finding import Finding, Place
from rooftui.timeline.findings.overlap import DATA_LOADING
from rooftui.views import formats

# Report the idle time as a finding from this share of the step on. A well-fed
# training step keeps some idle for launch latency and the step boundary; a tenth
# of the step is a stall worth looking at.
IDLE_SHARE_TO_REPORT = 0.10
# Launching a kernel costs the host ~5–20 µs, more under the profiler; a gap up
# to this long between kernels is launch latency rather than a stall.
SHORT_GAP_S = 100e-6
MAX_PLACES = 8
OUTSIDE_RANGES = "(outside any range)"


def idle_per_step(ctx: TraceContext) -> list[float]:
    """Seconds of GPU idle time inside each step, in step order."""
    starts = np.array([s.start for s in ctx.steps])
    ends = np.array([s.end for s in ctx.steps])
    return ((ends - starts) - ctx.gpu_busy.covered(starts, ends)).tolist()


def find_gpu_idle(ctx: TraceContext) -> list[Finding]:
    idle = idle_per_step(ctx)
    durations = [s.duration for s in ctx.steps]
    n_steps = len(ctx.steps)
    idle_share = sum(idle) / sum(durations)
    if idle_share < IDLE_SHARE_TO_REPORT:
        return []
    by_range = _idle_by_top_range(ctx)
    worst_range = max(by_range, key=lambda name: by_range[name]) if by_range else OUTSIDE_RANGES
    across = _idle_across_step_boundaries(ctx)
    gaps = [
        Place(step.number, start, end)
        for step in ctx.steps
        for start, end in ctx.gpu_busy.gaps_within(step.start, step.end)
    ]
    short_s = sum(p.end - p.start for p in gaps if p.end - p.start < SHORT_GAP_S)
    cost = sum(idle) / n_steps
    worst_s = by_range.get(worst_range, 0.0) / n_steps
    title = (
        f"The GPU idles {idle_share:.0%} of each step; the largest part, "
        f"{formats.seconds(worst_s)}, while the host is in {worst_range}"
    )
    if not DATA_LOADING.search(worst_range):
        title += ": the host issues work more slowly than the GPU runs it"
    return [
        Finding(
            kind="gpu_idle",
            title=title,
            cost_per_step_s=cost,
            share_of_step=idle_share,
            range=worst_range,
            steps=[s.number for s in ctx.steps],
            count_per_step=len(gaps) / n_steps,
            details={
                "idle_share_by_step": {
                    s.label: round(i / s.duration, 4) for s, i in zip(ctx.steps, idle, strict=True)
                },
                "idle_per_step_s_by_range": {
                    name: seconds / n_steps
                    for name, seconds in sorted(by_range.items(), key=lambda kv: -kv[1])
                },
                "idle_across_step_boundaries_per_step_s": across / n_steps,
                "idle_in_short_gaps_per_step_s": short_s / n_steps,
                "idle_in_long_gaps_per_step_s": (sum(idle) - short_s) / n_steps,
            },
            places=sorted(gaps, key=lambda p: p.start - p.end)[:MAX_PLACES],
        )
    ]


def _idle_by_top_range(ctx: TraceContext) -> dict[str, float]:
    """GPU idle seconds (all steps) under each outermost user range below the step."""
    ranges = ctx.trace.host_ranges
    rows = np.flatnonzero((ranges.thread == ctx.main_thread) & (ranges.is_annotation == 1))
    totals: dict[str, float] = defaultdict(float)
    for step in ctx.steps:
        inside = rows[(ranges.start[rows] >= step.start) & (ranges.end[rows] <= step.end)]
        inside = inside[
            [not ctx.trace.names[ranges.name[r]].startswith("ProfilerStep#") for r in inside.tolist()]
        ]
        covered_by_ranges = 0.0
        reach = -np.inf
        for r in inside[np.argsort(ranges.start[inside], kind="stable")].tolist():
            start, end = float(ranges.start[r]), float(ranges.end[r])
            if end <= reach:  # nested in an earlier top-level range
                continue
            start = max(start, reach)
            idle = (end - start) - float(ctx.gpu_busy.covered(start, end))
            totals[ctx.trace.names[ranges.name[r]]] += idle
            covered_by_ranges += idle
            reach = end
        step_idle = step.duration - float(ctx.gpu_busy.covered(step.start, step.end))
        if step_idle - covered_by_ranges > 1e-9:
            totals[OUTSIDE_RANGES] += step_idle - covered_by_ranges
    return dict(totals)


def _idle_across_step_boundaries(ctx: TraceContext) -> float:
    """Seconds of the idle gaps that contain a boundary between two steps, summed."""
    busy = ctx.gpu_busy
    total = 0.0
    for before, after in pairwise(ctx.steps):
        boundary = after.start
        for start, end in busy.gaps_within(before.start, after.end):
            if start <= boundary <= end:
                total += end - start
    return total
