"""ASCII stand-ins for the few Unicode glyphs Textual and the charts draw, for ``--ascii``."""

from __future__ import annotations

from typing import ClassVar

from textual.scrollbar import ScrollBarRender
from textual.widgets import Checkbox

# Frames and ticks are drawn with box-drawing characters.
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
    """``[X]`` ticked, ``[ ]`` not: without colour the character must say which."""

    BUTTON_LEFT = "["
    BUTTON_RIGHT = "]"
    BUTTON_INNER = " "

    def watch_value(self) -> None:
        super().watch_value()
        self.BUTTON_INNER = "X" if self.value else " "
