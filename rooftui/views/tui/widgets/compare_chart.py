"""The compare chart on screen: a ``CompareModel``'s chart (``compare_model``, no Textual),
laid out by the explorer's engine (``roofline_layout.lay_out``): one renderer of rooflines.
This widget only asks the model for the picture at its size and colours the cells."""

from __future__ import annotations

from rich.text import Text

from rooftui.views.tui.compare_model import CompareModel
from rooftui.views.tui.compare_overlay import ComparePicture, Overlay
from rooftui.views.tui.roofline_layout import Layout
from rooftui.views.tui.widgets.chart import ChartCanvas
from rooftui.views.tui.widgets.roofline import layout_text


class CompareCanvas(ChartCanvas[ComparePicture]):
    """Draws the model's chart for the widget's size: both sides' roofs with their labels,
    an arrow per heavy matched kernel, the axes with their titles. A ``ChartCanvas`` like
    the explorer's, so with the same colours, markers, axes' cells, ASCII mode and
    redrawing on resize."""

    def __init__(self, model: CompareModel, *, id: str | None = None) -> None:
        super().__init__(ascii_mode=model.ascii_mode, id=id)
        self.model = model
        self._text: tuple[Layout, Text] | None = None

    def make_figure(self) -> ComparePicture:
        return self.model.chart(*self.size)

    def render_chart(self) -> Text:
        picture = self.model.picture
        if picture is None:
            return Text()
        if self._text is None or self._text[0] is not picture.layout:
            self._text = (picture.layout, layout_text(picture.layout))
        return self._text[1]

    @property
    def overlay(self) -> Overlay | None:
        """What the chart drew last: its roofs, ranges and arrows."""
        return None if self.model.picture is None else self.model.picture.overlay
