"""The compare chart as data, without Textual: both runs' roofs on shared axes and each
heavy matched kernel an arrow from its A point to its B point (``overlay_figure``,
``with_arrows``), laid out by the explorer's engine (``roofline_layout.lay_out``: one
renderer of rooflines); the picture at a size and the roofs its plot left unlabelled.
``CompareModel`` (``compare_model.py``) draws it for the compare screen."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rooftui.analysis import Run
from rooftui.analysis.compare import Comparison
from rooftui.model.ceilings import CeilingSet
from rooftui.views.compare import pipeline_text
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.roofline_layout import ASCII, UNICODE, Layout, short_label
from rooftui.views.tui.roofline_model import (
    PointSeries,
    Roof,
    RooflineFigure,
    Segment,
    axis_ticks,
    build_figure,
)

# The ends' markers, as the layout draws them (roofline_layout's glyphs), for the legend.
A_MARKER = {"unicode": UNICODE.markers["side-a"]["hbm"], "ascii": ASCII.markers["side-a"]["hbm"]}
B_MARKER = {"unicode": UNICODE.markers["side-b"]["hbm"], "ascii": ASCII.markers["side-b"]["hbm"]}


@dataclass(frozen=True)
class Arrow:
    """One matched kernel at one level: log10 AI and log10 FLOP/s in A and in B."""

    row: int  # position in Comparison.kernels
    xa: float
    ya: float
    xb: float
    yb: float


@dataclass
class Overlay:
    figure: RooflineFigure  # roofs, ranges and ticks; no points of its own
    arrows: list[Arrow]  # the heaviest first, then selected ones beyond them
    level: str
    heavy: int  # how many of the arrows are there for their weight


def arrows_at(comparison: Comparison, level: str, count: int, also: Collection[int] = ()) -> list[Arrow]:
    """The ``count`` heaviest matched kernels, and those at rows ``also``, with a point
    on both sides at ``level``."""
    arrows = []
    heavy = 0
    for row, pair in comparison.matched.iterrows():
        if heavy >= count and row not in also:
            continue
        values = [pair[f"ai_{level}_a"], pair["flop_rate_a"], pair[f"ai_{level}_b"], pair["flop_rate_b"]]
        if all(isinstance(v, (int, float)) and math.isfinite(v) and v > 0 for v in values):
            xa, ya, xb, yb = (math.log10(v) for v in values)
            arrows.append(Arrow(int(str(row)), xa, ya, xb, yb))
            heavy += 1
    return arrows


def overlay_figure(
    comparison: Comparison, level: str, count: int, cells: tuple[int, int], selected: Collection[int] = ()
) -> Overlay:
    """Both sides' roofs at ``level`` and for the pipelines their arrows use, on shared axes.

    Arrows: the ``count`` heaviest matched kernels, and the ``selected`` rows wherever they rank.
    """
    arrows = arrows_at(comparison, level, count, selected)
    rows = comparison.kernels.loc[[a.row for a in arrows]]
    # One pseudo-kernel per arrow end, so that build_figure sizes the axes to fit them all.
    ends = pd.DataFrame(
        {
            "flops": 1.0,
            "time_s": 1.0,
            "flop_rate": [10**a.ya for a in arrows] + [10**a.yb for a in arrows],
            f"ai_{level}": [10**a.xa for a in arrows] + [10**a.xb for a in arrows],
        }
    )
    figures = []
    for side in ("a", "b"):
        run = comparison.run_a if side == "a" else comparison.run_b
        pipelines = list(dict.fromkeys(rows[f"pipeline_{side}"].dropna())) or ["fp32"]
        figures.append(
            build_figure(
                ends,
                _ceilings(run, rows, side),
                levels=(level,),
                pipelines=pipelines,
                cells=cells,
                heavy_count=0,
            )
        )
    fig_a, fig_b = figures
    x_range = (min(fig_a.x_range[0], fig_b.x_range[0]), max(fig_a.x_range[1], fig_b.x_range[1]))
    y_range = (min(fig_a.y_range[0], fig_b.y_range[0]), max(fig_a.y_range[1], fig_b.y_range[1]))
    # A roof both sides share (same GPU, same value to 3 digits) is drawn once; one whose
    # value differs carries its side in its tag ("A HBM"), as do all when the GPUs differ.
    same_gpu = comparison.run_a.devices == comparison.run_b.devices
    roofs = []
    for side, figure, other in (("B", fig_b, fig_a), ("A", fig_a, fig_b)):
        for roof in figure.roofs:
            twin = [r for r in other.roofs if (r.kind, r.key) == (roof.kind, roof.key)]
            if side == "A" and same_gpu and twin and twin[0].label == roof.label:
                continue
            tagged = not same_gpu or (twin and twin[0].label != roof.label)
            xs, tag = roof.xs, roof.tag
            if roof.kind == "compute":
                # Short tags, drawn on the line: long ones hide the roofs close below them.
                xs = (roof.xs[0], x_range[1])
                tag = " · ".join(pipeline_text(key) for key in roof.key.split("+"))
            roofs.append(
                dataclasses.replace(
                    roof,
                    xs=xs,
                    tag=f"{side} {tag}" if tagged else tag,
                    label=f"{side} {roof.label}" if tagged else roof.label,
                )
            )
    x_ticks, y_ticks = axis_ticks(x_range, y_range, cells)
    figure = RooflineFigure(
        roofs=roofs,
        points=[],
        selected=[],
        x_range=x_range,
        y_range=y_range,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
    )
    return Overlay(figure, arrows, level, heavy=min(count, len(arrows)))


def _ceilings(run: Run, rows: pd.DataFrame, side: str) -> CeilingSet:
    """The ceilings of the device most of the drawn kernels ran on (a run has one, as a rule)."""
    devices = rows[f"device_{side}"].dropna()
    if not len(devices):
        return run.ceilings
    return run.ceilings_by_device.get(str(devices.mode().iloc[0]), run.ceilings)


def with_arrows(overlay: Overlay, selected: Collection[int]) -> RooflineFigure:
    """The overlay's figure with its arrows: a segment and both ends per matched kernel,
    those at rows ``selected`` marked as chosen (drawn on top, B's end in the selected glyph)."""
    figure = overlay.figure
    points, segments = [], []
    for chosen in (False, True):
        arrows = [a for a in overlay.arrows if (a.row in selected) == chosen]
        if not arrows:
            continue
        side_a, side_b = ("chosen-a", "chosen-b") if chosen else ("side-a", "side-b")
        points.append(
            PointSeries(
                overlay.level, side_a, np.array([a.xa for a in arrows]), np.array([a.ya for a in arrows])
            )
        )
        points.append(
            PointSeries(
                overlay.level, side_b, np.array([a.xb for a in arrows]), np.array([a.yb for a in arrows])
            )
        )
        segments += [Segment((a.xa, a.xb), (a.ya, a.yb), selected=chosen) for a in arrows]
    return dataclasses.replace(figure, points=points, segments=segments)


def roof_legend_text(roof: Roof) -> str:
    """A roof as the legend names it, value and source: "Tensor FP16 899T (empirical)"
    ("FLOP/s" is the y axis' title)."""
    name, _, source = roof.label.partition(" (")
    name = name.removesuffix("FLOP/s")
    if name[-2:] in (" P", " T", " G"):
        name = name[:-2] + name[-1]
    return f"{name} ({source}" if source else name


@dataclass
class ComparePicture:
    """The chart at one size: the overlay it shows and its cells."""

    overlay: Overlay
    layout: Layout
    layout_ascii: bool = False

    @property
    def unlabelled(self) -> list[Roof]:
        """The roofs whose value is not written beside them on the plot (their label,
        with or without its source, found no room): the legend names them."""
        written = {(label.series, label.text) for label in self.layout.labels}
        plain = ascii_safe if self.layout_ascii else str
        return [
            roof
            for roof in self.overlay.figure.roofs
            if not {(roof.key, plain(roof.label)), (roof.key, plain(short_label(roof)))} & written
        ]
