"""The roofline pane: a ``RooflineFigure`` laid out on character cells, plus its legend.

The layout (``roofline_layout.lay_out``) decides every cell; this widget only
colours them, rebuilds on resize, and turns keys and clicks on points into
``PointChosen`` messages. With several GPUs it shows one device at a time (``v``
switches) against that device's own ceilings, and says which in its top row.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pandas as pd
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS
from rooftui.views.text import printable
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.roofline_layout import Layout, PointCell, lay_out, nearest_in_order
from rooftui.views.tui.roofline_model import (
    EXPLORER_HEADROOM,
    Roof,
    RooflineFigure,
    build_figure,
    device_labels,
    roof_sources,
    short_name,
)
from rooftui.views.tui.widgets.chart import (
    ASCII_MARKERS,
    LEVEL_COLOURS,
    SELECTED_COLOUR,
    UNICODE_MARKERS,
    ChartCanvas,
    plot_cells,
    rgb,
)

# Merged points: the level's colour (chart.LEVEL_COLOURS), dimmer.
MERGED_COLOURS = {"l1": (140, 50, 50), "l2": (40, 110, 50), "hbm": (40, 80, 140)}


def _styles() -> dict[str, Style]:
    """Cell styles. Roofs and their labels use the terminal's own foreground (bold
    for labels), which reads on dark and light backgrounds and in 16 colours; the
    selected kernel is black on yellow, never yellow on white."""
    styles = {
        "": Style(),
        "axis": Style(),
        "tick": Style(),
        "title": Style(bold=True),
        "device-title": Style(bold=True, underline=True),
        "roof": Style(),
        "roof-label": Style(bold=True),
        "selected": Style(bold=True, color="rgb(0,0,0)", bgcolor=rgb(SELECTED_COLOUR)),
        "selected-line": Style(color=rgb(SELECTED_COLOUR)),
        "cursor": Style(bold=True, reverse=True),
        "tag": Style(bold=True, underline=True),
    }
    for level, colour in LEVEL_COLOURS.items():
        styles[f"point:{level}"] = Style(color=rgb(colour))
        styles[f"merged:{level}"] = Style(color=rgb(MERGED_COLOURS[level]))
        styles[f"slope:{level}"] = Style(color=rgb(colour))
        styles[f"slope-label:{level}"] = Style(color=rgb(colour), bold=True)
    return styles


STYLES = _styles()


class RooflineCanvas(ChartCanvas[RooflineFigure]):
    """Draws a figure built for its current size; rebuilds on resize (``ChartCanvas``).

    Keys (when focused; the explorer also binds ``.`` and ``,``): ``.``/``,`` step
    to the next/previous point left to right, ``v`` shows the next GPU's roofline.
    """

    BINDINGS = [
        Binding("full_stop", "step_point(1)", "next point", key_display="."),
        Binding("comma", "step_point(-1)", "previous point", key_display=","),
        Binding("v", "next_device", "next GPU", show=False),
    ]

    class PointChosen(Message):
        """The user stepped to or clicked a point: select its kernel."""

        def __init__(self, kernel: object, level: str) -> None:
            super().__init__()
            self.kernel = kernel  # row label in the frame given to ``show``
            self.level = level

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(ascii_mode=ascii_mode, id=id)
        self.inputs: dict | None = None
        self.shown = 0  # calls to show(): a new count means new inputs
        self.ceilings_by_device: dict[str, CeilingSet] = {}
        self.device: str | None = None  # shown device, when the run has several
        self.figure: RooflineFigure | None = None
        self.layout_: Layout | None = None
        self.unlabelled: list[Roof] = []  # roofs whose full label is not on the plot
        self.cursor: tuple[str, object] | None = None  # (level, kernel) stepped to
        self._followed: object = None  # the selected kernel whose GPU was last shown
        self._text: Text | None = None

    @property
    def devices(self) -> list[str]:
        return list(self.ceilings_by_device)

    @property
    def tags(self) -> dict:
        """Row label -> tag of the heaviest kernels (empty before the first draw)."""
        return {} if self.figure is None else dict(self.figure.tags)

    @property
    def drawn_tags(self) -> dict:
        """Row label -> tag, of the tags the plot found room to draw."""
        if self.layout_ is None:
            return {}
        return {label.kernel: label.text for label in self.layout_.labels if label.series == "tag"}

    def show(
        self,
        frame: pd.DataFrame,
        ceilings: CeilingSet,
        *,
        ceilings_by_device: dict[str, CeilingSet] | None = None,
        **options,
    ) -> RooflineFigure | None:
        """Rebuild the figure for ``frame`` and draw it; returns the figure.

        With ``ceilings_by_device`` holding several GPUs, only the shown device's
        kernels are drawn, against that device's ceilings."""
        self.ceilings_by_device = dict(ceilings_by_device or {})
        if self.device not in self.ceilings_by_device:
            self.device = next(iter(self.ceilings_by_device), None)
        self.inputs = {"frame": frame, "ceilings": ceilings, **options}
        self.shown += 1
        selected = options.get("selected")
        if selected is not None and selected.name != self._followed:
            # A kernel newly selected in the table: show its GPU's roofline.
            self._followed = selected.name
            device = device_labels(selected.to_frame().T)[0] if "device" in selected.index else None
            if device in self.ceilings_by_device:
                self.device = device
        if self.cursor is not None and (selected is None or selected.name != self.cursor[1]):
            self.cursor = None  # the table moved to another kernel
        return self.rebuild()

    def _figure_inputs(self) -> dict:
        inputs = dict(self.inputs)
        if len(self.ceilings_by_device) > 1 and self.device is not None:
            frame = inputs["frame"]
            inputs["frame"] = frame[device_labels(frame) == self.device]
            inputs["ceilings"] = self.ceilings_by_device[self.device]
            selected = inputs.get("selected")
            if selected is not None and selected.name not in inputs["frame"].index:
                inputs["selected"] = None
        return inputs

    @property
    def title(self) -> str:
        if len(self.ceilings_by_device) < 2 or self.device is None:
            return ""
        which = self.devices.index(self.device) + 1
        return self.plain(f"GPU {which} of {len(self.devices)}: {printable(self.device)} (v: next GPU)")

    def plan(
        self, width: int, height: int, *, with_selection: bool = True
    ) -> tuple[RooflineFigure, Layout] | None:
        """The figure and its layout on ``width`` × ``height`` cells: a function of the
        inputs, the device and the size alone, so the pane can try sizes before choosing
        (without the selected kernel: moving the selection then keeps the layout)."""
        if self.inputs is None:
            return None
        inputs = self._figure_inputs()
        if not with_selection:
            inputs["selected"] = None
        cells = plot_cells(width, height)
        # Zoomed, and little room above the top roof: rows are scarce at 80x24.
        figure = build_figure(**inputs, cells=cells, zoom=True, headroom=EXPLORER_HEADROOM)
        return figure, self._lay_out(figure, width, height)

    def _lay_out(self, figure: RooflineFigure, width: int, height: int) -> Layout:
        return lay_out(figure, max(width, 20), max(height, 4), ascii_mode=self.ascii_mode,
                       title=self.title, cursor=self.cursor)

    @staticmethod
    def unlabelled_roofs(figure: RooflineFigure, layout: Layout) -> list[Roof]:
        """The roofs whose full label (value and source) is not written on the plot."""
        return [roof for roof in figure.roofs if roof.key not in layout.labelled]

    def make_figure(self) -> RooflineFigure | None:
        planned = self.plan(*self.size)
        if planned is None:
            return None
        self.figure = planned[0]
        self._adopt(planned[1])
        return self.figure

    def redraw(self) -> None:
        """Lay the current figure out again (a new cursor)."""
        if self.figure is not None:
            self._adopt(self._lay_out(self.figure, *self.size))

    def _adopt(self, layout: Layout) -> None:
        self.layout_ = layout
        self.unlabelled = self.unlabelled_roofs(self.figure, layout)
        self._text = None
        self.refresh()

    def render_chart(self) -> Text:
        if self.layout_ is None:
            return Text()
        if self._text is None:
            text = Text()
            layout = self.layout_
            for row in range(layout.height):
                if row:
                    text.append("\n")
                chars, styles = layout.chars[row], layout.styles[row]
                start = 0
                for col in range(1, layout.width + 1):
                    if col == layout.width or styles[col] != styles[start]:
                        text.append("".join(chars[start:col]), STYLES.get(styles[start], Style()))
                        start = col
            self._text = text
        return self._text

    # --- points: step with keys, choose with the mouse ---------------------------------

    def action_step_point(self, step: int) -> None:
        if self.layout_ is None:
            return
        current = self.cursor
        if current is None and self.figure is not None and self.figure.selected:
            # Start from the selected kernel's first point.
            selected = self.inputs.get("selected")
            if selected is not None:
                current = (self.figure.selected[0][0], selected.name)
        point = nearest_in_order(self.layout_.points, current, step)
        if point is not None:
            self._choose(point)

    def on_click(self, event: events.Click) -> None:
        if self.layout_ is None:
            return
        point = self.layout_.point_near(event.x, event.y)
        if point is not None:
            self._choose(point)

    def _choose(self, point: PointCell) -> None:
        self.cursor = (point.level, point.kernel)
        self.redraw()
        self.post_message(self.PointChosen(point.kernel, point.level))

    def action_next_device(self) -> None:
        devices = self.devices
        if len(devices) < 2:
            self.notify("one GPU in this run", timeout=2)
            return
        self.device = devices[(devices.index(self.device) + 1) % len(devices)]
        self.cursor = None
        self.rebuild()


@dataclass(frozen=True)
class Said:
    """A thing the legend must say: in full, and in the status line's few words."""

    text: str  # "FP32 65.7 TFLOP/s (empirical)"
    short: str  # "FP32"
    roof: bool = False  # a roof's value: shortened together with the others ("FP32/FP64 roofs")


def in_few_words(hidden: list[Said]) -> list[str]:
    """The short forms of ``hidden``, the roofs named together: ["6 zero-AI not
    plotted", "FP32/FP64 roofs", "sources"]."""
    words: list[str] = []
    roofs = [said.short for said in hidden if said.roof]
    for said in hidden:
        if not said.roof:
            words.append(said.short)
        elif said.short == roofs[0]:
            words.append("/".join(roofs) + (" roofs" if len(roofs) > 1 else " roof"))
    return words


class RooflinePane(Vertical):
    """The plot with a legend of up to three lines: first what must be said (kernels
    not plotted or on the edge, roofs not labelled on the plot with their value and
    source), then the markers. What does not fit is posted as ``LegendOverflow``
    for the status line.

    The legend's height is chosen from the pane's size and what is plotted, never
    from the last draw: the fewest rows (1 to 3) in which the legend of the plot
    drawn in the remaining rows fits. (Left to ``height: auto`` the legend would
    follow what the plot could not label, the plot's height the legend, and one
    screen could settle into two layouts.)"""

    ALLOW_MAXIMIZE = True
    LEGEND_ROWS = 3  # the most rows the legend takes

    class LegendOverflow(Message):
        """What must be said but has no room under the plot (empty when all fits)."""

        def __init__(self, hidden: list[Said]) -> None:
            super().__init__()
            self.hidden = hidden

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii_mode = ascii_mode
        self.grouped = True
        self.overflow: list[Said] = []  # what the legend could not show; the status line says it
        self.legend_rows = 1
        self._rows_for: tuple | None = None  # what legend_rows was chosen for
        self._content: object = None  # what is plotted, but for the selection (show's ``content``)

    def compose(self) -> ComposeResult:
        yield RooflineCanvas(ascii_mode=self.ascii_mode, id="roofline-canvas")
        yield Static(id="roofline-legend")

    def show(self, frame: pd.DataFrame, ceilings: CeilingSet, *, grouped: bool,
             content: object = None, **options) -> None:
        """Plot ``frame``; ``content`` (optional) names what is plotted but for the
        selected kernel: while it stays equal the legend keeps its rows unasked."""
        self.grouped = grouped
        canvas = self.query_one(RooflineCanvas)
        canvas.show(frame, ceilings, **options)
        self._content = content if content is not None else ("shown", canvas.shown)

    @property
    def legend_width(self) -> int:
        return max(10, self.size.width - 2)  # the legend's padding

    def choose_legend_rows(self) -> int:
        """The fewest rows (1 to ``LEGEND_ROWS``) in which the legend of the plot laid
        out in the pane's other rows fits, for the pane's size and the canvas's inputs."""
        canvas = self.query_one(RooflineCanvas)
        width, height = self.size
        key = (width, height, self._content, canvas.device, self.grouped)
        if key == self._rows_for:
            return self.legend_rows
        rows = self.LEGEND_ROWS
        for tried in range(1, self.LEGEND_ROWS):
            planned = canvas.plan(width, height - tried, with_selection=False)
            if planned is None:
                break
            figure, layout = planned
            text, _ = self.legend(figure, canvas.unlabelled_roofs(figure, layout), self.grouped,
                                  self.legend_width)
            if len(text.wrap(self.app.console, self.legend_width)) <= tried:
                rows = tried
                break
        self._rows_for, self.legend_rows = key, rows
        return rows

    @on(RooflineCanvas.Drawn)
    def _drawn(self) -> None:
        canvas = self.query_one(RooflineCanvas)
        if canvas.figure is None:
            return
        legend_widget = self.query_one("#roofline-legend", Static)
        rows = self.choose_legend_rows()
        if legend_widget.styles.height is None or legend_widget.styles.height.value != rows:
            # The canvas gets the other rows; its resize draws again and comes back here.
            legend_widget.styles.height = rows
        legend, overflow = self.legend(canvas.figure, canvas.unlabelled, self.grouped, self.legend_width,
                                       rows)
        legend_widget.update(legend)
        if overflow != self.overflow:
            self.overflow = overflow
            self.post_message(self.LegendOverflow(overflow))

    def must_say(self, figure: RooflineFigure, unlabelled: list[Roof]) -> list[Said]:
        """What the plot leaves unsaid: roofs with no source at all, kernels not drawn
        or drawn on the edge, and every roof whose value and source are not written
        beside it; each with the few words the status line uses when the legend is full."""
        said = [Said(message, message.split(":")[0]) for message in figure.missing]
        below = " (" + (ASCII_MARKERS if self.ascii_mode else UNICODE_MARKERS)["below"]["hbm"] + ")"
        for note in filter(None, figure.note.split("; ")):
            if "on the bottom edge" in note:
                said.append(Said(note + below, f"{figure.below:,} on the bottom edge{below}"))
            elif "merged per cell" in note:
                said.append(Said(note, note.split(", ")[-1]))
            else:  # "6 zero-AI not plotted"
                said.append(Said(note, note))
        if not any(r.kind == "bandwidth" for r in figure.roofs) and not figure.missing:
            said.append(Said("no memory level shown", "no memory level shown"))
        said += [Said(roof.label, short_name(roof).replace(" · ", "/"), roof=True) for roof in unlabelled]
        sources = roof_sources(figure.roofs)
        if sources:
            said.append(Said(sources, "sources"))
        if self.ascii_mode:
            said = [Said(ascii_safe(s.text), ascii_safe(s.short), s.roof) for s in said]
        return said

    def legend(
        self, figure: RooflineFigure, unlabelled: list[Roof], grouped: bool, width: int = 10_000,
        rows: int = LEGEND_ROWS,
    ) -> tuple[Text, list[Said]]:
        """The legend text, and what must be said but did not fit in ``width`` × ``rows``."""
        markers = ASCII_MARKERS if self.ascii_mode else UNICODE_MARKERS
        mode = "grouped by name" if grouped else "single invocations"
        shown: list[str] = []
        left_over: list[Said] = []
        for part in self.must_say(figure, unlabelled):
            # Wrapped at spaces as the legend wraps; a part goes under the plot only if
            # everything up to it still fits in the legend's rows.
            lines = textwrap.wrap(" · ".join([mode, *shown, part.text]), width)
            if len(lines) <= rows:
                shown.append(part.text)
            else:
                left_over.append(part)
        text = Text(mode + " · ")
        for part_text in shown:
            text.append(part_text, style="bold")
            text.append(" · ")
        keys = Text()
        for level, label in LEVEL_LABELS.items():
            keys.append(f"{markers['heavy'][level]} {label} ", style=rgb(LEVEL_COLOURS[level]))
        keys.append(f"{markers['selected']} selected", style="bold")
        keys.append(" · 1-5 heaviest")
        text.append_text(keys)
        if self.ascii_mode:
            text = Text(ascii_safe(text.plain))
        return text, left_over
