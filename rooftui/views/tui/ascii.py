"""ASCII stand-ins for the few Unicode glyphs Textual and the charts draw, for ``--ascii``,
and checkboxes whose character says ticked or not, so that they read without colour
(``NO_COLOR``) in either mode."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.segment import Segment
from textual.scrollbar import ScrollBarRender
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import Selection

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

# A checkbox's inside, ticked and not: the character says it, colour only helps.
TICKED, UNTICKED = "X", " "
# Its sides: Textual's half blocks, or brackets in ASCII ("[X]", "[ ]").
SIDES = {False: ("▐", "▌"), True: ("[", "]")}

# The app's styles in ASCII mode (the app has the ``-ascii`` class): dialog frames and
# toasts drawn with ASCII borders, not box-drawing or block characters.
ASCII_CSS = """
.-ascii Toast, .-ascii Toast.-information { border-left: ascii $success; }
.-ascii Toast.-warning { border-left: ascii $warning; }
.-ascii Toast.-error { border-left: ascii $error; }
.-ascii ModalScreen Input, .-ascii ModalScreen SelectionList { border: ascii $border-blurred; }
.-ascii ModalScreen Input:focus, .-ascii ModalScreen SelectionList:focus { border: ascii $border; }
"""


def box(ticked: bool, ascii_mode: bool) -> str:
    """A checkbox as text: "[X]", "[ ]" in ASCII; "▐X▌", "▐ ▌" otherwise."""
    left, right = SIDES[ascii_mode]
    return left + (TICKED if ticked else UNTICKED) + right


class AsciiScrollBarRender(ScrollBarRender):
    """Scrollbar thumbs drawn with colour alone, no eighth-block glyphs."""

    VERTICAL_BARS: ClassVar[list[str]] = [" "] * 8
    HORIZONTAL_BARS: ClassVar[list[str]] = [" "] * 8


class MarkedCheckbox(Checkbox):
    """A checkbox showing "X" ticked and a space not ("[X]"/"[ ]" in ASCII): Textual's
    draws an X either way and tells them apart by colour alone."""

    def __init__(self, *args: Any, ascii_mode: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.BUTTON_LEFT, self.BUTTON_RIGHT = SIDES[ascii_mode]
        self.BUTTON_INNER = TICKED if self.value else UNTICKED

    def watch_value(self) -> None:
        super().watch_value()
        self.BUTTON_INNER = TICKED if self.value else UNTICKED


class MarkedSelectionList(SelectionList[Any]):
    """A selection list whose boxes say ticked or not with their character (``box``),
    as ``MarkedCheckbox``; the rest is Textual's."""

    def __init__(
        self, *selections: Selection[Any] | tuple[Any, ...], ascii_mode: bool = False, **kwargs: Any
    ):
        super().__init__(*selections, **kwargs)
        self.ascii_mode = ascii_mode

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return line
        segments = list(line)
        if len(segments) < 3 or "".join(s.text for s in segments[:3]) != box(True, False):
            return line  # not the box this class knows how to redraw
        ticked = selection.value in self.selected
        shown = box(ticked, self.ascii_mode)
        redrawn = [Segment(char, s.style, s.control) for char, s in zip(shown, segments[:3])]
        return Strip([*redrawn, *segments[3:]], line.cell_length)
