"""The compare screen: two runs on one roofline, each matched kernel an arrow from A to B.

``CompareScreen(run_a, run_b)`` is self-contained: any app can push it (the
explorer's ``--compare``), and ``CompareApp`` wraps it for ``rooftui diff A B
--tui``. The matching and every number come from
:func:`rooftui.analysis.compare.compare_runs`; this module only draws.

The chart reuses the explorer's roofline geometry: ``build_figure`` for each
side's roofs (against that side's own ceilings, so A may be a V100 and B an
H200), with the explorer's colours and markers; ``CompareCanvas`` draws them and,
on top, each of the heaviest matched kernels as a line from its A point (hollow
marker) to its B point (filled marker) at one memory level.

Moving through the matched list draws the pair in gold, its B point as the
explorer's selected glyph (◆, ``@`` in ASCII) so it shows without colour too;
through the operations list, every matched pair of that operation.

Keys: ``m`` matched, ``o`` by operation, ``a`` only in A, ``b`` only in B,
``t`` totals; ``l`` next memory level; ``+``/``-`` more/fewer arrows; ``z``
the chart alone; ``escape`` goes back (out of the zoom, then the screen); ``?`` lists the keys.
"""

from __future__ import annotations

import io

import pandas as pd
from rich.console import Console, Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import ContentSwitcher, DataTable, Footer, Static

from rooftui.analysis import Run
from rooftui.analysis.compare import Comparison, compare_runs
from rooftui.model.columns import BOUND_LEVELS as LEVELS  # compared: the paper's three levels
from rooftui.model.columns import LEVEL_LABELS
from rooftui.views.compare import (
    METHOD_WORDS,
    both,
    change,
    count_text,
    phase_totals,
    pipeline_text,
    pipeline_totals,
    time_text,
    zero_ai_totals,
)
from rooftui.views.formats import seconds, si
from rooftui.views.text import printable, short_names
from rooftui.views.tui.base_app import RooftuiBaseApp, go_back
from rooftui.views.tui.format import MISSING, ascii_safe, literal
from rooftui.views.tui.roofline_layout import A_COLOUR, LEVEL_COLOURS, SELECTED_COLOUR, rgb
from rooftui.views.tui.widgets.compare_chart import A_MARKER, B_MARKER, CompareCanvas

NAME_WIDTH = 32  # kernel names in the lists; the detail line under them has them whole
WIDE = 140  # from this many columns, the table and the chart sit side by side
VIEWS = {"matched": "m", "operations": "o", "only-a": "a", "only-b": "b", "totals": "t"}


class CompareScreen(Screen[None]):
    """Run A against run B: matched kernels, operations, one-sided kernels, totals, overlay."""

    CSS_PATH = "compare.tcss"
    BINDINGS = [
        Binding("m", "view('matched')", "matched"),
        Binding("o", "view('operations')", "operations"),
        Binding("a", "view('only-a')", "only A"),
        Binding("b", "view('only-b')", "only B"),
        Binding("t", "view('totals')", "totals"),
        Binding("l", "next_level", "level"),
        Binding("z", "zoom", "zoom chart"),
        Binding("plus,equals_sign", "arrows(1)", "more arrows", key_display="+", show=False),
        Binding("minus", "arrows(-1)", "fewer arrows", key_display="-", show=False),
        Binding("escape", "close", "back", tooltip="back (out of the zoomed chart first)"),
    ]
    HELP_WHERE = "compare"

    def __init__(
        self,
        run_a: Run,
        run_b: Run,
        *,
        label_a: str = "A",
        label_b: str = "B",
        comparison: Comparison | None = None,
        ascii_mode: bool = False,
    ) -> None:
        super().__init__()
        self.comparison = comparison or compare_runs(run_a, run_b, label_a, label_b)
        self.ascii_mode = ascii_mode
        self.view = "matched"
        kernels = self.comparison.kernels
        names = [name for side in ("a", "b") for name in kernels[f"name_{side}"] if isinstance(name, str)]
        self._names = short_names(names, NAME_WIDTH, "..." if ascii_mode else "…")

    @classmethod
    def of(cls, comparison: Comparison, *, ascii_mode: bool = False) -> CompareScreen:
        """The screen for a comparison already made (``rooftui diff --tui``)."""
        return cls(comparison.run_a, comparison.run_b, comparison=comparison, ascii_mode=ascii_mode)

    def compose(self) -> ComposeResult:
        yield Static(self._text(self._summary()), id="compare-summary")
        yield Static(id="compare-views")
        with Horizontal(id="compare-body"):
            with ContentSwitcher(initial="matched", id="compare-lists"):
                yield DataTable(id="matched", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="operations", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="only-a", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="only-b", cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="totals"):
                    yield Static(self._totals(), id="totals-tables")
            with Vertical(id="compare-chart"):
                yield CompareCanvas(self.comparison, ascii_mode=self.ascii_mode, id="compare-canvas")
                yield Static(id="compare-legend")
        yield Static(id="compare-detail")
        yield Footer()

    def on_mount(self) -> None:
        self._fill_matched()
        self._fill_operations()
        self._fill_one_side("a")
        self._fill_one_side("b")
        self._show_views()
        self.query_one("#matched", DataTable).focus()

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE, "wide")

    # -- tables ------------------------------------------------------------------------------

    def _fill_matched(self) -> None:
        table = self.query_one("#matched", DataTable)
        # Short cells first and the name last, so 80 columns show every number.
        table.add_columns(*self._cells("how", "time A", "time B", "Δt", "pipeline", "kernel (B)"))
        for row, pair in self.comparison.matched.iterrows():
            table.add_row(
                *self._cells(
                    METHOD_WORDS[pair["method"]],
                    time_text(pair["time_s_a"]),
                    time_text(pair["time_s_b"]),
                    change(pair["time_ratio"]),
                    both(pipeline_text(pair["pipeline_a"]), pipeline_text(pair["pipeline_b"])),
                    self._names.get(pair["name_b"], ""),
                ),
                key=str(row),
            )

    def _fill_operations(self) -> None:
        table = self.query_one("#operations", DataTable)
        table.add_columns(*self._cells("phase", "n", "time A", "time B", "Δt", "pipeline", "operation"))
        for row, op in self.comparison.operations.iterrows():
            table.add_row(
                *self._cells(
                    op["phase"],
                    both(count_text(op["count_a"]), count_text(op["count_b"])),
                    time_text(op["time_s_a"]),
                    time_text(op["time_s_b"]),
                    change(op["time_ratio"]),
                    both(pipeline_text(op["pipeline_a"]), pipeline_text(op["pipeline_b"])),
                    op["operation"],
                ),
                key=str(row),
            )

    def _fill_one_side(self, side: str) -> None:
        frame = self.comparison.only_a if side == "a" else self.comparison.only_b
        table = self.query_one(f"#only-{side}", DataTable)
        table.add_columns("n", "time", "pipeline", "phase", "kernel")
        for row, kernel in frame.iterrows():
            table.add_row(
                *self._cells(
                    count_text(kernel[f"count_{side}"]),
                    time_text(kernel[f"time_s_{side}"]),
                    pipeline_text(kernel[f"pipeline_{side}"]),
                    kernel[f"phase_{side}"],
                    self._names.get(kernel[f"name_{side}"], ""),
                ),
                key=str(row),
            )

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        if event.data_table.id != self.view:
            return  # every table highlights its first row when filled
        row = int(event.row_key.value)
        self._select(row)
        self._show_detail(self.view, row)

    def _select(self, row: int) -> None:
        """Gold arrows: the highlighted pair, or every pair of the highlighted operation."""
        if self.view == "matched":
            rows = {row}
        elif self.view == "operations":
            op = self.comparison.operations.loc[row]
            matched = self.comparison.matched
            mine = ((matched["operation_a"] == op["operation"]) & (matched["phase_a"] == op["phase"])) | (
                (matched["operation_b"] == op["operation"]) & (matched["phase_b"] == op["phase"])
            )
            rows = set(matched.index[mine])
        else:
            rows = set()
        canvas = self.query_one(CompareCanvas)
        if canvas.selected_rows != rows:
            canvas.selected_rows = frozenset(rows)
            canvas.rebuild()

    def _show_detail(self, view: str, row: int) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        if view == "operations":
            op = self.comparison.operations.loc[row]
            text.append(printable(f"{op['phase']} · {op['operation']}: "), style="bold")
            text.append(
                f"{count_text(op['kernels_a']) or 0} kernels in A, {count_text(op['kernels_b']) or 0} in B"
            )
        elif view in ("matched", "only-a", "only-b"):
            kernel = self.comparison.kernels.loc[row]
            if view == "matched":
                text.append(f"{_how(kernel)}\n", style="bold")
            for side in ("a", "b"):
                if isinstance(kernel[f"name_{side}"], str):
                    text.append(f"{side.upper()} ", style="bold")
                    text.append(printable(kernel[f"name_{side}"]) + "\n")
        self.query_one("#compare-detail", Static).update(self._text(text))

    # -- keys ----------------------------------------------------------------------------------

    def action_view(self, view: str) -> None:
        self.view = view
        self.query_one(ContentSwitcher).current = view
        widget = self.query_one(f"#{view}")
        (widget if isinstance(widget, DataTable) else widget).focus()
        key = None
        if isinstance(widget, DataTable) and widget.row_count:
            key = widget.coordinate_to_cell_key(widget.cursor_coordinate).row_key.value
        if key is not None:
            row = int(key)
            self._select(row)
            self._show_detail(view, row)
        else:
            self._select(-1)
            self.query_one("#compare-detail", Static).update("")
        self._show_views()

    def action_next_level(self) -> None:
        canvas = self.query_one(CompareCanvas)
        canvas.level = LEVELS[(LEVELS.index(canvas.level) + 1) % len(LEVELS)]
        canvas.rebuild()

    def action_arrows(self, step: int) -> None:
        """Five arrows more or fewer; one by one below five."""
        canvas = self.query_one(CompareCanvas)
        size = 5 if canvas.count + step >= 5 else 1
        canvas.count = min(max(1, canvas.count + step * size), len(self.comparison.matched))
        canvas.rebuild()

    def action_zoom(self) -> None:
        """The chart alone, or back to list and chart."""
        self.toggle_class("zoomed")

    def action_close(self) -> None:
        if self.has_class("zoomed"):
            self.remove_class("zoomed")
        else:
            go_back(self)

    # -- text ----------------------------------------------------------------------------------

    def _summary(self) -> Text:
        c = self.comparison
        total_a, total_b = c.total_time("a"), c.total_time("b")
        return Text.assemble(
            ("A ", "bold"),
            f"{printable(c.label_a)} {seconds(total_a, missing=MISSING)} → ",
            ("B ", "bold"),
            f"{printable(c.label_b)} {seconds(total_b, missing=MISSING)} ",
            (f"({change(total_b / total_a if total_a else None)})", "bold"),
            f" · {len(c.matched)} matched · {len(c.only_a)} only A · {len(c.only_b)} only B",
        )

    def _show_views(self) -> None:
        names = {
            "matched": f"matched {len(self.comparison.matched)}",
            "operations": "operations",
            "only-a": f"only A {len(self.comparison.only_a)}",
            "only-b": f"only B {len(self.comparison.only_b)}",
            "totals": "totals",
        }
        text = Text()
        for view, key in VIEWS.items():
            style = "bold reverse" if view == self.view else "dim"
            text.append(f" {key} {names[view]} ", style=style)
            text.append(" ")
        self.query_one("#compare-views", Static).update(self._text(text))

    @on(CompareCanvas.Drawn)
    def _show_legend(self) -> None:
        canvas = self.query_one(CompareCanvas)
        overlay = canvas.overlay
        style = "ascii" if self.ascii_mode else "unicode"
        text = Text()
        text.append(f"{A_MARKER[style]} A {printable(self.comparison.label_a)}  ", style=rgb(A_COLOUR))
        text.append(
            f"{B_MARKER[style]} B {printable(self.comparison.label_b)}  ",
            style=rgb(LEVEL_COLOURS[canvas.level]),
        )
        shown = overlay.heavy if overlay else 0
        text.append(f"{shown} heaviest matched at {LEVEL_LABELS[canvas.level]}", style="dim")
        if canvas.selected_rows:
            text.append(
                f"  {canvas.markers['selected']} {len(canvas.selected_rows)} selected",
                style=rgb(SELECTED_COLOUR),
            )
        if overlay:
            roofs = [roof for roof in overlay.figure.roofs if roof.kind == "bandwidth"]
            roofs += sorted(
                (roof for roof in overlay.figure.roofs if roof.kind == "compute"),
                key=lambda roof: -roof.ys[0],
            )
            text.append("\n" + " · ".join(_short_roof(roof.label) for roof in roofs), style="dim")
        self.query_one("#compare-legend", Static).update(self._text(text))

    def _totals(self) -> RenderableType:
        tables = Group(
            phase_totals(self.comparison),
            Text(),
            pipeline_totals(self.comparison),
            Text(),
            zero_ai_totals(self.comparison),
        )
        if not self.ascii_mode:
            return tables
        console = Console(width=120, file=io.StringIO(), color_system=None)
        with console.capture() as capture:
            console.print(tables)
        return Text(ascii_safe(capture.get()))

    def _cells(self, *cells: str) -> list[Text]:
        # Text, not str: a DataTable reads a str cell as markup, and names come from files.
        return [literal(cell, self.ascii_mode) for cell in cells]

    def _text(self, text: Text) -> Text:
        return Text(ascii_safe(text.plain)) if self.ascii_mode else text


def _short_roof(label: str) -> str:
    """ "Tensor FP16 989 TFLOP/s (spec)" -> "Tensor FP16 989T (spec)": the legend has one line."""
    return label.replace("FLOP/s", "").replace(" T ", "T ").replace(" P ", "P ").replace(" G ", "G ")


def _how(pair: pd.Series) -> str:
    if pair["method"] == "exact":
        what = "same kernel name"
    elif pair["method"] == "parameters":
        what = "same name but its parameters"
    elif pair["method"] == "similar":
        what = f"similar name ({pair['key']})"
    else:
        what = f"same operation ({pair['key']})"
    rank = ""
    if pair.get("how") == "aligned":
        rank = f", {int(pair['aligned'])} launches aligned"
    elif pair["candidates_a"] > 1 or pair["candidates_b"] > 1:
        rank = (
            f", #{int(pair['rank'])} by time of {int(pair['candidates_a'])} in A and "
            f"{int(pair['candidates_b'])} in B"
        )
    rate_a, rate_b = (si(pair[f"flop_rate_{side}"], "FLOP/s", missing=MISSING) for side in "ab")
    return f"{what}{rank} · {rate_a} → {rate_b}"


class CompareApp(RooftuiBaseApp):
    """``rooftui diff A B --tui``: the compare screen on its own."""

    TITLE = "rooftui diff"
    HELP_INTRO = (
        "rooftui diff — run A against run B on one roofline: each matched kernel is an "
        "arrow from its A point (hollow) to its B point (filled); the selected "
        "pair's B point is ◆ (@ in ASCII)."
    )

    def __init__(self, comparison: Comparison, *, ascii_mode: bool = False) -> None:
        super().__init__(ascii_mode=ascii_mode)
        self.comparison = comparison

    def on_mount(self) -> None:
        self.push_screen(CompareScreen.of(self.comparison, ascii_mode=self.ascii_mode))
