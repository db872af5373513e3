"""The compare chart: both runs' roofs, and each heavy matched kernel an arrow from A to B."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import cast

import pandas as pd
from rich.text import Text
from textual_plotext import PlotextPlot

from rooftui.analysis import Run
from rooftui.analysis.compare import Comparison
from rooftui.model.ceilings import CeilingSet
from rooftui.views.compare import pipeline_text
from rooftui.views.tui.roofline_layout import LEVEL_COLOURS, ROOF_COLOUR, SELECTED_COLOUR, UNICODE
from rooftui.views.tui.roofline_model import RooflineFigure, axis_ticks, build_figure
from rooftui.views.tui.widgets.chart import ChartCanvas

ARROWS = 10  # matched kernels drawn as arrows, heaviest first
A_COLOUR = (150, 150, 150)
A_MARKER = {"unicode": "○", "ascii": "o"}
B_MARKER = {"unicode": "●", "ascii": "*"}


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


def overlay_figure(comparison: Comparison, level: str, count: int, cells: tuple[int, int],
                   selected: Collection[int] = ()) -> Overlay:
    """Both sides' roofs at ``level`` and for the pipelines their arrows use, on shared axes.

    Arrows: the ``count`` heaviest matched kernels, and the ``selected`` rows wherever they rank.
    """
    arrows = arrows_at(comparison, level, count, selected)
    rows = comparison.kernels.loc[[a.row for a in arrows]]
    # One pseudo-kernel per arrow end, so that build_figure sizes the axes to fit them all.
    ends = pd.DataFrame({
        "flops": 1.0, "time_s": 1.0,
        "flop_rate": [10 ** a.ya for a in arrows] + [10 ** a.yb for a in arrows],
        f"ai_{level}": [10 ** a.xa for a in arrows] + [10 ** a.xb for a in arrows],
    })
    figures = []
    for side in ("a", "b"):
        run = comparison.run_a if side == "a" else comparison.run_b
        pipelines = list(dict.fromkeys(rows[f"pipeline_{side}"].dropna())) or ["fp32"]
        figures.append(build_figure(ends, _ceilings(run, rows, side), levels=(level,), pipelines=pipelines,
                                    cells=cells, heavy_count=0))
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
            roofs.append(dataclasses.replace(roof, xs=xs, tag=f"{side} {tag}" if tagged else tag,
                                             label=f"{side} {roof.label}" if tagged else roof.label))
    x_ticks, y_ticks = axis_ticks(x_range, y_range, cells)
    figure = RooflineFigure(roofs=roofs, points=[], selected=[], x_range=x_range, y_range=y_range,
                            x_ticks=x_ticks, y_ticks=y_ticks)
    return Overlay(figure, arrows, level, heavy=min(count, len(arrows)))


def _ceilings(run: Run, rows: pd.DataFrame, side: str) -> CeilingSet:
    """The ceilings of the device most of the drawn kernels ran on (a run has one, as a rule)."""
    devices = rows[f"device_{side}"].dropna()
    if not len(devices):
        return run.ceilings
    return run.ceilings_by_device.get(str(devices.mode().iloc[0]), run.ceilings)


class CompareCanvas(ChartCanvas[Overlay], PlotextPlot):
    """Draws an ``Overlay``: both sides' roofs, then an arrow per heavy matched kernel.

    Its own small widget rather than the explorer's ``RooflineCanvas`` (whose
    drawing is tuned for one run's points); a ``ChartCanvas`` like it, so with the
    same colours, markers, axes' cells, ASCII mode and redrawing on resize. Drawn
    through plotext's public figure API (``plt``) and ``PlotextPlot.render``.
    """

    def __init__(self, comparison: Comparison, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(ascii_mode=ascii_mode, id=id)
        self.comparison = comparison
        self.level = "hbm"
        self.count = ARROWS
        self.selected_rows: frozenset[int] = frozenset()  # drawn in gold, whatever their rank
        self.overlay: Overlay | None = None

    def make_figure(self) -> Overlay:
        self.overlay = overlay_figure(self.comparison, self.level, self.count, self.plot_cells,
                                      self.selected_rows)
        # A fresh plotext figure each time: a reused one keeps layout state from earlier sizes.
        self.plt.clear_figure()
        self._draw_roofs(self.overlay.figure)
        self._draw_arrows(self.overlay)
        return self.overlay

    def render_chart(self) -> Text:
        return cast(Text, PlotextPlot.render(self))  # Text.from_ansi of plotext's picture

    def _draw_roofs(self, figure: RooflineFigure) -> None:
        plt = self.plt
        plt.xlim(*figure.x_range)
        plt.ylim(*figure.y_range)
        plt.xticks([t for t, _ in figure.x_ticks], [label for _, label in figure.x_ticks])
        plt.yticks([t for t, _ in figure.y_ticks], [label for _, label in figure.y_ticks])
        plt.xlabel(UNICODE.x_title if self.size.height >= 20 else "")
        # Tags sit on their line, two cells in from the right edge (plotext cuts the last
        # letters at the edge); the legend names every roof with its value.
        inset = 2 * (figure.x_range[1] - figure.x_range[0]) / self.plot_cells[0]
        for roof in figure.roofs:
            colour = LEVEL_COLOURS.get(roof.key, ROOF_COLOUR)
            plt.plot(list(roof.xs), list(roof.ys), marker=self.markers["line"], color=colour)
            tag = self.plain(roof.tag)
            if roof.kind == "compute":
                plt.text(tag, roof.xs[1] - inset, roof.ys[1], color=ROOF_COLOUR, alignment="right")
            else:
                # Left of the slope, a decade below its ridge.
                x = max(roof.xs[0], roof.xs[1] - 1.0)
                plt.text(tag, x, roof.ys[0] + (x - roof.xs[0]), color=colour, alignment="right")

    def _draw_arrows(self, overlay: Overlay) -> None:
        plt = self.plt
        style = "ascii" if self.ascii_mode else "unicode"
        line = self.markers["line"]
        colour = LEVEL_COLOURS[overlay.level]
        others = [a for a in overlay.arrows if a.row not in self.selected_rows]
        chosen = [a for a in overlay.arrows if a.row in self.selected_rows]
        for arrow in others:
            plt.plot([arrow.xa, arrow.xb], [arrow.ya, arrow.yb], marker=line, color=A_COLOUR)
        if others:
            plt.scatter([a.xa for a in others], [a.ya for a in others], marker=A_MARKER[style],
                        color=A_COLOUR)
            plt.scatter([a.xb for a in others], [a.yb for a in others], marker=B_MARKER[style],
                        color=colour)
        for arrow in chosen:  # drawn last, over the others
            plt.plot([arrow.xa, arrow.xb], [arrow.ya, arrow.yb], marker=line, color=SELECTED_COLOUR)
            plt.scatter([arrow.xa], [arrow.ya], marker=A_MARKER[style], color=SELECTED_COLOUR)
            # B's end in the explorer's selected glyph, not only in gold: under NO_COLOR
            # (or on a monochrome terminal) gold is just another grey.
            plt.scatter([arrow.xb], [arrow.yb], marker=self.markers["selected"], color=SELECTED_COLOUR)
