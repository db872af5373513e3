"""The compare screen: two runs on one roofline, each matched kernel an arrow from A to B.

A thin adapter: ``CompareModel`` (``compare_model.py``, no Textual) owns the state and
says what each part shows; this screen binds keys to the model's methods and puts what
they return into the widgets. ``CompareScreen(run_a, run_b)`` is self-contained: any app
can push it (the explorer's ``--compare``), and ``CompareApp`` wraps it for ``rooftui diff
A B --tui``. The matching and every number come from
:func:`rooftui.analysis.compare.compare_runs`.

Keys: ``m`` matched, ``o`` by operation, ``a`` only in A, ``b`` only in B,
``t`` totals; ``enter`` a pair's numbers on both sides; ``l`` next memory level;
``+``/``-`` more/fewer arrows; ``z`` the chart alone (the arrows still move the
selection); ``escape`` goes back (out of the zoom, then the screen); ``?`` lists the keys.
"""

from __future__ import annotations

import io

from rich.console import Console, Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import ContentSwitcher, DataTable, Static

from rooftui.analysis import Run
from rooftui.analysis.compare import Comparison, compare_runs
from rooftui.views.compare import phase_totals, pipeline_totals, zero_ai_totals
from rooftui.views.tui.base_app import RooftuiBaseApp, go_back
from rooftui.views.tui.compare_model import LISTS, CompareModel
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.widgets.compare_chart import CompareCanvas
from rooftui.views.tui.widgets.footer import KeysFooter

WIDE = 140  # from this many columns, the lists and the chart sit side by side


class CompareList(DataTable[Text]):
    """A list of the compare screen: a DataTable whose Enter the footer names."""

    BINDINGS = [Binding("enter", "select_cursor", "both sides", tooltip="the pair's numbers in A and B")]


class CompareScreen(Screen[None]):
    """Run A against run B: matched kernels, operations, one-sided kernels, totals, overlay."""

    CSS_PATH = "compare.tcss"
    # The footer keeps what the views line does not show, and `? help` at 80 columns.
    BINDINGS = [
        Binding("m", "view('matched')", "matched", show=False),
        Binding("o", "view('operations')", "operations", show=False),
        Binding("a", "view('only-a')", "only A", show=False),
        Binding("b", "view('only-b')", "only B", show=False),
        Binding("t", "view('totals')", "totals", show=False),
        Binding("enter", "open_pair", "both sides", tooltip="the selected pair's numbers in A and B"),
        Binding("up", "move(-1)", "previous row", show=False),
        Binding("down", "move(1)", "next row", show=False),
        Binding("l", "next_level", "level", tooltip="the arrows at the next memory level"),
        Binding("z", "zoom", "zoom chart", tooltip="zoom chart: the chart alone, or back"),
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
        self.model = CompareModel(self.comparison, ascii_mode=ascii_mode)
        self._list_width = 0  # the width the lists were last filled for

    @classmethod
    def of(cls, comparison: Comparison, *, ascii_mode: bool = False) -> CompareScreen:
        """The screen for a comparison already made (``rooftui diff --tui``)."""
        return cls(comparison.run_a, comparison.run_b, comparison=comparison, ascii_mode=ascii_mode)

    def compose(self) -> ComposeResult:
        yield Static(id="compare-summary")
        yield Static(id="compare-views")
        with Horizontal(id="compare-body"):
            with ContentSwitcher(initial="matched", id="compare-lists"):
                for view in LISTS:
                    yield CompareList(id=view, cursor_type="row", zebra_stripes=True)
                with VerticalScroll(id="totals"):
                    yield Static(self._totals(), id="totals-tables")
            with Vertical(id="compare-chart"):
                yield CompareCanvas(self.model, id="compare-canvas")
                yield Static(id="compare-legend")
        yield Static(id="compare-detail")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#matched", DataTable).focus()
        self._show_views()

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE, "wide")
        self.query_one("#compare-summary", Static).update(self.model.summary_line(self.size.width - 2))
        self.call_after_refresh(self._fill_lists)
        self.call_after_refresh(self._redraw)

    # -- lists --------------------------------------------------------------------------------

    def _fill_lists(self) -> None:
        """Fill each list for its width: the names fitted to what the numbers leave."""
        width = self.query_one("#compare-lists").size.width
        if width == self._list_width or not width:
            return  # the same width, or hidden behind the zoomed chart: filled when shown
        self._list_width = width
        for view in LISTS:
            table = self.query_one(f"#{view}", DataTable)
            table.clear(columns=True)
            for title, cell_width in zip(self.model.titles(view), self.model.column_widths(view, width)):
                table.add_column(title, width=cell_width)
            for label, cells in self.model.rows(view, width):
                # Text, not str: a DataTable reads a str cell as markup, and names come from files.
                table.add_row(*(Text(cell) for cell in cells), key=str(label))
            if table.row_count:
                table.move_cursor(row=self.model.cursors[view])
        self._show_selection()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != self.model.view:
            return  # every list highlights its row when filled
        self.model.select(event.cursor_row)
        self._show_selection()

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == self.model.view:
            self.action_open_pair()

    def _show_selection(self) -> None:
        self._redraw()
        self.query_one("#compare-detail", Static).update(self.model.detail_line())

    def _redraw(self) -> None:
        """Give the legend the rows the model chooses for the chart's pane, and draw."""
        pane = self.query_one("#compare-chart").size
        canvas = self.query_one(CompareCanvas)
        if not pane.area:
            return
        rows = self.model.legend_rows(pane.width, pane.height)
        legend = self.query_one("#compare-legend", Static)
        if legend.styles.height is None or legend.styles.height.value != rows:
            legend.styles.height = rows  # the canvas is resized, and draws again
        if canvas.size.area:
            canvas.rebuild()

    # -- keys ----------------------------------------------------------------------------------

    def action_view(self, view: str) -> None:
        self.model.show_view(view)
        self.query_one(ContentSwitcher).current = view
        self._focus_list()
        self._show_views()
        self._show_selection()

    def action_move(self, step: int) -> None:
        """Up/down while the chart is alone on the screen: the selection moves, the chart follows."""
        view = self.model.view
        if view not in LISTS:
            return
        self.model.select(self.model.cursors[view] + step)
        table = self.query_one(f"#{view}", DataTable)
        if table.row_count:
            table.move_cursor(row=self.model.cursors[view])
        self._show_selection()

    def action_open_pair(self) -> None:
        text = self.model.pair_detail()
        if text is None:
            self.notify("enter shows a kernel's numbers: on the matched or one-sided lists")
            return
        self.app.push_screen(PairScreen(text))

    def action_next_level(self) -> None:
        self.model.next_level()
        self._redraw()

    def action_arrows(self, step: int) -> None:
        self.model.change_arrows(step)
        self._redraw()

    def action_zoom(self) -> None:
        """The chart alone, or back to list and chart; the list keeps the focus."""
        self.model.toggle_zoom()
        self._show_zoom()

    def action_close(self) -> None:
        if self.model.escape():
            self._show_zoom()
        else:
            go_back(self)

    def _show_zoom(self) -> None:
        self.set_class(self.model.zoomed, "zoomed")
        if self.model.zoomed:
            self.query_one(CompareCanvas).focus()  # the list is hidden: keys stay on the screen
        else:
            self._focus_list()
            self.call_after_refresh(self._fill_lists)  # the terminal may have changed size meanwhile
        self.call_after_refresh(self._redraw)

    def _focus_list(self) -> None:
        view = self.model.view
        self.query_one(f"#{view}").focus()

    # -- text ----------------------------------------------------------------------------------

    def _show_views(self) -> None:
        self.query_one("#compare-views", Static).update(self.model.views_line())

    @on(CompareCanvas.Drawn)
    def _show_legend(self) -> None:
        width = self.query_one("#compare-chart").size.width
        self.query_one("#compare-legend", Static).update(self.model.legend(width))

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


class PairScreen(Screen[None]):
    """Enter on a pair: its numbers in A and in B, what changed, both names whole."""

    DEFAULT_CSS = "#pair { padding: 0 1; }"
    BINDINGS = [Binding("escape", "close", "back")]
    HELP_WHERE = "compare pair"

    def __init__(self, text: Text) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="pair"):
            yield Static(self.text, id="pair-text")
        yield KeysFooter()

    def action_close(self) -> None:
        self.dismiss()


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
        super().on_mount()
        self.push_screen(CompareScreen.of(self.comparison, ascii_mode=self.ascii_mode))
