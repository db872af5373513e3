"""The geometry of a hierarchical roofline, in log10 coordinates — no drawing.

``build_figure`` turns ceilings and a kernel table into roof segments, point
series and ticks; ``widgets/roofline.py`` only hands them to plotext. Plotting
log10 values on linear axes (instead of plotext's ``xscale("log")``) keeps the
figure stable across rebuilds and resizes.

Each kernel is drawn at up to three points — its arithmetic intensity at L1, L2
and HBM, all at its one FLOP/s. The heaviest kernels (by time) are drawn one by
one; beyond ``individual_limit`` the rest are merged to one point per plot cell,
which looks the same at terminal resolution and keeps redraws fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS, PIPELINE_LABELS
from rooftui.views.tui.format import decade, si

INDIVIDUAL_LIMIT = 1000  # kernels drawn one by one; the rest are merged per cell
HEAVY_COUNT = 10  # the heaviest kernels get the bold marker


@dataclass(frozen=True)
class Roof:
    key: str  # a level ("hbm") or pipelines joined by "+" ("fp64+fp32")
    kind: str  # "bandwidth" | "compute"
    tag: str  # short text drawn on the plot
    label: str  # value and source, for the legend
    xs: tuple[float, float]
    ys: tuple[float, float]


@dataclass(frozen=True, eq=False)
class PointSeries:
    level: str
    emphasis: str  # "heavy" | "normal" | "merged"
    xs: np.ndarray
    ys: np.ndarray


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


def method_word(method: str) -> str:
    return {"empirical": "empirical", "spec": "spec", "report": "report"}.get(method, method)


def _log(values: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log10(values)
    out[~np.isfinite(out)] = np.nan
    return out


def _compute_roofs(ceilings: CeilingSet, pipelines: list[str]) -> list[tuple[str, float, str]]:
    """(pipelines joined by "+", FLOP/s, label) per distinct peak, highest first.

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
        roofs.append(("+".join(c.precision for c in group), value, f"{names} {si(value, unit)} ({methods})"))
    return roofs


def _ticks(lo: float, hi: float, cells: int, per_label: int) -> list[tuple[float, str]]:
    """A tick per decade, thinned until each label has ``per_label`` cells plus a
    gap: plotext places colliding labels differently from run to run."""
    exponents = list(range(math.ceil(lo), math.floor(hi) + 1))
    step = 1
    while len(exponents[::step]) > max(2, cells // (per_label + 2)):
        step += 1
    return [(float(e), decade(e)) for e in exponents[::step]]


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
) -> RooflineFigure:
    """The roofline of ``frame``'s kernels under ``ceilings``.

    ``levels`` and ``pipelines`` are the memory levels and compute pipelines
    switched on; ``cells`` is the plot area in character cells, the resolution
    at which kernels beyond ``individual_limit`` are merged.
    """
    compute = _compute_roofs(ceilings, pipelines)
    bandwidths = [
        (level, ceilings.bandwidth(level))
        for level in levels
        if ceilings.bandwidth(level) is not None and ceilings.bandwidth(level).value > 0
    ]
    top = compute[0][1] if compute else None
    fastest = max((c.value for _, c in bandwidths), default=None)

    # Work on NumPy arrays: at 100k rows, pandas indexing would dominate.
    flops = frame["flops"].to_numpy(dtype=float)
    rate = frame["flop_rate"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        plotted = np.flatnonzero((flops > 0) & (rate > 0))
    time = frame["time_s"].to_numpy(dtype=float)[plotted]
    plotted = plotted[np.argsort(-time, kind="stable")]  # heaviest first
    y_all = _log(rate[plotted])
    x_all = {level: _log(frame[f"ai_{level}"].to_numpy(dtype=float)[plotted]) for level in levels}

    # Axis ranges: every shown point, every ridge, one decade of slope each side.
    xs_seen = [x[np.isfinite(x)] for x in x_all.values()]
    ridges = [math.log10(top / c.value) for _, c in bandwidths] if top else []
    x_candidates = np.concatenate([*xs_seen, np.array(ridges)])
    if x_candidates.size:
        x_lo = math.floor(min(x_candidates.min(), min(ridges, default=np.inf) - 1.5))
        x_hi = math.ceil(max(x_candidates.max(), max(ridges, default=-np.inf) + 1.5))
    else:
        x_lo, x_hi = -2, 3
    y_finite = y_all[np.isfinite(y_all)]
    y_hi = math.log10(top) + 0.4 if top else (y_finite.max() + 0.5 if y_finite.size else 15)
    y_lo_data = y_finite.min() if y_finite.size else y_hi - 5
    y_lo = math.floor(min(y_lo_data, y_hi - 4) - 0.2)
    if y_finite.size:
        y_hi = max(y_hi, y_finite.max() + 0.2)

    roofs: list[Roof] = []
    for level, ceiling in bandwidths:
        log_b = math.log10(ceiling.value)
        end = math.log10(top) - log_b if top else x_hi
        start = max(x_lo, y_lo - log_b)
        label = f"{LEVEL_LABELS[level]} {si(ceiling.value, 'B/s')} ({method_word(ceiling.method)})"
        roofs.append(
            Roof(
                level,
                "bandwidth",
                LEVEL_LABELS[level],
                label,
                (start, end),
                (start + log_b, end + log_b),
            )
        )
    for key, value, label in compute:
        log_p = math.log10(value)
        start = log_p - math.log10(fastest) if fastest else x_lo
        tag = label
        roofs.append(Roof(key, "compute", tag, label, (max(start, x_lo), x_hi), (log_p, log_p)))

    points: list[PointSeries] = []
    individual = min(individual_limit, len(plotted))
    for level in levels:
        xs, ys = x_all[level], y_all
        ok = np.isfinite(xs) & np.isfinite(ys)
        positions = np.arange(len(plotted))
        heavy = ok & (positions < heavy_count)
        normal = ok & (positions >= heavy_count) & (positions < individual)
        merged = ok & (positions >= individual)
        points.append(PointSeries(level, "heavy", xs[heavy], ys[heavy]))
        points.append(PointSeries(level, "normal", xs[normal], ys[normal]))
        if merged.any():
            mx, my = _merge_per_cell(xs[merged], ys[merged], (x_lo, x_hi), (y_lo, y_hi), cells)
            points.append(PointSeries(level, "merged", mx, my))

    chosen: list[tuple[str, float, float]] = []
    if selected is not None and selected["flops"] > 0 and selected["flop_rate"] > 0:
        y = math.log10(selected["flop_rate"])
        for level in levels:
            ai = selected[f"ai_{level}"]
            if ai == ai and ai > 0:
                chosen.append((level, math.log10(ai), y))

    notes = []
    if len(plotted) > individual:
        notes.append(
            f"{individual:,} heaviest drawn one by one, {len(plotted) - individual:,} more merged per cell"
        )
    skipped = len(frame) - len(plotted)
    if skipped:
        notes.append(f"{skipped:,} zero-AI not plotted")
    return RooflineFigure(
        roofs=roofs,
        points=points,
        selected=chosen,
        x_range=(float(x_lo), float(x_hi)),
        y_range=(float(y_lo), float(y_hi)),
        x_ticks=_ticks(x_lo, x_hi, cells[0], max(len(decade(e)) for e in (x_lo, x_hi, -3))),
        y_ticks=_ticks(y_lo, y_hi, cells[1], 0),
        note="; ".join(notes),
    )
