"""A text Gantt chart of one step: what each stream and range did, column by column.

Pure data for the views: :func:`step_gantt` turns a step of a
:class:`~rooftui.timeline.analysis.TimelineAnalysis` into rows of cells, each a
character and a *kind* ("kernel", "copy_pageable", "idle", a range name...). A
view maps kinds to colours; tests read the characters.

Rows, top to bottom: the training thread's ``record_function`` ranges (one row
per nesting level below the step), the host's waits on the GPU (sync calls),
one row per GPU stream, the GPU's idle time, and a marker row that points at a
selected finding's place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rooftui.timeline.analysis import TimelineAnalysis
from rooftui.timeline.finding import Place
from rooftui.timeline.findings.syncs import SYNC_CALLS
from rooftui.timeline.trace import GpuKind
from rooftui.views.text import shorten

MAX_RANGE_DEPTH = 3

# Darker glyph = more of the column covered.
_SHADES = ((0.75, "█"), (0.4, "▓"), (0.0, "▒"))


@dataclass
class GanttRow:
    label: str
    chars: list[str]
    kinds: list[str]  # one per character; "" for empty

    def text(self) -> str:
        return "".join(self.chars)


@dataclass
class GanttChart:
    step_label: str
    start: float  # the window, seconds from the trace's first event
    end: float
    rows: list[GanttRow] = field(default_factory=list)
    axis: str = ""


def step_gantt(
    analysis: TimelineAnalysis,
    step_index: int,
    width: int,
    marker: Place | None = None,
    window: tuple[float, float] | None = None,
) -> GanttChart:
    """The Gantt of ``analysis.steps[step_index]`` over ``width`` columns.

    ``window`` (start, end), inside the step, zooms in; the axis still counts
    from the step's start.
    """
    width = max(width, 10)
    step = analysis.context.steps[step_index]
    start, end = window if window is not None else (step.start, step.end)
    chart = GanttChart(step.label, start, end)
    edges = np.linspace(start, end, width + 1)
    chart.rows += _range_rows(analysis, start, end, edges)
    chart.rows.append(_sync_row(analysis, start, end, edges))
    chart.rows += _stream_rows(analysis, start, end, edges)
    chart.rows.append(_idle_row(analysis, edges))
    chart.rows.append(_marker_row(marker, edges))
    chart.axis = _axis(start - step.start, end - start, width)
    return chart


def zoom_window(step_start: float, step_end: float, place: Place) -> tuple[float, float]:
    """A window around ``place`` five times its length (at least 1/20 of the step), in the step."""
    length = max((place.end - place.start) * 5, (step_end - step_start) / 20)
    middle = (place.start + place.end) / 2
    start = min(max(middle - length / 2, step_start), step_end - length)
    return max(start, step_start), min(start + length, step_end)


def _label_span(edges: np.ndarray, start: float, end: float) -> tuple[int, int]:
    """Columns [first, last] whose middle lies in [start, end], at least one column.

    Neighbouring ranges then never claim the same column, whatever the rounding.
    """
    width = len(edges) - 1
    column = edges[1] - edges[0]
    first = int(np.clip(np.floor((start - edges[0]) / column + 0.5), 0, width - 1))
    last = int(np.clip(np.floor((end - edges[0]) / column + 0.5) - 1, 0, width - 1))
    return first, max(first, last)


def _column_span(edges: np.ndarray, start: float, end: float) -> tuple[int, int]:
    """Columns [first, last] that [start, end] touches; first > last if none."""
    width = len(edges) - 1
    first = int(np.searchsorted(edges, start, side="right")) - 1
    last = int(np.searchsorted(edges, end, side="left")) - 1
    return max(first, 0), min(last, width - 1)


def _coverage(edges: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Fraction of each column that the intervals cover (overlaps counted once per interval)."""
    cover = np.zeros(len(edges) - 1)
    column = edges[1] - edges[0]
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        first, last = _column_span(edges, start, end)
        for c in range(first, last + 1):
            overlap = min(end, edges[c + 1]) - max(start, edges[c])
            if overlap > 0:
                cover[c] += overlap / column
    return np.minimum(cover, 1.0)


def _shade(fraction: float) -> str:
    return next(char for threshold, char in _SHADES if fraction > threshold or threshold == 0.0)


def _range_rows(analysis: TimelineAnalysis, start: float, end: float, edges: np.ndarray) -> list[GanttRow]:
    ctx = analysis.context
    ranges = ctx.trace.host_ranges
    width = len(edges) - 1
    rows = np.flatnonzero(
        (ranges.thread == ctx.main_thread)
        & (ranges.is_annotation == 1)
        & (ranges.end > start)
        & (ranges.start < end)
    )
    levels: list[GanttRow] = []
    for r in rows[np.argsort(ranges.start[rows], kind="stable")].tolist():
        name = ctx.trace.names[ranges.name[r]]
        if name.startswith("ProfilerStep#"):
            continue
        depth = (
            sum(
                1
                for e in ctx.stacks.enclosing(ctx.main_thread, float(ranges.start[r]))
                if ranges.is_annotation[e] and not ctx.trace.names[ranges.name[e]].startswith("ProfilerStep#")
            )
            - 1
        )
        if depth >= MAX_RANGE_DEPTH or depth < 0:
            continue
        while len(levels) <= depth:
            level = len(levels)
            levels.append(
                GanttRow("ranges" if level == 0 else f"ranges {level + 1}", [" "] * width, [""] * width)
            )
        first, last = _label_span(edges, float(ranges.start[r]), float(ranges.end[r]))
        span = last - first + 1
        # "▏" marks where a range starts, so neighbours do not run together.
        label = "▏" + name
        label = shorten(label, span).ljust(span)
        row = levels[depth]
        for offset, c in enumerate(range(first, last + 1)):
            row.chars[c] = label[offset]
            row.kinds[c] = f"range:{name}"
    return levels


def _sync_row(analysis: TimelineAnalysis, start: float, end: float, edges: np.ndarray) -> GanttRow:
    """The training thread inside a synchronizing or copy call (a pageable copy stalls it)."""
    ctx = analysis.context
    calls = ctx.trace.host_calls
    codes = ctx.trace.codes_where(
        lambda name: name in SYNC_CALLS or name.startswith(("cudaMemcpy", "cuMemcpy"))
    )
    rows = np.flatnonzero(
        np.isin(calls.name, codes)
        & (calls.thread == ctx.main_thread)
        & (calls.end > start)
        & (calls.start < end)
    )
    cover = _coverage(edges, calls.start[rows], calls.end[rows])
    chars = [_shade(f) if f > 0 else " " for f in cover]
    return GanttRow("host waits", chars, ["sync" if f > 0 else "" for f in cover])


def _stream_rows(analysis: TimelineAnalysis, start: float, end: float, edges: np.ndarray) -> list[GanttRow]:
    ctx = analysis.context
    gpu = ctx.trace.gpu
    pageable = ctx.trace.codes_where(lambda name: "Pageable" in name)
    rows_out = []
    in_window = (gpu.end > start) & (gpu.start < end)
    for device, stream in sorted(
        {(int(d), int(s)) for d, s in zip(gpu.device[in_window], gpu.stream[in_window], strict=True)}
    ):
        mine = np.flatnonzero(in_window & (gpu.device == device) & (gpu.stream == stream))
        kind_of = {
            "copy_pageable": mine[(gpu.kind[mine] == GpuKind.MEMCPY) & np.isin(gpu.name[mine], pageable)],
            "copy": mine[(gpu.kind[mine] == GpuKind.MEMCPY) & ~np.isin(gpu.name[mine], pageable)],
            "memset": mine[gpu.kind[mine] == GpuKind.MEMSET],
            "kernel": mine[gpu.kind[mine] == GpuKind.KERNEL],
        }
        cover = {kind: _coverage(edges, gpu.start[rows], gpu.end[rows]) for kind, rows in kind_of.items()}
        chars, kinds = [], []
        for c in range(len(edges) - 1):
            # Copies win a column over kernels: they are rarer and what one looks for.
            kind = next((k for k in ("copy_pageable", "copy", "memset", "kernel") if cover[k][c] > 0), "")
            total = sum(cover[k][c] for k in cover)
            chars.append(_shade(min(total, 1.0)) if kind else "·")
            kinds.append(kind or "stream_idle")
        label = f"stream {stream}" if len({int(d) for d in gpu.device}) == 1 else f"GPU{device} s{stream}"
        rows_out.append(GanttRow(label, chars, kinds))
    return rows_out


def _idle_row(analysis: TimelineAnalysis, edges: np.ndarray) -> GanttRow:
    busy = analysis.context.gpu_busy.covered(edges[:-1], edges[1:]) / (edges[1] - edges[0])
    idle = 1.0 - np.clip(busy, 0.0, 1.0)
    chars = [_shade(f) if f > 0.01 else " " for f in idle]
    return GanttRow("GPU idle", chars, ["idle" if f > 0.01 else "" for f in idle])


def _marker_row(marker: Place | None, edges: np.ndarray) -> GanttRow:
    width = len(edges) - 1
    chars, kinds = [" "] * width, [""] * width
    if marker is not None and marker.end >= edges[0] and marker.start <= edges[-1]:
        first, last = _label_span(edges, marker.start, marker.end)
        for c in range(first, last + 1):
            chars[c], kinds[c] = "▲", "marker"
    return GanttRow("finding", chars, kinds)


def _axis(offset: float, duration: float, width: int) -> str:
    """Tick labels every 12 columns, from the step's start: "┆0 ms      ┆5.1 ms ..."."""
    unit, scale = ("ms", 1e3) if offset + duration >= 2e-3 else ("µs", 1e6)
    step_cols = 12
    tick = duration * scale * step_cols / width
    decimals = int(np.clip(np.ceil(-np.log10(tick)) + 1, 0, 3)) if tick > 0 else 0
    axis = [" "] * width
    for col in range(0, width - 4, step_cols):
        label = f"┆{(offset + col / width * duration) * scale:.{decimals}f} {unit}"
        if col + len(label) <= width:
            axis[col : col + len(label)] = list(label)
    return "".join(axis)
