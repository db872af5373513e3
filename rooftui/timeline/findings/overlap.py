"""Does data loading overlap GPU compute, or does the GPU wait for it?

Data-loading ranges are ``record_function``/NVTX ranges named like data loading
(see DATA_LOADING). The *exposed* part of data loading is the time such a range
is open while the GPU runs nothing: that is what a prefetching, double-buffered
input pipeline removes. A range on a worker thread that runs while the GPU
computes costs nothing here.
"""

from __future__ import annotations

import re

import numpy as np

from rooftui.timeline.context import TraceContext
from rooftui.timeline.finding import Finding, Place
from rooftui.timeline.intervals import IntervalSet

DATA_LOADING = re.compile(r"data|load|prefetch|preprocess|augment|h2d|__next__", re.IGNORECASE)
# Report when the GPU waits on data loading for this share of the step or more.
EXPOSED_SHARE_TO_REPORT = 0.05
MAX_PLACES = 8


def _split_by_step(ctx: TraceContext, loading: IntervalSet) -> list[tuple[int, float, float]]:
    """(step index, start, end) of each part of the loading time that lies in a step."""
    step_starts = np.array([step.start for step in ctx.steps])
    step_ends = np.array([step.end for step in ctx.steps])
    first_steps = np.searchsorted(step_ends, loading.starts, side="left")
    pieces = []
    for start, end, k in zip(
        loading.starts.tolist(), loading.ends.tolist(), first_steps.tolist(), strict=True
    ):
        while k < len(step_starts) and step_starts[k] < end:
            clipped_start, clipped_end = max(start, step_starts[k]), min(end, step_ends[k])
            if clipped_end > clipped_start:
                pieces.append((k, clipped_start, clipped_end))
            k += 1
    return pieces


def data_loading_rows(ctx: TraceContext) -> np.ndarray:
    ranges = ctx.trace.host_ranges
    codes = ctx.trace.codes_where(
        lambda name: DATA_LOADING.search(name) is not None and not name.startswith("ProfilerStep#")
    )
    return np.flatnonzero((ranges.is_annotation == 1) & np.isin(ranges.name, codes))


def find_serial_data_loading(ctx: TraceContext) -> list[Finding]:
    ranges = ctx.trace.host_ranges
    rows = data_loading_rows(ctx)
    if not len(rows):
        return []
    loading = IntervalSet(ranges.start[rows], ranges.end[rows])
    pieces = _split_by_step(ctx, loading)
    if not pieces:
        return []
    steps, starts, ends = (np.array(column) for column in zip(*pieces, strict=True))
    exposed = (ends - starts) - ctx.gpu_busy.covered(starts, ends)
    n_steps = len(ctx.steps)
    loading_s, exposed_s = float((ends - starts).sum()), float(exposed.sum())
    worst = np.argsort(-exposed, kind="stable")[:MAX_PLACES]
    places = [Place(ctx.steps[steps[i]].number, float(starts[i]), float(ends[i])) for i in worst]
    cost = exposed_s / n_steps
    if loading_s == 0 or cost / ctx.mean_step_s < EXPOSED_SHARE_TO_REPORT:
        return []
    names = sorted({ctx.trace.names[code] for code in np.unique(ranges.name[rows])})
    overlapped = 1 - exposed_s / loading_s
    return [
        Finding(
            kind="data_loading_overlap",
            title=f"Data loading does not overlap compute: the GPU waits {cost / ctx.mean_step_s:.0%}"
            " of each step for it",
            cost_per_step_s=cost,
            share_of_step=cost / ctx.mean_step_s,
            range=" | ".join(names),
            steps=[s.number for s in ctx.steps],
            count_per_step=len(starts) / n_steps,
            details={
                "data_loading_per_step_s": loading_s / n_steps,
                "exposed_per_step_s": cost,
                "overlapped_share": round(overlapped, 4),
            },
            places=places,
        )
    ]
