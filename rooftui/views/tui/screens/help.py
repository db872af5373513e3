"""Every key of the screen underneath, read from the bindings themselves so the list
cannot drift. The rows come from the app (``RooftuiBaseApp.help_rows``): this module
knows no screen."""

from __future__ import annotations

from collections.abc import Iterable

from rich import box
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.widgets.footer import KeysFooter

KEY_NAMES = {
    "slash": "/",
    "full_stop": ".",
    "comma": ",",
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "equals_sign": "=",
    "plus": "+",
    "minus": "-",
    "escape": "esc",
    "pageup": "PgUp",
    "pagedown": "PgDn",
}

HelpRow = tuple[str, str, str]  # where, keys, what it does


def keys_text(binding: Binding, typing: bool = False) -> str:
    """The binding's keys as the help shows them; with ``typing`` (a text field has
    the focus, so a key that types a character types it) only the others."""
    names = [KEY_NAMES.get(k, k) for k in binding.key.split(",")]
    return " ".join(name for name in names if not (typing and len(name) == 1))


def working_bindings(bindings: Iterable[BindingType], owner: DOMNode) -> list[Binding]:
    """The bindings of ``owner`` that work now (its ``check_action`` does not refuse
    them): ``t`` only when there is a trace to show."""
    given = [Binding(*binding) if isinstance(binding, tuple) else binding for binding in bindings]
    return [binding for binding in given if owner.check_action(binding.action.split("(")[0], ()) is not False]


def binding_rows(
    where: str, bindings: Iterable[BindingType], owner: DOMNode, typing: bool = False
) -> list[HelpRow]:
    """One row per binding of ``owner`` that works now (``working_bindings``); with
    ``typing``, a binding whose keys all type a character is left out (``?`` types a
    question mark)."""
    rows = []
    for binding in working_bindings(bindings, owner):
        keys = keys_text(binding, typing)
        if keys:
            rows.append((where, keys, binding.tooltip or binding.description))
    return rows


def footer_width(*owners: DOMNode) -> int:
    """The columns Textual's footer takes for the keys it shows of ``owners`` (a screen
    and its app: those shown that work now), not packed: a key, its description, three
    spaces."""
    shown = [b for owner in owners for b in working_bindings(owner.BINDINGS, owner) if b.show]
    return sum(len(b.key_display or b.key.split(",")[0]) + len(b.description) + 3 for b in shown) + 1


def bindings_table(rows: Iterable[HelpRow], ascii_mode: bool = False) -> Table:
    table = Table(box=None if ascii_mode else box.SIMPLE, expand=True, padding=(0, 1))
    table.add_column("where", style="dim", no_wrap=True)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("does")
    for row in rows:
        table.add_row(*(ascii_safe(cell) for cell in row) if ascii_mode else row)
    return table


class HelpScreen(Screen):
    # Its own style: the compare and timeline apps do not load the explorer's.
    DEFAULT_CSS = "#help { padding: 0 1; }"
    # `?` closes the help it opened: the footer must not offer it as "help" here.
    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("question_mark", "close", "close", key_display="?"),
        Binding("q", "close", "close", show=False),
    ]
    HELP_WHERE = "help"

    def __init__(self, rows: list[HelpRow], *, intro: str = "", ascii_mode: bool = False) -> None:
        super().__init__()
        self.rows = rows
        self.intro = ascii_safe(intro) if ascii_mode else intro
        self.ascii_mode = ascii_mode

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            if self.intro:
                yield Static(self.intro, id="help-intro")
            yield Static(bindings_table(self.rows, self.ascii_mode), id="help-keys")
        yield KeysFooter()

    def action_close(self) -> None:
        self.dismiss()
