"""The compare chart: both runs' roofs, and each heavy matched kernel an arrow from A to B,
laid out by the explorer's engine (``roofline_layout.lay_out``): one renderer of rooflines."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
import pandas as pd
from rich.text import Text

from rooftui.analysis import Run
from rooftui.analysis.compare import Comparison
from rooftui.model.ceilings import CeilingSet
from rooftui.views.compare import pipeline_text
from rooftui.views.tui.roofline_layout import ASCII, UNICODE, Layout, lay_out, plot_cells
from rooftui.views.tui.roofline_model import PointSeries, RooflineFigure, Segment, axis_ticks, build_figure
from rooftui.views.tui.widgets.chart import ChartCanvas
from rooftui.views.tui.widgets.roofline import layout_text

ARROWS = 10  # matched kernels drawn as arrows, heaviest first
# The ends' markers, as the layout draws them (roofline_layout's glyphs), for the legend.
A_MARKER = {"unicode": UNICODE.markers["side-a"]["hbm"], "ascii": ASCII.markers["side-a"]["hbm"]}
B_MARKER = {"unicode": UNICODE.markers["side-b"]["hbm"], "ascii": ASCII.markers["side-b"]["hbm"]}


# ---------------------------------------------------------------- the chart's geometry


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
            arrows.append(Arrow(int(row), xa, ya, xb, yb))
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


class CompareCanvas(ChartCanvas[Overlay]):
    """Draws an ``Overlay`` on the explorer's cell grid (``lay_out``): both sides' roofs
    with their labels, an arrow per heavy matched kernel, the axes with their titles.
    A ``ChartCanvas`` like the explorer's, so with the same colours, markers, axes'
    cells, ASCII mode and redrawing on resize."""

    def __init__(self, comparison: Comparison, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(ascii_mode=ascii_mode, id=id)
        self.comparison = comparison
        self.level = "hbm"
        self.count = ARROWS
        self.selected_rows: frozenset[int] = frozenset()  # drawn in gold, whatever their rank
        self.overlay: Overlay | None = None
        self.layout_: Layout | None = None
        self._text: tuple[Layout, Text] | None = None

    def make_figure(self) -> Overlay:
        width, height = self.size
        self.overlay = overlay_figure(
            self.comparison, self.level, self.count, plot_cells(width, height), self.selected_rows
        )
        figure = with_arrows(self.overlay, self.selected_rows)
        self.layout_ = lay_out(figure, max(width, 20), max(height, 4), ascii_mode=self.ascii_mode)
        return self.overlay

    def render_chart(self) -> Text:
        if self.layout_ is None:
            return Text()
        if self._text is None or self._text[0] is not self.layout_:
            self._text = (self.layout_, layout_text(self.layout_))
        return self._text[1]
