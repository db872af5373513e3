"""The roofline pane: a plotext plot of a ``RooflineFigure``, plus its legend."""

from __future__ import annotations

import pandas as pd
from rich.text import Text
from textual import on
from textual.app import ComposeResult, RenderResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS
from rooftui.views.tui.ascii import BOX_TO_ASCII
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.roofline_model import Roof, RooflineFigure, build_figure

# The paper's colours: L1 red, L2 green, HBM blue; merged points are dimmer.
LEVEL_COLOURS = {"l1": (230, 60, 60), "l2": (60, 190, 80), "hbm": (60, 140, 230)}
MERGED_COLOURS = {"l1": (140, 50, 50), "l2": (40, 110, 50), "hbm": (40, 80, 140)}
ROOF_COLOUR = (170, 170, 170)
SELECTED_COLOUR = (255, 215, 0)

# Marker per level and emphasis; the ASCII set works on any terminal.
UNICODE_MARKERS = {
    "heavy": {"l1": "●", "l2": "■", "hbm": "▲"},
    "normal": {"l1": "•", "l2": "▪", "hbm": "▴"},
    "merged": {"l1": "·", "l2": "·", "hbm": "·"},
    "selected": "◆",
    "line": "braille",
}
ASCII_MARKERS = {
    "heavy": {"l1": "O", "l2": "#", "hbm": "A"},
    "normal": {"l1": "o", "l2": "+", "hbm": "^"},
    "merged": {"l1": ".", "l2": ".", "hbm": "."},
    "selected": "@",
    "line": ".",
}


def _rgb(colour: tuple[int, int, int]) -> str:
    return "rgb({},{},{})".format(*colour)


# Character cells the axes and tick labels take from the plot area.
AXIS_COLUMNS, AXIS_ROWS = 8, 3


class RooflineCanvas(PlotextPlot, can_focus=True):
    """Draws a figure built for its current size; rebuilds on resize."""

    class Drawn(Message):
        """A new figure is on the canvas; the legend follows it."""

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii_mode = ascii_mode
        self.markers = ASCII_MARKERS if ascii_mode else UNICODE_MARKERS
        self.inputs: dict | None = None
        self.figure: RooflineFigure | None = None
        self.unlabelled: list[Roof] = []  # compute roofs with no room for a label
        self._drawn: tuple | None = None  # (figure, size, theme) of the cached text
        self._text: Text | None = None
        # The terminal's own background, not the theme's: fewer colour codes to
        # parse on every redraw, and the plot blends with the pane.
        self.theme = "textual-clear"

    def show(self, frame: pd.DataFrame, ceilings: CeilingSet, **options) -> RooflineFigure:
        """Rebuild the figure for ``frame`` and draw it; returns the figure."""
        self.inputs = {"frame": frame, "ceilings": ceilings, **options}
        return self.rebuild()

    def rebuild(self) -> RooflineFigure | None:
        if self.inputs is None:
            return None
        width, height = self.size
        cells = (max(10, width - AXIS_COLUMNS), max(4, height - AXIS_ROWS))
        self.figure = build_figure(**self.inputs, cells=cells)
        self.draw(self.figure)
        self.refresh()
        self.post_message(self.Drawn())
        return self.figure

    def on_resize(self) -> None:
        self.rebuild()

    def render(self) -> RenderResult:
        # PlotextPlot.render rebuilds the whole plot on every refresh; do it only
        # when the figure, the size or the theme changed.
        key = (self.figure, tuple(self.size), self.theme)
        if self._text is None or key != self._drawn:
            self._plot.plotsize(self.size.width, self.size.height)
            self._plot._set_size(self.size.width, self.size.height)
            self._plot.theme(self._get_plotext_theme_name(self.app.theme))
            built = self._plot.build()
            # --ascii: plotext's frame and ticks are box-drawing characters.
            self._text = Text.from_ansi(built.translate(BOX_TO_ASCII) if self.ascii_mode else built)
            self._drawn = key
        return self._text

    def draw(self, figure: RooflineFigure) -> None:
        # A fresh plotext figure each time: a reused one keeps layout state from
        # earlier sizes, and tick labels could land a column off.
        self._plot = plt = Plot()
        plt.xlim(*figure.x_range)
        plt.ylim(*figure.y_range)
        plt.xticks([t for t, _ in figure.x_ticks], [label for _, label in figure.x_ticks])
        plt.yticks([t for t, _ in figure.y_ticks], [label for _, label in figure.y_ticks])
        # At small sizes the axis title would cost a plot row; the legend says it.
        plt.xlabel("arithmetic intensity (FLOP/byte)" if self.size.height >= 20 else "")
        line = self.markers["line"]
        row_height = (figure.y_range[1] - figure.y_range[0]) / max(4, self.size.height - AXIS_ROWS)
        label_rows: set[int] = set()
        self.unlabelled = []
        span = figure.y_range[1] - figure.y_range[0]

        def row_of(y: float) -> int:
            return round((y - figure.y_range[0]) / row_height)

        # Rows holding a compute roof's line: a label there would read as that roof's.
        roof_rows = {row_of(r.ys[1]) for r in figure.roofs if r.kind == "compute"}
        for roof in figure.roofs:
            colour = LEVEL_COLOURS.get(roof.key, ROOF_COLOUR)
            plt.plot(list(roof.xs), list(roof.ys), marker=line, color=colour)
            tag = ascii_safe(roof.tag) if self.ascii_mode else roof.tag
            if roof.kind == "compute":
                # The label goes on the row just above its roof, else just below;
                # never on another roof's row, and one label per row (plotext
                # rounds to rows its own way: keep labels two rows apart). A roof
                # with no such row is named in the legend instead.
                own = row_of(roof.ys[1])
                free = [r for r in (own + 1, own - 1)
                        if 0 <= r * row_height <= span and r not in roof_rows
                        and all(abs(r - used) >= 2 for used in label_rows)]
                if not free:
                    self.unlabelled.append(roof)
                    continue
                label_rows.add(free[0])
                y = figure.y_range[0] + free[0] * row_height
                plt.text(tag, roof.xs[1], y, color=ROOF_COLOUR, alignment="right")
            else:
                # Just left of the slope, a decade below its ridge: between it
                # and the next faster level's slope.
                x = max(roof.xs[0], roof.xs[1] - 1.0)
                plt.text(tag, x, roof.ys[0] + (x - roof.xs[0]), color=colour, alignment="right")
        for series in figure.points:
            if not len(series.xs):
                continue
            colours = MERGED_COLOURS if series.emphasis == "merged" else LEVEL_COLOURS
            marker = self.markers[series.emphasis][series.level]
            plt.scatter(list(series.xs), list(series.ys), marker=marker, color=colours[series.level])
        if figure.selected:
            xs = [x for _, x, _ in figure.selected]
            ys = [y for _, _, y in figure.selected]
            if len(xs) > 1:
                plt.plot(xs, ys, marker=line, color=SELECTED_COLOUR)
            plt.scatter(xs, ys, marker=self.markers["selected"], color=SELECTED_COLOUR)


class RooflinePane(Vertical):
    """The plot with a one- or two-line legend: roof values and sources, markers, notes."""

    ALLOW_MAXIMIZE = True

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii_mode = ascii_mode
        self.grouped = True

    def compose(self) -> ComposeResult:
        yield RooflineCanvas(ascii_mode=self.ascii_mode, id="roofline-canvas")
        yield Static(id="roofline-legend")

    def show(self, frame: pd.DataFrame, ceilings: CeilingSet, *, grouped: bool, **options) -> None:
        self.grouped = grouped
        self.query_one(RooflineCanvas).show(frame, ceilings, **options)

    @on(RooflineCanvas.Drawn)
    def _drawn(self) -> None:
        canvas = self.query_one(RooflineCanvas)
        if canvas.figure is not None:
            legend = self.legend(canvas.figure, canvas.unlabelled, self.grouped)
            self.query_one("#roofline-legend", Static).update(legend)

    def legend(self, figure: RooflineFigure, unlabelled: list[Roof], grouped: bool) -> Text:
        """Markers, then every roof not labelled on the plot with its value and
        source, then what was merged or left out."""
        markers = ASCII_MARKERS if self.ascii_mode else UNICODE_MARKERS
        text = Text()
        for level, label in LEVEL_LABELS.items():
            text.append(f"{markers['heavy'][level]} {label} ", style=_rgb(LEVEL_COLOURS[level]))
        text.append(f"{markers['selected']} selected", style="bold " + _rgb(SELECTED_COLOUR))
        text.append(" · " + ("grouped by name" if grouped else "single invocations"))
        roofs = [roof.label for roof in figure.roofs if roof.kind == "bandwidth"]
        roofs += [roof.label for roof in unlabelled]
        text.append(" · " + (" · ".join(roofs) or "no memory ceilings for the levels shown"))
        if figure.note:
            text.append(f" · {figure.note}", style="italic")
        if self.ascii_mode:
            return Text(ascii_safe(text.plain))
        return text
