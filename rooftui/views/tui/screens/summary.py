"""The summary screen: the paper's Table III (zero-AI share), time per phase,
time and FLOPs per pipeline — the analysis module's tables, formatted."""

from __future__ import annotations

import pandas as pd
from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from rooftui.model.columns import PIPELINE_LABELS
from rooftui.views.formats import percent, seconds, si
from rooftui.views.tui.explorer_model import SummaryTables
from rooftui.views.tui.format import MISSING, literal
from rooftui.views.tui.view_state import ViewState
from rooftui.views.tui.widgets.footer import KeysFooter


def format_cell(column: str, value) -> str:
    """Display text for one summary cell, chosen by the column's name."""
    if isinstance(value, str):
        return PIPELINE_LABELS.get(value, value) if column == "pipeline" else value
    if value is None or (isinstance(value, float) and value != value):
        return "–"
    name = column.lower()
    if "share" in name or "fraction" in name or name.endswith("_pct"):
        return percent(float(value), missing=MISSING)
    if name.endswith("_s") or name == "time":
        return seconds(float(value), missing=MISSING)
    if "flop" in name:
        return si(float(value), "FLOP", missing=MISSING)
    if "bytes" in name:
        return si(float(value), "B", missing=MISSING)
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{float(value):.3g}"


def header(column: str) -> str:
    """A column name in the user's words: zero_ai_time_s -> "zero-AI time"."""
    if column == "kernels":
        return "launches"  # the summary tables count invocations
    words = column.removesuffix("_s").replace("zero_ai", "zero-AI").replace("flops", "FLOPs")
    return words.replace("_", " ")


def text_table(title: str, columns: list[tuple[str, bool]], rows: list[list[str]], ascii_mode: bool) -> Table:
    """A titled table of ``rows`` of text under ``columns`` (header, right-aligned)."""
    table = Table(
        title=title,
        title_justify="left",
        expand=False,
        box=None if ascii_mode else box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    for name, right in columns:
        # Folded, never cut with an ellipsis: a narrow screen wraps a phase name, it
        # does not hide its end (nor, in ASCII, draw "…").
        table.add_column(name, justify="right" if right else "left", overflow="fold")
    for cells in rows:
        table.add_row(*(literal(c, ascii_mode) for c in cells))  # phase and GPU names come from files
    return table


def frame_table(title: str, frame: pd.DataFrame, ascii_mode: bool) -> Table:
    shown = frame.reset_index() if frame.index.name is not None else frame
    columns = [
        (header(str(c)), pd.api.types.is_numeric_dtype(shown[c]) and shown[c].dtype != bool)
        for c in shown.columns
    ]
    rows = [
        [format_cell(str(c), v) for c, v in zip(shown.columns, values, strict=True)]
        for values in shown.itertuples(index=False)
    ]
    return text_table(title, columns, rows, ascii_mode)


class SummaryScreen(Screen):
    BINDINGS = [Binding("escape,s,q", "close", "back")]
    HELP_WHERE = "summary"

    def __init__(self, state: ViewState, tables: SummaryTables, *, ascii_mode: bool = False) -> None:
        super().__init__()
        self.state = state
        self.tables = tables  # ``ExplorerModel.summary_tables``: made once per run
        self.ascii_mode = ascii_mode

    def compose(self) -> ComposeResult:
        tables = self.tables
        with VerticalScroll(id="summary"):
            yield Static("Whole run, every invocation (filters do not apply here).", id="summary-scope")
            if "gain_s" in self.state.run.grouped:  # rooftui advise's per-kernel gain (a: the whole budget)
                from rooftui.views.advise import top_opportunity_lines

                lines = top_opportunity_lines(self.state.run.grouped, max(self.app.size.width - 6, 40))
                text = Text("\n").join(literal(line, self.ascii_mode) for line in lines)
                yield Static(text, id="summary-opportunities")
            yield Static(
                frame_table(
                    "Zero-AI invocations and their share of time (Table III)",
                    tables.zero_ai,
                    self.ascii_mode,
                )
            )
            if tables.ranks is not None:  # several ranks, as `rooftui summary` prints them
                from rooftui.views.summary import RANK_COLUMNS, RANKS_TITLE

                columns = [(title, title not in ("rank", "device")) for title in RANK_COLUMNS]
                rows = [list(row) for row in tables.ranks]
                yield Static(text_table(RANKS_TITLE, columns, rows, self.ascii_mode), id="summary-ranks")
            yield Static(frame_table("Time per phase", tables.phases, self.ascii_mode))
            yield Static(frame_table("Time and FLOPs per pipeline", tables.pipelines, self.ascii_mode))
            for note in self.state.run.notes:
                yield Static(literal(f"note: {note}", self.ascii_mode), classes="summary-note")
        yield KeysFooter()

    def action_close(self) -> None:
        self.dismiss()
