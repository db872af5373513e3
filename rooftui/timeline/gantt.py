"""A text Gantt chart of one step: what each stream and range did, column by column.

Pure data for the views: :func:`step_gantt` turns a step of a
:class:`~rooftui.timeline.analysis.TimelineAnalysis` into rows of cells, each a
character and a *kind* ("kernel", "copy_pageable", "idle", a range name...). A
view maps kinds to colours; tests read the characters. Each kind has a glyph of
its own (``GLYPHS``), in Unicode and in ASCII, so the lanes read without colour
(NO_COLOR) too, and every row is exactly as wide as asked in either mode.

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
from rooftui.views.text import printable, shorten

MAX_RANGE_DEPTH = 3

# Per kind: the glyph of a column it fills (40% or more), and of one it only touches.
GLYPHS = {
    False: {  # Unicode
        "kernel": ("█", "▓"),
        "copy": ("▤", "▤"),
        "copy_pageable": ("▧", "▧"),
        "memset": ("▥", "▥"),
        "sync": ("▒", "▒"),
        "idle": ("░", "░"),
        "stream_idle": ("·", "·"),
        "marker": ("▲", "▲"),
    },
    True: {  # ASCII
        "kernel": ("#", "+"),
        "copy": ("c", "c"),
        "copy_pageable": ("P", "P"),
        "memset": ("m", "m"),
        "sync": ("s", "s"),
        "idle": ("-", "-"),
        "stream_idle": (".", "."),
        "marker": ("^", "^"),
    },
}
# What the legend says each kind is, in the order it lists them.
KIND_NAMES = (
    ("kernel", "kernel"),
    ("copy", "copy"),
    ("copy_pageable", "pageable"),
    ("memset", "memset"),
    ("sync", "host wait"),
    ("idle", "idle"),
    ("marker", "finding"),
)
# A range's start, the ellipsis of a cut range name, an axis tick.
MARKS = {False: ("▏", "…", "┆"), True: ("|", "~", ":")}


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
    legend: list[tuple[str, str, str]] = field(default_factory=list)  # (what, kind, its glyphs)


def step_gantt(
    analysis: TimelineAnalysis,
    step_index: int,
    width: int,
    marker: Place | None = None,
    window: tuple[float, float] | None = None,
    ascii_mode: bool = False,
) -> GanttChart:
    """The Gantt of ``analysis.steps[step_index]`` over ``width`` columns, every row and
    the axis exactly ``width`` characters, ASCII only with ``ascii_mode``.

    ``window`` (start, end), inside the step, zooms in; the axis still counts
    from the step's start.
    """
    width = max(width, 10)
    step = analysis.context.steps[step_index]
    start, end = window if window is not None else (step.start, step.end)
    glyphs = GLYPHS[ascii_mode]
    chart = GanttChart(step.label, start, end)
    edges = np.linspace(start, end, width + 1)
    chart.rows += _range_rows(analysis, start, end, edges, ascii_mode)
    chart.rows.append(_sync_row(analysis, start, end, edges, glyphs))
    chart.rows += _stream_rows(analysis, start, end, edges, glyphs)
    chart.rows.append(_idle_row(analysis, edges, glyphs))
    chart.rows.append(_marker_row(marker, edges, glyphs))
    chart.axis = _axis(start - step.start, end - start, width, ascii_mode)
    # "█▓ kernel": a kernel's column filled, and one it only touches
    chart.legend = [(name, kind, "".join(dict.fromkeys(glyphs[kind]))) for kind, name in KIND_NAMES]
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


def _glyph(glyphs: dict[str, tuple[str, str]], kind: str, fraction: float) -> str:
    """``kind``'s glyph for a column ``fraction`` covered."""
    full, partial = glyphs[kind]
    return full if fraction >= 0.4 else partial


def _range_rows(
    analysis: TimelineAnalysis, start: float, end: float, edges: np.ndarray, ascii_mode: bool
) -> list[GanttRow]:
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
        begins, ellipsis, _ = MARKS[ascii_mode]
        shown = printable(name)
        if ascii_mode:  # one character for one: the row keeps its width
            shown = "".join(ch if ch.isascii() else "?" for ch in shown)
        label = shorten(begins + shown, span, ellipsis).ljust(span)
        row = levels[depth]
        for offset, c in enumerate(range(first, last + 1)):
            row.chars[c] = label[offset]
            row.kinds[c] = f"range:{name}"
    return levels


def _sync_row(
    analysis: TimelineAnalysis,
    start: float,
    end: float,
    edges: np.ndarray,
    glyphs: dict[str, tuple[str, str]],
) -> GanttRow:
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
    chars = [_glyph(glyphs, "sync", f) if f > 0 else " " for f in cover]
    return GanttRow("host waits", chars, ["sync" if f > 0 else "" for f in cover])


def _stream_rows(
    analysis: TimelineAnalysis,
    start: float,
    end: float,
    edges: np.ndarray,
    glyphs: dict[str, tuple[str, str]],
) -> list[GanttRow]:
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
            chars.append(_glyph(glyphs, kind or "stream_idle", min(total, 1.0)))
            kinds.append(kind or "stream_idle")
        label = f"stream {stream}" if len({int(d) for d in gpu.device}) == 1 else f"GPU{device} s{stream}"
        rows_out.append(GanttRow(label, chars, kinds))
    return rows_out


def _idle_row(analysis: TimelineAnalysis, edges: np.ndarray, glyphs: dict[str, tuple[str, str]]) -> GanttRow:
    busy = analysis.context.gpu_busy.covered(edges[:-1], edges[1:]) / (edges[1] - edges[0])
    idle = 1.0 - np.clip(busy, 0.0, 1.0)
    chars = [_glyph(glyphs, "idle", f) if f > 0.01 else " " for f in idle]
    return GanttRow("GPU idle", chars, ["idle" if f > 0.01 else "" for f in idle])


def _marker_row(marker: Place | None, edges: np.ndarray, glyphs: dict[str, tuple[str, str]]) -> GanttRow:
    width = len(edges) - 1
    chars, kinds = [" "] * width, [""] * width
    if marker is not None and marker.end >= edges[0] and marker.start <= edges[-1]:
        first, last = _label_span(edges, marker.start, marker.end)
        for c in range(first, last + 1):
            chars[c], kinds[c] = glyphs["marker"][0], "marker"
    return GanttRow("finding", chars, kinds)


def _axis(offset: float, duration: float, width: int, ascii_mode: bool = False) -> str:
    """Tick labels every 12 columns, from the step's start: "┆0 ms      ┆5.1 ms ..."."""
    unit, scale = ("ms", 1e3) if offset + duration >= 2e-3 else ("us" if ascii_mode else "µs", 1e6)
    tick_mark = MARKS[ascii_mode][2]
    step_cols = 12
    tick = duration * scale * step_cols / width
    decimals = int(np.clip(np.ceil(-np.log10(tick)) + 1, 0, 3)) if tick > 0 else 0
    axis = [" "] * width
    for col in range(0, width - 4, step_cols):
        label = f"{tick_mark}{(offset + col / width * duration) * scale:.{decimals}f} {unit}"
        if col + len(label) <= width:
            axis[col : col + len(label)] = list(label)
    return "".join(axis)
