"""What every chart widget shares: the markers, the plot area left by the axes (the
markers live in ``roofline_glyphs``, the cells in ``roofline_layout``, the colours in
``rooftui.views.palette``, all Textual-free), ASCII mode, and drawing again on resize.

The explorer's ``RooflineCanvas`` draws on its own cell grid (``roofline_layout``),
and so does the compare screen's ``CompareCanvas`` (one renderer); both are a ``ChartCanvas``,
so a level has one colour and one marker everywhere, the axes take the same cells,
and ``--ascii`` means the same thing on both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from rich.text import Text
from textual.app import RenderResult
from textual.message import Message
from textual.widget import Widget

from rooftui.views.tui.ascii import BOX_TO_ASCII
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.roofline_glyphs import ASCII_MARKERS, UNICODE_MARKERS
from rooftui.views.tui.roofline_layout import plot_cells

Figure = TypeVar("Figure")


class ChartCanvas(Widget, Generic[Figure], can_focus=True):
    """A chart drawn for its current size. A subclass gives ``make_figure`` (the figure
    for the widget's size, kept for drawing) and ``render_chart`` (the picture);
    ``rebuild`` makes the figure, draws it and posts ``Drawn``, and a resize rebuilds.
    In ASCII mode what leaves the widget has ASCII frame characters."""

    class Drawn(Message):
        """A new figure is on the canvas; the legend follows it."""

    # What each chart gives, as methods: the figure for the widget's size, kept for
    # ``render_chart`` (None while there is nothing to draw); and the picture at that size.
    make_figure: Callable[[], Figure | None]
    render_chart: Callable[[], Text]

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii_mode = ascii_mode
        self.markers = ASCII_MARKERS if ascii_mode else UNICODE_MARKERS

    @property
    def plot_cells(self) -> tuple[int, int]:
        """The plot area at the widget's size (see ``plot_cells``)."""
        return plot_cells(*self.size)

    def plain(self, text: str) -> str:
        """``text`` as this chart writes it: ASCII stand-ins in ASCII mode."""
        return ascii_safe(text) if self.ascii_mode else text

    def rebuild(self) -> Figure | None:
        """Make the figure for the widget's size, draw it and post ``Drawn``."""
        figure = self.make_figure()
        if figure is not None:
            self.refresh_chart()
            self.post_message(self.Drawn())
        return figure

    def refresh_chart(self) -> None:
        """Paint the new picture (a chart that knows what changed paints only that)."""
        self.refresh()

    def on_resize(self) -> None:
        self.rebuild()

    def render(self) -> RenderResult:
        return self.ascii_frames(self.render_chart())

    def ascii_frames(self, text: Text) -> Text:
        """``text``, in ASCII mode with box-drawing frames made ASCII, one character for
        one, so the styles stay on their characters."""
        if self.ascii_mode:
            plain = text.plain.translate(BOX_TO_ASCII)
            if plain != text.plain:
                text = text.copy()
                text.plain = plain
        return text
