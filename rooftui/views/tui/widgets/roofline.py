"""The roofline pane: a ``RooflineView`` (``roofline_view``, no Textual) on screen.

The view decides every cell and the legend; these widgets only colour the cells,
draw again on resize, give the legend the rows the view chose, and turn keys and
clicks on points into ``PointChosen`` messages. With several GPUs the view shows one
device at a time (``v`` switches) and says which in its top row.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widgets import Static

from rooftui.views.palette import A_COLOUR, MERGED_COLOURS, SELECTED_COLOUR, SERIES_COLOURS, rgb
from rooftui.views.tui.roofline_layout import Layout
from rooftui.views.tui.roofline_legend import LEGEND_ROWS, Said, legend_width
from rooftui.views.tui.roofline_model import Roof, RooflineFigure
from rooftui.views.tui.roofline_view import RooflineView
from rooftui.views.tui.widgets.chart import ChartCanvas


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
        "compare-a": Style(color=rgb(A_COLOUR)),
    }
    for level, colour in SERIES_COLOURS.items():
        styles[f"point:{level}"] = Style(color=rgb(colour))
        styles[f"merged:{level}"] = Style(color=rgb(MERGED_COLOURS[level]))
        styles[f"slope:{level}"] = Style(color=rgb(colour))
        styles[f"slope-label:{level}"] = Style(color=rgb(colour), bold=True)
    return styles


STYLES = _styles()
STRIPS_KEPT = 512  # rows' lines kept by a canvas (a few pictures' worth) before starting afresh


def layout_text(layout: Layout) -> Text:
    """``layout``'s cells as Rich text, each run of one style in that style's colours:
    the one way a roofline (the explorer's or the compare chart's) reaches the screen."""
    text = Text()
    for row in range(layout.height):
        if row:
            text.append("\n")
        _append_row(text, layout.chars[row], layout.styles[row])
    return text


def _append_row(text: Text, chars: list[str], styles: list[str]) -> None:
    start = 0
    for col in range(1, len(chars) + 1):
        if col == len(chars) or styles[col] != styles[start]:
            text.append("".join(chars[start:col]), STYLES.get(styles[start], Style()))
            start = col


def row_text(layout: Layout, row: int) -> Text:
    """Row ``row`` of ``layout_text(layout)`` alone."""
    text = Text()
    _append_row(text, layout.chars[row], layout.styles[row])
    return text


def _size(layout: Layout) -> tuple[int, int]:
    return layout.width, layout.height


class RooflineCanvas(ChartCanvas[RooflineFigure]):
    """Draws its ``RooflineView`` at the widget's size; rebuilds on resize (``ChartCanvas``).

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
        # Replaced by the explorer model's own view once a run is loaded.
        self.view = RooflineView(ascii_mode=ascii_mode)
        self._text: tuple[Layout, Text] | None = None
        self._painted: Layout | None = None  # the layout the last refresh asked to paint
        # Each row's line as drawn, by its characters and styles, while the widget's width
        # and style stay (``_strips_for``): a cursor move redraws the rows it changed.
        self._strips: dict[tuple[str, tuple[str, ...]], tuple[Strip, int]] = {}  # line, row it is of
        self._strips_for: tuple[object, ...] = ()
        self._keys: tuple[Layout, list[tuple[str, tuple[str, ...]]]] | None = None

    # What tests and the pane read, as the view has it.
    @property
    def figure(self) -> RooflineFigure | None:
        return self.view.figure

    @property
    def layout_(self) -> Layout | None:
        return self.view.layout

    @property
    def cursor(self) -> tuple[str, Any] | None:
        return self.view.cursor

    @property
    def device(self) -> str | None:
        return self.view.device

    @property
    def devices(self) -> list[str]:
        return self.view.devices

    @property
    def tags(self) -> dict[Any, str]:
        return self.view.tags

    @property
    def drawn_tags(self) -> dict[Any, str]:
        return self.view.drawn_tags

    @property
    def unlabelled(self) -> list[Roof]:
        return self.view.unlabelled

    def make_figure(self) -> RooflineFigure | None:
        width, height = self.size
        return self.view.draw(width, height)

    def render_chart(self) -> Text:
        layout = self.view.layout
        if layout is None:
            return Text()
        if self._text is None or self._text[0] is not layout:
            self._text = (layout, layout_text(layout))
        return self._text[1]

    def refresh_chart(self) -> None:
        """Paint again the rows whose cells the new layout changed (none when it is the
        one painted); everything when its size changed."""
        layout, painted = self.view.layout, self._painted
        self._painted = layout
        if layout is painted:
            return
        if layout is None or painted is None or _size(layout) != _size(painted):
            self.refresh()
            return
        for row in range(layout.height):
            if layout.chars[row] != painted.chars[row] or layout.styles[row] != painted.styles[row]:
                self.refresh(Region(0, row, layout.width, 1))

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the picture as Textual renders the whole of it (``render``), kept
        per row: a row's line depends on its cells alone, so unchanged rows are not
        rendered again. Rows past the layout are blank, as Textual leaves them until the
        resize that follows draws the layout anew. The whole picture is rendered while
        text is selected (a selection spans rows) or when the layout is not the widget's
        width (its rows would wrap)."""
        layout = self.view.layout
        width = self.size.width
        if layout is None or self.text_selection is not None or layout.width != width:
            return super().render_line(y)
        if y >= layout.height:
            return Strip.blank(width, self.visual_style.rich_style)
        context = (width, self.visual_style, self.ascii_mode)
        if context != self._strips_for or len(self._strips) > STRIPS_KEPT:
            self._strips, self._strips_for = {}, context
        keys = self._row_keys(layout)
        kept = self._strips.get(keys[y])
        if kept is None:
            new = [row for row, key in enumerate(keys) if key not in self._strips]
            if 2 * len(new) > layout.height:  # a new picture: at once is cheaper than row by row
                text = self.ascii_frames(layout_text(layout))
                whole = Visual.to_strips(self, visualize(self, text), width, layout.height, self.visual_style)
                for row in new:
                    self._strips[keys[row]] = (whole[row], row)
            else:
                text = self.ascii_frames(row_text(layout, y))
                line = Visual.to_strips(self, visualize(self, text), width, 1, self.visual_style)[0]
                self._strips[keys[y]] = (line, 0)
            kept = self._strips[keys[y]]
        strip, row = kept
        # the offsets text selection reads, as on row ``y``: a line kept from another row
        # (or rendered alone, as row 0) takes this row's
        return strip if row == y else strip.apply_offsets(0, y)

    def _row_keys(self, layout: Layout) -> list[tuple[str, tuple[str, ...]]]:
        """Each row of ``layout`` by its characters and styles (worked out once a layout)."""
        if self._keys is None or self._keys[0] is not layout:
            keys = [("".join(chars), tuple(styles)) for chars, styles in zip(layout.chars, layout.styles)]
            self._keys = (layout, keys)
        return self._keys[1]

    # --- points: step with keys, choose with the mouse ---------------------------------

    def action_step_point(self, step: int) -> None:
        self._chosen(self.view.step_point(step))

    def on_click(self, event: events.Click) -> None:
        self._chosen(self.view.point_at(event.x, event.y))

    def _chosen(self, point: Any) -> None:
        if point is not None:
            self.refresh_chart()
            self.post_message(self.PointChosen(point.kernel, point.level))

    def action_next_device(self) -> None:
        if not self.view.next_device():
            self.notify("one GPU in this run", timeout=2)
            return
        self.rebuild()


class RooflinePane(Vertical):
    """The plot with a legend of up to three lines: first what must be said (kernels
    not plotted or on the edge, roofs not labelled on the plot with their value and
    source), then the markers. What does not fit is posted as ``LegendOverflow``
    for the status line. The rows the legend takes are the view's choice
    (``RooflineView.legend_rows``)."""

    ALLOW_MAXIMIZE = True
    LEGEND_ROWS = LEGEND_ROWS

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
        self._content: object = None  # what is plotted, but for the selection (show's ``content``)
        self._legend_shown: tuple[object, ...] | None = None  # what the legend's Static holds

    def compose(self) -> ComposeResult:
        yield RooflineCanvas(ascii_mode=self.ascii_mode, id="roofline-canvas")
        yield Static(id="roofline-legend")

    @property
    def view(self) -> RooflineView:
        return self.query_one(RooflineCanvas).view

    def redraw(self, *, grouped: bool, content: object = None) -> None:
        """Draw the view's new inputs; ``content`` (optional) names what is plotted but
        for the selected kernel: while it stays equal the legend keeps its rows unasked."""
        self.grouped = grouped
        self._content = content
        self.query_one(RooflineCanvas).rebuild()

    def choose_legend_rows(self) -> int:
        width, height = self.size
        self.legend_rows = self.view.legend_rows(width, height, self.grouped, self._content)
        return self.legend_rows

    @on(RooflineCanvas.Drawn)
    def _drawn(self) -> None:
        view = self.view
        if view.figure is None:
            return
        legend_widget = self.query_one("#roofline-legend", Static)
        rows = self.choose_legend_rows()
        if legend_widget.styles.height is None or legend_widget.styles.height.value != rows:
            # The canvas gets the other rows; its resize draws again and comes back here.
            legend_widget.styles.height = rows
        text, overflow = view.legend(self.grouped, legend_width(self.size.width), rows)
        shown = (text.plain, tuple(text.spans), str(text.style), text.justify, text.overflow, text.no_wrap)
        if shown != self._legend_shown:  # most draws (a move of the selection) say the same
            self._legend_shown = shown
            # its height is set above, never from its text: no layout pass for a new text
            legend_widget.update(text, layout=False)
        if overflow != self.overflow:
            self.overflow = overflow
            self.post_message(self.LegendOverflow(overflow))
