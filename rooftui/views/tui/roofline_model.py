"""The geometry of a hierarchical roofline, in log10 coordinates — no drawing.

``build_figure`` turns ceilings and a kernel table into roof segments, point
series and ticks; ``roofline_layout.lay_out`` puts them on character cells for the
explorer and the compare chart alike. Working in log10 values keeps the figure
stable across rebuilds and resizes.

Each kernel is drawn at up to three points — its arithmetic intensity at L1, L2
and HBM, all at its one FLOP/s. The heaviest kernels (by time) are drawn one by
one; beyond ``individual_limit`` the rest are merged to one point per plot cell,
which looks the same at terminal resolution and keeps redraws fast.

The FLOP/s axis is zoomed to the kernels that matter: when the plot has fewer
than ``ROWS_PER_DECADE`` rows per decade, the slowest kernels that together take
at most ``EDGE_SHARES[-1]`` of the plotted time are drawn on the bottom edge (as
"below" points, counted in the note) instead of stretching the axis by decades
that a 24-row terminal cannot afford. With rows to spare nothing is clamped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rooftui.analysis import zero_ai as zero_ai_counts
from rooftui.analysis.ceilings import missing_roofs, source_text
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS, OPTIONAL_LEVELS, PIPELINE_LABELS, flop_column
from rooftui.views.formats import counted, decade, si
from rooftui.views.tui.format import MISSING

INDIVIDUAL_LIMIT = 1000  # kernels drawn one by one; the rest are merged per cell
HEAVY_COUNT = 10  # the heaviest kernels get the bold marker
TAG_COUNT = 5  # the heaviest kernels get a short tag on the plot and in the table
# Shares of the plotted time that the slowest kernels may hold and still be put on
# the bottom edge, tried in turn until the FLOP/s axis has ROWS_PER_DECADE.
EDGE_SHARES = (0.0, 0.01, 0.02, 0.05)
ROWS_PER_DECADE = 2
MIN_DECADES = 3  # the FLOP/s axis spans at least this much
HEADROOM = 0.4  # decades above the highest roof
EXPLORER_HEADROOM = 0.2  # the explorer's: rows are scarce at 80x24


@dataclass(frozen=True)
class Roof:
    key: str  # a level ("hbm") or pipelines joined by "+" ("fp64+fp32")
    kind: str  # "bandwidth" | "compute"
    tag: str  # short text drawn on the plot
    label: str  # value and source, for the legend
    xs: tuple[float, float]
    ys: tuple[float, float]
    source: str = ""  # where its value came from and when: "bundled with rooftui, measured 2026-11-29"


@dataclass(frozen=True, eq=False)
class PointSeries:
    level: str
    emphasis: str  # "heavy" | "normal" | "merged" | "below" (clamped to the bottom edge) | "bypassed"
    xs: np.ndarray
    ys: np.ndarray
    # Row label in the plotted frame of each point; empty for merged points.
    kernels: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=object))


@dataclass(frozen=True)
class Segment:
    """A straight line between two points, in log10 coordinates: the compare chart's
    arrow from a kernel's point in run A to its point in run B."""

    xs: tuple[float, float]
    ys: tuple[float, float]
    selected: bool = False  # the pair chosen in the compare screen's list, drawn on top


@dataclass(frozen=True)
class NotPlotted:
    """Launches with no point on a roofline, and why, in the words every view uses for
    zero-AI (``analysis.zero_ai``): counted in launches, as Table III and the status
    line count them."""

    why: str  # "zero-AI" | "integer" | "uncounted" | "no time"
    launches: int

    @property
    def text(self) -> str:
        """ "34 zero-AI launches not plotted" and the like."""
        n = self.launches
        what = {
            "zero-AI": counted(n, "zero-AI launch"),
            "integer": counted(n, "INT8 Tensor launch"),
            "uncounted": counted(n, "launch") + " without FLOP counters",
            "no time": counted(n, "launch") + " without a time",
        }[self.why]
        # Integer Tensor work is work: never zero-AI, and no FLOP/s roof measures it.
        return f"{what} not plotted" + (" (integer ops, no FLOP)" if self.why == "integer" else "")

    @property
    def short(self) -> str:
        """The status line's few words: "34 zero-AI not plotted"."""
        return {
            "zero-AI": f"{self.launches:,} zero-AI not plotted",
            "integer": f"{self.launches:,} INT8 not plotted",
            "uncounted": f"{self.launches:,} uncounted not plotted",
            "no time": f"{self.launches:,} untimed not plotted",
        }[self.why]


def not_plotted(frame: pd.DataFrame) -> list[NotPlotted]:
    """Why ``frame``'s launches without a point have none, in launches: the zero-AI ones
    (``zero_ai.launches``, mixed groups' too), those of INT8 Tensor work only, those
    with no FLOP counter at all, and those without a time. A frame without the zero-AI
    columns (a bare table) counts its unplotted rows as "no time"."""
    counts = zero_ai_counts.launch_counts(frame) if len(frame) else np.zeros(0, dtype=np.int64)
    unplotted = np.ones(len(frame), dtype=bool)
    unplotted[plotted_rows(frame)] = False
    if "zero_ai" not in frame.columns:
        return [NotPlotted("no time", int(counts[unplotted].sum()))] if unplotted.any() else []
    zero = zero_ai_counts.launches(frame)
    others = np.where(unplotted, counts - zero, 0)  # an unplotted row's launches that are not zero-AI
    int8 = flop_column("tensor_int8")
    integer = np.zeros(len(frame), dtype=bool)
    if int8 in frame.columns:
        integer = frame[int8].fillna(0).to_numpy(dtype=float) > 0
    uncounted = frame["zero_ai"].astype("boolean").isna().to_numpy(dtype=bool) & ~integer
    found = [
        NotPlotted("zero-AI", int(zero.sum())),
        NotPlotted("integer", int(others[integer].sum())),
        NotPlotted("uncounted", int(others[uncounted].sum())),
        NotPlotted("no time", int(others[~integer & ~uncounted].sum())),
    ]
    return [said for said in found if said.launches]


@dataclass(eq=False)  # compared by identity: a new figure means redraw
class RooflineFigure:
    roofs: list[Roof]
    points: list[PointSeries]
    selected: list[tuple[str, float, float]]  # (level, log10 AI, log10 FLOP/s)
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_ticks: list[tuple[float, str]] = field(default_factory=list)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    note: str = ""
    tags: dict = field(default_factory=dict)  # row label -> short tag of the heaviest kernels
    below: int = 0  # kernels drawn on the bottom edge, slower than the axis shows
    zero_ai: int = 0  # rows not plotted: no FLOP (zero-AI, integer work) or no time
    missing: list[str] = field(default_factory=list)  # "no L2 roof: pass --ceilings or ..."
    segments: list[Segment] = field(default_factory=list)  # A -> B arrows (the compare chart)
    not_plotted: list[NotPlotted] = field(default_factory=list)  # launches with no point, and why


def method_word(method: str) -> str:
    return {"empirical": "empirical", "spec": "spec", "report": "report"}.get(method, method)


def log10_finite(values: np.ndarray) -> np.ndarray:
    """log10 of ``values``, NaN where it is not finite (0, negative, NaN): both rooflines."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log10(values)
    out[~np.isfinite(out)] = np.nan
    return out


def _compute_roofs(ceilings: CeilingSet, pipelines: list[str]) -> list[tuple[str, float, str, str]]:
    """(pipelines joined by "+", FLOP/s, label, source) per distinct peak, highest first.

    Pipelines with the same peak (FP64 and FP32 on an H100) share one line.
    """
    by_value: dict[float, list] = {}
    for pipeline in pipelines:
        ceiling = ceilings.compute(pipeline)
        if ceiling is not None and ceiling.value > 0:
            by_value.setdefault(ceiling.value, []).append(ceiling)
    roofs = []
    for value in sorted(by_value, reverse=True):
        group = by_value[value]
        names = " · ".join(PIPELINE_LABELS.get(c.precision, c.name) for c in group)
        methods = "/".join(sorted({method_word(c.method) for c in group}))
        unit = group[0].unit
        label = f"{names} {si(value, unit, missing=MISSING)} ({methods})"
        source = " / ".join(dict.fromkeys(source_text(c) for c in group))
        roofs.append(("+".join(c.precision for c in group), value, label, source))
    return roofs


def decade_ticks(lo: float, hi: float, room: int) -> list[tuple[float, str]]:
    """A tick per decade from ``lo`` to ``hi`` (log10), every step-th one so that at
    most ``room`` (at least 2) are left: labels that collide are placed differently
    from run to run. The roofline and the compare chart both use it."""
    exponents = list(range(math.ceil(lo), math.floor(hi) + 1))
    step = max(1, math.ceil(len(exponents) / max(2, room)))
    return [(float(e), decade(e)) for e in exponents[::step]]


def axis_ticks(
    x_range: tuple[float, float], y_range: tuple[float, float], cells: tuple[int, int]
) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    """The x and y ticks (``decade_ticks``) of a plot ``cells`` wide and high: each x
    label gets its characters and a gap of 2 (the longest of the axis's labels, and at
    least "0.001"'s), each y label two rows. The roofline and the compare chart both use it."""
    x_lo, x_hi = math.floor(x_range[0]), math.ceil(x_range[1])
    x_room = cells[0] // (max(len(decade(e)) for e in (x_lo, x_hi, -3)) + 2)
    return decade_ticks(*x_range, x_room), decade_ticks(*y_range, cells[1] // 2)


def _merge_per_cell(xs, ys, x_range, y_range, cells) -> tuple[np.ndarray, np.ndarray]:
    cols, rows = cells
    ix = np.floor((xs - x_range[0]) / (x_range[1] - x_range[0]) * cols)
    iy = np.floor((ys - y_range[0]) / (y_range[1] - y_range[0]) * rows)
    # One integer per cell: np.unique on a 1-D int array is much faster than on pairs.
    occupied = np.unique(ix.astype(np.int64) * (rows + 2) + iy.astype(np.int64))
    cx, cy = np.divmod(occupied, rows + 2)
    return (
        x_range[0] + (cx + 0.5) / cols * (x_range[1] - x_range[0]),
        y_range[0] + (cy + 0.5) / rows * (y_range[1] - y_range[0]),
    )


def roof_sources(roofs: list[Roof]) -> str:
    """Where the roofs came from, in one line: "roofs: bundled with rooftui, measured
    2026-11-29", or per source when they differ ("L1, HBM: ...; FP64: ...")."""
    by_source: dict[str, list[str]] = {}
    for roof in roofs:
        if roof.source:
            by_source.setdefault(roof.source, []).append(short_name(roof))
    if len(by_source) == 1:
        return f"roofs: {next(iter(by_source))}"
    return "; ".join(f"{', '.join(names)}: {source}" for source, names in by_source.items())


def short_name(roof: Roof) -> str:
    """The roof's name alone: "L2", "FP64 · FP32"."""
    return LEVEL_LABELS.get(roof.key) or " · ".join(PIPELINE_LABELS.get(p, p) for p in roof.key.split("+"))


def _missing_roofs(ceilings: CeilingSet, levels, pipelines) -> list[str]:
    """What the analysis says is missing (``analysis.ceilings.missing_roofs``), for the
    levels and pipelines shown: the plot must say a roof is absent, not just omit it."""
    return [
        miss.message
        for miss in missing_roofs(ceilings.device.name, ceilings, pipelines, levels)
        if miss.kind == "compute" or miss.roof in levels
    ]


def plotted_rows(frame: pd.DataFrame) -> np.ndarray:
    """Positions in ``frame`` of the kernels a roofline can place (some FLOPs and a
    FLOP rate), heaviest (by time) first."""
    flops = frame["flops"].to_numpy(dtype=float)
    rate = frame["flop_rate"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        plotted = np.flatnonzero((flops > 0) & (rate > 0))
    time = frame["time_s"].to_numpy(dtype=float)[plotted]
    return plotted[np.argsort(-time, kind="stable")]


def tags_for(frame: pd.DataFrame, count: int = TAG_COUNT) -> dict:
    """Short tags ("1".."5") of the ``count`` heaviest plotted kernels of ``frame``,
    by row label: the roofline draws them beside the kernels' points and the kernel
    table can show them in its name column, so both name the same kernels."""
    return {frame.index[p]: str(i + 1) for i, p in enumerate(plotted_rows(frame)[:count])}


def tags_plotted(labels: np.ndarray, count: int, tags: dict | None) -> dict:
    """The tags of plotted kernels (``labels``, heaviest first): ``tags`` of those
    plotted, or by default the ``count`` heaviest, "1".."5"."""
    if tags is None:
        return {labels[i]: str(i + 1) for i in range(min(count, len(labels)))}
    plotted = set(labels.tolist())
    return {label: tag for label, tag in tags.items() if label in plotted}


def kernel_tags(kernels: pd.DataFrame, launches: pd.DataFrame, grouped: bool, count: int = TAG_COUNT) -> dict:
    """The tags of the run's ``count`` heaviest plotted kernels, as ``tags_for`` gives
    them to ``kernels`` (grouped by name, labelled by position): in ``kernels`` when
    ``grouped``, else on each such kernel's heaviest plotted launch in ``launches``.
    Taken from the whole run, so no filter, size or ``g`` moves a tag to another kernel."""
    tags = tags_for(kernels, count)
    if grouped or not tags:
        return tags
    keys = [key for key in ("device", "rank", "name") if key in kernels.columns and key in launches.columns]
    heaviest = launches.iloc[plotted_rows(launches)].drop_duplicates(keys)[keys]
    tagged = kernels.loc[list(tags), keys].assign(tag=list(tags.values()))
    found = tagged.merge(heaviest.reset_index(names="launch"), on=keys, how="inner", sort=False)
    return dict(zip(found["launch"], found["tag"]))


def device_labels(frame: pd.DataFrame) -> np.ndarray:
    """The device each row ran on, spelled as ``Run.ceilings_by_device`` keys it
    (``rooftui.analysis.load_run``: the GPU name, or "unnamed GPU (cc X)")."""
    if "device" not in frame.columns:
        return np.full(len(frame), "", dtype=object)
    names = frame["device"].fillna("").astype(str).to_numpy(dtype=object)
    if "cc" in frame.columns:
        cc = frame["cc"].astype(str).to_numpy(dtype=object)
        unnamed = names == ""
        names[unnamed] = [f"unnamed GPU (cc {c})" for c in cc[unnamed]]
    return names


def ceilings_per_device(run) -> dict[str, CeilingSet]:
    """Each device's ceilings (``Run.ceilings_by_device``), keyed as ``device_labels``
    spells the device; empty without a run (then one set of ceilings is used)."""
    return dict(getattr(run, "ceilings_by_device", None) or {})


def _y_floor(y: np.ndarray, time: np.ndarray, y_hi: float, rows: int) -> float:
    """The lowest log10 FLOP/s given axis room: the lowest point, unless that leaves
    fewer than ``ROWS_PER_DECADE`` rows per decade; then the lowest point above the
    slowest kernels holding at most each of ``EDGE_SHARES`` of the time, in turn."""
    order = np.argsort(y)
    share = np.cumsum(time[order]) / max(float(time.sum()), 1e-300)
    floor = float(y[order[0]])
    for allowed in EDGE_SHARES:
        kept = order[share > allowed]
        floor = float(y[kept[0]]) if kept.size else float(y.max())
        if (y_hi - floor) * ROWS_PER_DECADE <= rows:
            break
    return floor


def drawn_levels(frame: pd.DataFrame, levels: tuple[str, ...] | list[str]) -> list[str]:
    """The memory levels of ``levels`` a roofline of ``frame`` draws: a level a report
    may lack (SMEM) draws its slope only where some kernel has its AI."""
    return [
        lv
        for lv in levels
        if lv not in OPTIONAL_LEVELS or (f"ai_{lv}" in frame and frame[f"ai_{lv}"].notna().any())
    ]


def selected_points(
    selected: pd.Series | None, levels: list[str], x_hi: float, y_lo: float
) -> list[tuple[str, float, float]]:
    """The selected kernel's points, (level, log10 AI, log10 FLOP/s) per level of
    ``levels`` (``drawn_levels``) where it has an AI, on a figure whose axes end at
    ``x_hi`` and start at ``y_lo``: a slower kernel on the bottom edge and an L1 bypassed
    (TMA) on the right edge, like its points. None when it has no FLOP or FLOP rate."""
    chosen: list[tuple[str, float, float]] = []
    if selected is not None and selected["flops"] > 0 and selected["flop_rate"] > 0:
        y = max(math.log10(selected["flop_rate"]), y_lo)
        for level in levels:
            ai = selected[f"ai_{level}"]
            if level == "l1" and bool(selected.get("l1_bypassed", False)):
                ai = 10.0**x_hi  # on the right edge, like its point
            if ai == ai and ai > 0:
                chosen.append((level, math.log10(ai), y))
    return chosen


def build_figure(
    frame: pd.DataFrame,
    ceilings: CeilingSet,
    *,
    levels: tuple[str, ...] | list[str] = LEVELS,
    pipelines: list[str],
    selected: pd.Series | None = None,
    cells: tuple[int, int] = (80, 20),
    individual_limit: int = INDIVIDUAL_LIMIT,
    heavy_count: int = HEAVY_COUNT,
    tag_count: int = TAG_COUNT,
    zoom: bool = False,
    headroom: float = HEADROOM,
    counted: pd.DataFrame | None = None,
    tags: dict | None = None,
) -> RooflineFigure:
    """The roofline of ``frame``'s kernels under ``ceilings``.

    ``levels`` and ``pipelines`` are the memory levels and compute pipelines
    switched on; ``cells`` is the plot area in character cells, the resolution
    at which kernels beyond ``individual_limit`` are merged and by which the
    FLOP/s axis is zoomed (``zoom``: the slowest kernels, at most 5% of the time
    together, may go on the bottom edge); ``headroom`` is the space above the
    highest roof, in decades. ``counted`` (default ``frame``) holds the rows whose
    launches without a point the figure reports (``not_plotted``): the explorer counts
    every GPU's, as its status line does, though it draws one GPU. ``tags`` (row label ->
    tag) are the tags to draw where their kernels are plotted (the explorer's
    ``kernel_tags``); by default the ``tag_count`` heaviest plotted kernels of ``frame``.
    """
    compute = _compute_roofs(ceilings, pipelines)
    levels = drawn_levels(frame, levels)
    bandwidths = [
        (level, ceiling)
        for level in levels
        if (ceiling := ceilings.bandwidth(level)) is not None and ceiling.value > 0
    ]
    top = compute[0][1] if compute else None
    fastest = max((c.value for _, c in bandwidths), default=None)

    # Work on NumPy arrays: at 100k rows, pandas indexing would dominate.
    rate = frame["flop_rate"].to_numpy(dtype=float)
    plotted = plotted_rows(frame)
    time = frame["time_s"].to_numpy(dtype=float)[plotted]
    labels = frame.index.to_numpy()[plotted]
    y_all = log10_finite(rate[plotted])
    x_all = {level: log10_finite(frame[f"ai_{level}"].to_numpy(dtype=float)[plotted]) for level in levels}
    # L1 points of kernels whose traffic went around L1 (TMA) go on the right edge, marked,
    # instead of at an AI of 1e5-1e8 that would stretch the axis and mean nothing.
    bypassed = np.zeros(len(labels), dtype=bool)
    if "l1" in x_all and "l1_bypassed" in frame:
        bypassed = frame["l1_bypassed"].to_numpy(dtype=bool)[plotted] & np.isfinite(y_all)
        x_all["l1"] = np.where(bypassed, np.nan, x_all["l1"])

    # Axis ranges: every shown point, every ridge, one decade of slope each side.
    xs_seen = [x[np.isfinite(x)] for x in x_all.values()]
    ridges = [math.log10(top / c.value) for _, c in bandwidths] if top else []
    x_candidates = np.concatenate([*xs_seen, np.array(ridges)])
    if x_candidates.size:
        x_lo = math.floor(min(x_candidates.min(), min(ridges, default=np.inf) - 1.5))
        x_hi = math.ceil(max(x_candidates.max(), max(ridges, default=-np.inf) + 1.5))
    else:
        x_lo, x_hi = -2, 3
    finite = np.isfinite(y_all)
    y_finite = y_all[finite]
    y_hi = math.log10(top) + headroom if top else (y_finite.max() + 0.5 if y_finite.size else 15)
    if y_finite.size:
        y_hi = max(y_hi, y_finite.max() + 0.2)
    if not y_finite.size:
        y_lo_data = y_hi - MIN_DECADES
    elif zoom:
        y_lo_data = _y_floor(y_finite, time[finite], y_hi, cells[1])
    else:
        y_lo_data = float(y_finite.min())
    y_lo = math.floor(min(y_lo_data, y_hi - MIN_DECADES) - 0.2)

    roofs: list[Roof] = []
    for level, ceiling in bandwidths:
        log_b = math.log10(ceiling.value)
        end = math.log10(top) - log_b if top else x_hi
        start = max(x_lo, y_lo - log_b)
        bandwidth = si(ceiling.value, "B/s", missing=MISSING)
        label = f"{LEVEL_LABELS[level]} {bandwidth} ({method_word(ceiling.method)})"
        roofs.append(
            Roof(
                level,
                "bandwidth",
                LEVEL_LABELS[level],
                label,
                (start, end),
                (start + log_b, end + log_b),
                source_text(ceiling),
            )
        )
    for key, value, label, source in compute:
        log_p = math.log10(value)
        start = log_p - math.log10(fastest) if fastest else x_lo
        roofs.append(Roof(key, "compute", label, label, (max(start, x_lo), x_hi), (log_p, log_p), source))

    points: list[PointSeries] = []
    individual = min(individual_limit, len(plotted))
    below_rows = np.zeros(len(plotted), dtype=bool)
    for level in levels:
        xs, ys = x_all[level], y_all
        ok = np.isfinite(xs) & np.isfinite(ys)
        low = ok & (ys < y_lo)
        below_rows |= low
        ok &= ~low
        positions = np.arange(len(plotted))
        heavy = ok & (positions < heavy_count)
        normal = ok & (positions >= heavy_count) & (positions < individual)
        merged = ok & (positions >= individual)
        points.append(PointSeries(level, "heavy", xs[heavy], ys[heavy], labels[heavy]))
        points.append(PointSeries(level, "normal", xs[normal], ys[normal], labels[normal]))
        if merged.any():
            mx, my = _merge_per_cell(xs[merged], ys[merged], (x_lo, x_hi), (y_lo, y_hi), cells)
            points.append(PointSeries(level, "merged", mx, my))
        if low.any():
            edge = np.full(int(low.sum()), float(y_lo))
            points.append(PointSeries(level, "below", xs[low], edge, labels[low]))
    if bypassed.any():
        ys = np.maximum(y_all[bypassed], float(y_lo))
        points.append(PointSeries("l1", "bypassed", np.full(len(ys), float(x_hi)), ys, labels[bypassed]))

    chosen = selected_points(selected, levels, x_hi, y_lo)

    notes = []
    if len(plotted) > individual:
        notes.append(
            f"{individual:,} heaviest drawn one by one, {len(plotted) - individual:,} more merged per cell"
        )
    below = int(below_rows.sum())
    if below:
        notes.append(f"{below:,} below {decade(y_lo)}FLOP/s on the bottom edge")
    if bypassed.any():
        notes.append(f"{int(bypassed.sum()):,} L1 bypassed (TMA) on the right edge")
    skipped = len(frame) - len(plotted)
    x_ticks, y_ticks = axis_ticks((x_lo, x_hi), (y_lo, y_hi), cells)
    return RooflineFigure(
        roofs=roofs,
        points=points,
        selected=chosen,
        x_range=(float(x_lo), float(x_hi)),
        y_range=(float(y_lo), float(y_hi)),
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        note="; ".join(notes),
        tags=tags_plotted(labels, tag_count, tags),
        missing=_missing_roofs(ceilings, levels, pipelines),
        below=below,
        zero_ai=skipped,
        not_plotted=not_plotted(frame if counted is None else counted),
    )
