"""The instruction roofline (Ding & Williams, PMBS'19) as a ``RooflineFigure`` — no drawing.

The same figure type as the FLOP roofline, so ``roofline_layout.lay_out`` draws both and
the explorer switches between them with one key: x is instruction intensity (warp
instructions per transaction), y warp instructions per second (GIPS). Each level's
transaction rate is a slope, the warp issue rate the flat roof; the walls are vertical
lines at 1, 1/4 and 1/32 instructions per transaction, where a kernel's global
requests per sector (stride-0: 1 sector per request; unit stride of 4-byte words: 4; one
sector per lane: 32) and shared requests per wavefront (1 without bank conflicts, 1/32
with 32-way conflicts) put its "global" and "shared" points. Every kernel with warp
instructions is plotted, zero-AI ones too.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from rooftui.analysis.instruction_roofline import InstructionCeilings
from rooftui.model.columns import LEVEL_LABELS
from rooftui.model.instructions import LEVELS
from rooftui.views.tui.roofline_model import (
    EXPLORER_HEADROOM,
    MIN_DECADES,
    PointSeries,
    Roof,
    RooflineFigure,
    axis_ticks,
    log10_finite,
    tags_plotted,
)

# The walls [DING]: instruction intensity (requests per transaction) and their labels.
WALLS = (
    (0.0, "1", "wall 1: stride-0 / no bank conflict"),
    (math.log10(1 / 4), "1/4", "wall 1/4: unit stride"),
    (math.log10(1 / 32), "1/32", "wall 1/32: a sector per lane / 32-way conflict"),
)
WALL_SERIES = {
    "global": ("global_requests", "global_sectors"),
    "shared": ("shared_requests", "shared_wavefronts"),
}
SERIES_LABELS = {**LEVEL_LABELS, "global": "global", "shared": "shared"}
# What the figure reads of each row (``ViewState.plot_rows`` takes these too).
PLOT_COLUMNS = [
    "warp_instruction_rate",
    *(f"instruction_intensity_{level}" for level in LEVELS),
    *(name for pair in WALL_SERIES.values() for name in pair),
]
AXIS_TITLES = ("inst/s", "instruction intensity (warp instructions per transaction)", "inst/transaction")
HEAVY_COUNT = 10
TAG_COUNT = 5


def _column(frame: pd.DataFrame, name: str) -> np.ndarray:
    return frame[name].to_numpy(dtype=float) if name in frame else np.full(len(frame), np.nan)


def plotted_rows(frame: pd.DataFrame) -> np.ndarray:
    """Positions of the kernels the instruction roofline can place (warp instructions
    and a time), heaviest (by time) first."""
    rate = _column(frame, "warp_instruction_rate")
    with np.errstate(invalid="ignore"):
        plotted = np.flatnonzero(rate > 0)
    time = frame["time_s"].to_numpy(dtype=float)[plotted]
    return plotted[np.argsort(-time, kind="stable")]


def intensities(frame: pd.DataFrame, series: str) -> np.ndarray:
    """log10 instruction intensity of each row for a level or a wall series."""
    if series in WALL_SERIES:
        top, bottom = WALL_SERIES[series]
        with np.errstate(divide="ignore", invalid="ignore"):
            return log10_finite(_column(frame, top) / _column(frame, bottom))
    return log10_finite(_column(frame, f"instruction_intensity_{series}"))


def gips(value: float) -> str:
    return f"{value / 1e9:,.0f} GIPS"


def gtxn(value: float) -> str:
    return f"{value / 1e9:,.0f} GTXN/s"


def selected_instruction_points(
    selected: pd.Series | None, levels: tuple[str, ...] | list[str]
) -> list[tuple[str, float, float]]:
    """The selected kernel's points on the instruction roofline, (level, log10 warp
    instructions per transaction, log10 warp instructions/s) per level of ``levels``
    where it has an intensity; none without a warp instruction rate."""
    chosen: list[tuple[str, float, float]] = []
    if selected is not None:
        rate = selected.get("warp_instruction_rate")
        if rate is not None and rate == rate and rate > 0:
            row = selected.to_frame().T
            for name in levels:
                x = float(intensities(row, name)[0])
                if math.isfinite(x):
                    chosen.append((name, x, math.log10(float(rate))))
    return chosen


def build_instruction_figure(
    frame: pd.DataFrame,
    roofs: InstructionCeilings,
    *,
    levels: tuple[str, ...] | list[str] = LEVELS,
    selected: pd.Series | None = None,
    cells: tuple[int, int] = (80, 20),
    headroom: float = EXPLORER_HEADROOM,
    tags: dict | None = None,
) -> RooflineFigure:
    """The instruction roofline of ``frame``'s kernels: a point per shown level and per
    wall series (global, shared) that the kernel has, at its warp instruction rate.
    ``tags``: the explorer's (``ViewState.tags``), so a kernel keeps its tag in both
    rooflines; None: the heaviest plotted."""
    series = [*levels, *WALL_SERIES]
    plotted = plotted_rows(frame)
    labels = frame.index.to_numpy()[plotted]
    y_all = log10_finite(_column(frame, "warp_instruction_rate")[plotted])
    x_all = {name: intensities(frame, name)[plotted] for name in series}
    issue = roofs.issue.value if roofs.issue else None
    slopes = [(level, roofs.levels[level]) for level in levels if level in roofs.levels]

    ridges = [math.log10(issue / roof.value) for _, roof in slopes] if issue else []
    xs_seen = np.concatenate(
        [x[np.isfinite(x)] for x in x_all.values()] + [np.array(ridges + [wall[0] for wall in WALLS])]
    )
    x_lo = math.floor(min(xs_seen.min(), -2.0) - 0.2)
    x_hi = math.ceil(max(xs_seen.max(), 1.0) + 0.2)
    finite = y_all[np.isfinite(y_all)]
    y_hi = math.log10(issue) + headroom if issue else (finite.max() + 0.5 if finite.size else 12.0)
    if finite.size:
        y_hi = max(y_hi, float(finite.max()) + 0.2)
    y_lo = math.floor(min(float(finite.min()) if finite.size else y_hi, y_hi - MIN_DECADES) - 0.2)

    figure_roofs: list[Roof] = []
    for level, roof in slopes:
        log_rate = math.log10(roof.value)
        end = math.log10(issue) - log_rate if issue else x_hi
        start = max(x_lo, y_lo - log_rate)
        label = f"{LEVEL_LABELS[level]} {gtxn(roof.value)}"
        figure_roofs.append(
            Roof(
                level,
                "bandwidth",
                LEVEL_LABELS[level],
                label,
                (start, end),
                (start + log_rate, end + log_rate),
                roof.source,
            )
        )
    if roofs.issue is not None and issue:
        log_issue = math.log10(issue)
        fastest = max((roof.value for _, roof in slopes), default=None)
        start = log_issue - math.log10(fastest) if fastest else x_lo
        label = f"warp issue {gips(issue)}"
        figure_roofs.append(
            Roof(
                "issue",
                "compute",
                label,
                label,
                (max(start, x_lo), x_hi),
                (log_issue, log_issue),
                roofs.issue.source,
            )
        )
    top = math.log10(issue) if issue else y_hi
    for x, tag, text in WALLS:
        figure_roofs.append(
            Roof(f"wall:{tag}", "wall", tag, text, (x, x), (top, y_lo), "Ding & Williams, PMBS'19")
        )

    points: list[PointSeries] = []
    positions = np.arange(len(plotted))
    for name in series:
        xs = x_all[name]
        ok = np.isfinite(xs) & np.isfinite(y_all)
        heavy = ok & (positions < HEAVY_COUNT)
        normal = ok & (positions >= HEAVY_COUNT)
        points.append(PointSeries(name, "heavy", xs[heavy], y_all[heavy], labels[heavy]))
        points.append(PointSeries(name, "normal", xs[normal], y_all[normal], labels[normal]))

    chosen = selected_instruction_points(selected, levels)

    skipped = len(frame) - len(plotted)
    note = f"{skipped:,} without warp instructions not plotted" if skipped else ""
    if skipped and not len(plotted):
        note = f"no warp instructions in this report ({skipped:,} kernels): rooftui profile --instructions"
    x_ticks, y_ticks = axis_ticks((x_lo, x_hi), (y_lo, y_hi), cells)
    return RooflineFigure(
        roofs=figure_roofs,
        points=points,
        selected=chosen,
        x_range=(float(x_lo), float(x_hi)),
        y_range=(float(y_lo), float(y_hi)),
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        note=note,
        tags=tags_plotted(labels, TAG_COUNT, tags),
        missing=list(roofs.missing),
        zero_ai=skipped,
    )
