"""What every rooftui app shares: one set of keys on every screen.

``?`` (or F1) lists the keys of the screen you are on, and only those that work
there; ``Esc`` goes back and never quits; ``q`` closes a screen opened from
another and quits from the first screen. The explorer, ``rooftui diff --tui`` and
``rooftui timeline --tui`` are all built on ``RooftuiBaseApp``.
"""

from __future__ import annotations

import base64
import os

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.widgets import Input

from rooftui.views.tui.ascii import ASCII_CSS, AsciiScrollBarRender
from rooftui.views.tui.screens.help import HelpRow, HelpScreen, binding_rows
from rooftui.views.tui.timer_guard import guard_timers

guard_timers()  # a toast shown as it expires froze the app (timer_guard.py)


class RooftuiBaseApp(App[None]):
    ENABLE_COMMAND_PALETTE = False
    CSS = ASCII_CSS  # with the ``-ascii`` class: dialogs and toasts in ASCII
    HELP_INTRO = ""  # the first line of the help screen
    BINDINGS = [
        Binding("q", "back_or_quit", "quit", tooltip="quit (on a screen opened from another: back)"),
        Binding("question_mark,f1", "help", "help", key_display="?", tooltip="the keys of this screen"),
    ]

    def __init__(self, *, ascii_mode: bool = False) -> None:
        super().__init__()
        self.ascii_mode = ascii_mode

    def on_mount(self) -> None:
        if self.ascii_mode:
            ScrollBar.renderer = AsciiScrollBarRender
            self.add_class("-ascii")  # every screen, dialogs too (``ASCII_CSS``)

    def on_unmount(self) -> None:
        ScrollBar.renderer = ScrollBarRender

    def copy_to_clipboard(self, text: str) -> None:
        """Copy with OSC 52, which works over SSH; inside tmux the sequence is also sent
        wrapped for passthrough, for a tmux that does not take OSC 52 itself."""
        super().copy_to_clipboard(text)  # the plain OSC 52
        driver = getattr(self, "_driver", None)  # Textual writes OSC 52 through it too
        if os.environ.get("TMUX") and driver is not None:
            driver.write(tmux_passthrough(osc52(text)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # On the help screen `?` closes it (its own key): the footer offers no "help" there.
        return not (action == "help" and isinstance(self.screen, HelpScreen))

    @property
    def on_first_screen(self) -> bool:
        """True on the screen the app opened with (the stack also holds Textual's default screen)."""
        return len(self.screen_stack) <= 2

    def action_back_or_quit(self) -> None:
        if self.on_first_screen:
            self.exit()
        else:
            self.screen.dismiss()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.help_rows(), intro=self.HELP_INTRO, ascii_mode=self.ascii_mode))

    def help_rows(self) -> list[HelpRow]:
        """The keys that work here: the app's, then the current screen's. In a text
        field (the export dialog's, a filter) ``q`` and ``?`` type themselves: F1 is help."""
        screen = self.screen
        typing = isinstance(screen.focused, Input)
        # A dialog (a modal screen) takes no key of the app's: it has its own ``DIALOG_KEYS``.
        rows = [] if screen.is_modal else binding_rows("anywhere", self.BINDINGS, self, typing)
        own = getattr(screen, "help_rows", None)
        if own is not None:
            return rows + own()
        return rows + binding_rows(getattr(screen, "HELP_WHERE", "this screen"), screen.BINDINGS, screen)


# The keys every dialog binds itself: Textual gives a modal screen no key of the app's.
DIALOG_KEYS = [
    Binding("question_mark,f1", "app.help", "help", key_display="?", tooltip="the keys of this dialog"),
]


def osc52(text: str) -> str:
    """The terminal sequence that puts ``text`` on the system clipboard (OSC 52)."""
    return f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\a"


def tmux_passthrough(sequence: str) -> str:
    """``sequence`` wrapped so tmux hands it to the outer terminal (DCS tmux; ... ST,
    every ESC inside doubled): tmux's allow-passthrough."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def go_back(screen: Screen) -> None:
    """``Esc`` on ``screen``: close it, or, on the app's first screen, say how to quit."""
    if getattr(screen.app, "on_first_screen", False):
        screen.notify("q quits", timeout=2)
    else:
        screen.dismiss(None)
