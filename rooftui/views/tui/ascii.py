"""ASCII stand-ins for the few Unicode glyphs Textual and plotext draw, for ``--ascii``."""

from __future__ import annotations

from typing import ClassVar

from textual.scrollbar import ScrollBarRender
from textual.widgets import Checkbox

# plotext draws its frame and ticks with box-drawing characters.
BOX_TO_ASCII = str.maketrans(
    {
        "─": "-",
        "│": "|",
        "┌": "+",
        "┐": "+",
        "└": "+",
        "┘": "+",
        "┼": "+",
        "├": "+",
        "┤": "+",
        "┬": "+",
        "┴": "+",
    }
)


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbar thumbs drawn with colour alone, no eighth-block glyphs."""

    VERTICAL_BARS: ClassVar[list[str]] = [" "] * 8
    HORIZONTAL_BARS: ClassVar[list[str]] = [" "] * 8


class AsciiCheckbox(Checkbox):
    BUTTON_LEFT = "["
    BUTTON_RIGHT = "]"
