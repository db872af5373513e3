"""A line of text the explorer shows literally (the header, the status line, the selected
kernel's name), drawn again only when what it says changes, and laid out again only when
its height changes.

``Static.update`` re-renders its content and, unless told otherwise, asks the whole screen
for a layout pass, even for the same text. A key press sets these lines every time; most
presses leave them saying the same, and a new kernel name usually wraps to as many rows as
the last one. ``TextLine.show`` compares the text with what it shows and, for a new text,
the rows it takes at the current width (at most its max-height) with the rows the old one
took: the same rows, no layout pass (what is drawn is what ``Static.update`` draws)."""

from __future__ import annotations

from textual.css.scalar import Scalar
from textual.visual import visualize
from textual.widgets import Static

from rooftui.views.tui.format import literal


class TextLine(Static):
    """Text from a file or made by the model, never markup (``literal``)."""

    def __init__(self, text: str = "", *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(literal(text), id=id)  # as first composed: "loading…" in both modes
        self.ascii_mode = ascii_mode
        self.shown_text = text
        # (width, max-height, rows): the rows ``shown_text`` takes (wrapped at the content
        # width, at most the max-height in cells) as last measured; another width or
        # max-height is measured again by the layout pass it asks for
        self._rows: tuple[int, Scalar | None, int] | None = None

    def show(self, text: str) -> bool:
        """Show ``text``; returns whether a layout pass was asked for (its rows changed,
        or they are not known at this width)."""
        if text == self.shown_text:
            return False
        content = literal(text, self.ascii_mode)
        width = self.content_size.width
        # measured as Textual's layout measures it (Widget.get_content_height passes the
        # widget's styles as the rules, hence the ignore)
        rows = visualize(self, content).get_height(self.styles, width) if width else None  # type: ignore[arg-type]
        most = self.styles.max_height
        if rows is not None and most is not None and most.is_cells:
            rows = min(rows, int(most.value))  # below 30 rows the name shows one row
        measured = None if rows is None else (width, most, rows)
        same_rows = measured is not None and self._rows == measured
        self.shown_text = text
        self._rows = measured
        # (its repaint forgets the old text's measured rows: the next layout measures anew)
        self.update(content, layout=not same_rows)
        return not same_rows
