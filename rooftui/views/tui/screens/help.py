"""Every key, read from the bindings themselves so the list cannot drift."""

from __future__ import annotations

from rich import box
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

KEY_NAMES = {
    "slash": "/",
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "escape": "esc",
    "pageup": "PgUp",
    "pagedown": "PgDn",
}


def _keys(binding: Binding) -> str:
    return " ".join(KEY_NAMES.get(k, k) for k in binding.key.split(","))


def bindings_table(ascii_mode: bool = False) -> Table:
    """All bindings of the app, its screens and the kernel table, by where they work."""
    from rooftui.views.tui.app import RooftuiApp
    from rooftui.views.tui.screens.explorer import ExplorerScreen
    from rooftui.views.tui.screens.export import ExportScreen
    from rooftui.views.tui.screens.pipelines import PipelinesScreen
    from rooftui.views.tui.screens.summary import SummaryScreen
    from rooftui.views.tui.widgets.kernel_table import KernelTable

    table = Table(box=None if ascii_mode else box.SIMPLE, expand=True, padding=(0, 1))
    table.add_column("where", style="dim", no_wrap=True)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("does")
    places = [
        ("anywhere", RooftuiApp),
        ("explorer", ExplorerScreen),
        ("kernel table", KernelTable),
        ("summary", SummaryScreen),
        ("help", HelpScreen),
        ("pipelines", PipelinesScreen),
        ("export", ExportScreen),
    ]
    for where, owner in places:
        for binding in owner.BINDINGS:
            table.add_row(where, _keys(binding), binding.tooltip or binding.description)
    table.add_row("kernel table", "click header", "sort by that column; click again to reverse")
    table.add_row("kernel table", "click row", "select the kernel")
    table.add_row("filter bar", "tab / shift+tab", "move between fields; esc back to the table")
    return table


class HelpScreen(Screen):
    BINDINGS = [Binding("escape,q,question_mark", "close", "close")]

    def compose(self) -> ComposeResult:
        ascii_mode = getattr(self.app, "ascii_mode", False)
        with VerticalScroll(id="help"):
            yield Static(
                "rooftui — hierarchical roofline explorer. Each kernel is drawn at up to "
                "three points, its arithmetic intensity at L1, L2 and HBM, at one FLOP/s.",
                id="help-intro",
            )
            yield Static(bindings_table(ascii_mode), id="help-keys")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss()
