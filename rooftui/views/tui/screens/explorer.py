"""The main screen: filter bar, roofline, kernel table, detail pane, status line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, ProgressBar, Static

from rooftui.analysis.filters import KernelFilter
from rooftui.model.columns import LEVEL_LABELS, LEVELS
from rooftui.views.tui.format import ascii_safe, duration, percent
from rooftui.views.tui.view_state import LoadedRun, ViewState
from rooftui.views.tui.widgets.detail import DetailPane
from rooftui.views.tui.widgets.filter_bar import FilterBar
from rooftui.views.tui.widgets.kernel_table import COLUMNS, KernelTable
from rooftui.views.tui.widgets.roofline import RooflineCanvas, RooflinePane

# Above this many rows, moving the cursor redraws the roofline after a short
# pause instead of on every key, so holding an arrow key stays smooth.
DEBOUNCE_ROWS = 5000
DEBOUNCE_S = 0.06
# Below this many terminal rows the filter bar starts hidden (`/` or `f` shows it).
TALL_ENOUGH_FOR_FILTER_BAR = 30


class ExplorerScreen(Screen):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    # The footer shows the keys a first-time user needs; `?` lists them all.
    BINDINGS = [
        Binding(
            "slash",
            "focus_filter",
            "filter",
            key_display="/",
            tooltip="type a kernel name filter (tab to the other filters)",
        ),
        Binding("f", "toggle_filters", "show/hide filter bar", show=False),
        Binding("x", "clear_filters", "clear filters", show=False),
        Binding(
            "g",
            "toggle_grouped",
            "group",
            tooltip="switch between kernels grouped by name and single invocations",
        ),
        Binding("1", "toggle_level('l1')", "L1 points and slope on/off", show=False),
        Binding("2", "toggle_level('l2')", "L2 points and slope on/off", show=False),
        Binding("3", "toggle_level('hbm')", "HBM points and slope on/off", show=False),
        Binding("p", "pipelines", "choose compute roofs", show=False),
        Binding("d", "toggle_detail", "detail", tooltip="show/hide the selected kernel's details"),
        Binding("z", "zoom_roofline", "zoom the roofline / back", show=False),
        Binding("s", "summary", "summary", tooltip="zero-AI share, time per phase and pipeline"),
        Binding("t", "timeline", "timeline", tooltip="timeline of the --trace profile"),
        Binding("e", "export_svg", "svg", tooltip="save this view as SVG"),
        Binding("c", "export_csv", "csv", tooltip="save the filtered table as CSV"),
        Binding("escape", "focus_table", "back to the table", show=False),
    ]

    def __init__(self, *, ascii_mode: bool = False) -> None:
        super().__init__()
        self.ascii_mode = ascii_mode
        self.state: ViewState | None = None
        self.positions: np.ndarray | None = None  # filtered, sorted rows of state.all_rows
        self.selected: pd.Series | None = None
        self._redraw_timer: Timer | None = None
        self._drawn_inputs: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static("rooftui — loading…", id="status")
        yield FilterBar(ascii_mode=self.ascii_mode, id="filters")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield RooflinePane(ascii_mode=self.ascii_mode, id="roofline")
                yield KernelTable(ascii_mode=self.ascii_mode, id="table")
            yield DetailPane(ascii_mode=self.ascii_mode, id="detail")
        with Vertical(id="loading"):
            yield Static("Loading reports…", id="loading-text")
            yield ProgressBar(id="loading-progress", show_eta=False)
        yield Footer()

    def on_mount(self) -> None:
        if self.ascii_mode:
            self.add_class("-ascii")
        # Short terminals (80x24) give the bar's rows to the plot; `/` or `f` shows it.
        if self.app.size.height < TALL_ENOUGH_FOR_FILTER_BAR:
            self.query_one(FilterBar).display = False
        self.query_one(KernelTable).focus()

    # --- loading (called by the app's message handlers) ---------------------------

    def show_progress(self, done: int, total: int, what: str = "") -> None:
        self.query_one("#loading-progress", ProgressBar).update(total=total, progress=done)
        self.query_one("#loading-text", Static).update(f"Loading reports… {what}".rstrip())

    def show_error(self, error: str) -> None:
        # Shown while the app exits; the CLI then prints the error as one line.
        self.query_one("#loading-text", Static).update(f"Could not load: {error}")
        self.query_one("#loading-progress").display = False
        self.query_one("#status", Static).update("rooftui — load failed")

    def show_run(self, run: LoadedRun) -> None:
        self.state = ViewState(run)
        self.query_one("#loading").display = False
        self.query_one(FilterBar).set_choices(*self.state.choices())
        self.refresh_rows()

    @property
    def rows(self) -> pd.DataFrame | None:
        """The filtered rows in table order, every column (for export)."""
        if self.state is None or self.positions is None:
            return None
        return self.state.rows(self.positions)

    def configure(
        self,
        *,
        spec: KernelFilter,
        grouped: bool,
        sort_column: str,
        sort_descending: bool,
    ) -> None:
        """Set the whole view at once (``rooftui plot``); the filter bar shows ``spec``."""
        self.state.grouped = grouped
        self.state.sort_column, self.state.sort_descending = sort_column, sort_descending
        self.selected = None
        self.query_one(FilterBar).set_spec(spec)  # posts Changed, which refreshes the rows

    def flush_redraw(self) -> None:
        """Draw a debounced roofline update now (before a screenshot)."""
        if self._redraw_timer is not None:
            self._redraw_timer.stop()
            self._redraw_timer = None
            self.redraw_roofline()

    # --- the view ----------------------------------------------------------------------

    def refresh_rows(self) -> None:
        """Re-filter and re-sort, keeping the selected kernel if it is still shown."""
        if self.state is None:
            return
        self.positions = self.state.positions()
        keep = None if self.selected is None else self.selected.name
        self.query_one(KernelTable).show_rows(
            self.state.all_rows,
            self.positions,
            self.state.sort_column,
            self.state.sort_descending,
            keep=keep,
        )
        self.update_status()

    def update_status(self) -> None:
        state = self.state
        total = state.totals(self.positions)
        run_time = float(state.run.invocations["time_s"].sum())
        share = total.time_s / run_time if run_time else 0.0
        zero_share = total.zero_ai_time_s / total.time_s if total.time_s else 0.0
        sorted_by = next(c.label for c in COLUMNS if c.key == state.sort_column)
        arrow = (
            ("v" if state.sort_descending else "^")
            if self.ascii_mode
            else ("▼" if state.sort_descending else "▲")
        )
        shown = (
            f"{total.rows:,} kernels, {total.invocations:,} launches"
            if state.grouped
            else f"{total.rows:,} invocations"
        )
        text = (
            f"{shown} · {duration(total.time_s)} "
            f"({percent(share)}) · 0-AI: {total.zero_ai_invocations:,} ({percent(zero_share)} time)"
            f" · by {sorted_by}{arrow}"
        )
        if not state.spec.is_empty:
            text += " · filtered"
        self.query_one("#status", Static).update(ascii_safe(text) if self.ascii_mode else text)

    def _roofline_inputs(self) -> tuple:
        """What the roofline depends on; the order of the rows is not part of it."""
        state = self.state
        selected = None if self.selected is None else self.selected.name
        return (state.grouped, state.spec, tuple(state.levels), frozenset(state.hidden_pipelines), selected)

    def redraw_roofline(self) -> None:
        self._redraw_timer = None
        if self.state is None or self.positions is None:
            return
        self._drawn_inputs = self._roofline_inputs()
        self.query_one(RooflinePane).show(
            self.state.plot_rows(self.positions),
            self.state.run.ceilings,
            grouped=self.state.grouped,
            levels=list(self.state.levels),
            pipelines=self.state.shown_pipelines(),
            selected=self.selected,
        )

    @on(KernelTable.RowHighlighted)
    def _row_highlighted(self, message: KernelTable.RowHighlighted) -> None:
        self.selected = message.row
        detail = self.query_one(DetailPane)
        if detail.display:
            self._show_details(message.row)
        if self._redraw_timer is not None:
            self._redraw_timer.stop()
            self._redraw_timer = None
        if self.state is None or self._roofline_inputs() == self._drawn_inputs:
            return  # e.g. a sort: same kernels, same selection, same picture
        if self.positions is not None and len(self.positions) > DEBOUNCE_ROWS:
            self._redraw_timer = self.set_timer(DEBOUNCE_S, self.redraw_roofline)
        else:
            self.redraw_roofline()

    @on(KernelTable.RowChosen)
    def _row_chosen(self, message: KernelTable.RowChosen) -> None:
        self.show_detail(True)

    @on(KernelTable.SortRequested)
    def _sort(self, message: KernelTable.SortRequested) -> None:
        if self.state is None:
            return
        self.state.sort_column, self.state.sort_descending = message.column, message.descending
        self.refresh_rows()

    @on(FilterBar.Changed)
    def _filter(self, message: FilterBar.Changed) -> None:
        if self.state is None:
            return
        self.state.spec = message.spec
        self.refresh_rows()

    # --- actions -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # The timeline needs a trace (`--trace`); without one the key is hidden.
        if action == "timeline":
            return getattr(self.app, "trace_path", None) is not None
        return True

    def action_timeline(self) -> None:
        self.app.open_timeline()

    def action_focus_filter(self) -> None:
        self.query_one(FilterBar).display = True
        self.query_one(FilterBar).focus_name()

    def action_focus_table(self) -> None:
        if self.has_class("-narrow") and self.query_one(DetailPane).display:
            self.show_detail(False)  # on a narrow screen the details cover the table
        self.query_one(KernelTable).focus()

    def action_toggle_filters(self) -> None:
        bar = self.query_one(FilterBar)
        bar.display = not bar.display

    def action_clear_filters(self) -> None:
        self.query_one(FilterBar).clear()

    def action_toggle_grouped(self) -> None:
        if self.state is None:
            return
        self.state.grouped = not self.state.grouped
        self.selected = None
        self.refresh_rows()

    def action_toggle_level(self, level: str) -> None:
        if self.state is None:
            return
        self.state.toggle_level(level)
        shown = ", ".join(LEVEL_LABELS[lv] for lv in LEVELS if lv in self.state.levels) or "none"
        self.notify(f"memory levels on the roofline: {shown}", timeout=2)
        self.redraw_roofline()

    def action_pipelines(self) -> None:
        from rooftui.views.tui.screens.pipelines import PipelinesScreen

        if self.state is None:
            return

        def apply(hidden: set[str] | None) -> None:
            if hidden is not None:
                self.state.hidden_pipelines = hidden
                self.redraw_roofline()

        self.app.push_screen(
            PipelinesScreen(self.state.present_pipelines(), self.state.hidden_pipelines), apply
        )

    def action_toggle_detail(self) -> None:
        self.show_detail(not self.query_one(DetailPane).display)

    def _show_details(self, row: pd.Series | None) -> None:
        if self.state is None or row is None:
            self.query_one(DetailPane).show(None, None)
            return
        metrics = self.state.run.launch_metrics(row)
        self.query_one(DetailPane).show(row, self.state.run.ceilings, metrics)

    def show_detail(self, visible: bool) -> None:
        """Open or close the detail pane; below 120 columns it covers the table."""
        detail = self.query_one(DetailPane)
        detail.display = visible
        self.set_class(visible, "-detail-open")
        if visible:
            self._show_details(self.selected)
            if self.has_class("-narrow"):
                detail.focus()
        elif self.has_class("-narrow"):
            self.query_one(KernelTable).focus()

    def action_zoom_roofline(self) -> None:
        if self.maximized is not None:
            self.minimize()
            self.query_one(KernelTable).focus()
        else:
            self.maximize(self.query_one(RooflinePane), container=False)
            # The table is hidden now; keep keys on this screen, not in a filter field.
            self.query_one(RooflineCanvas).focus()

    def action_summary(self) -> None:
        from rooftui.views.tui.screens.summary import SummaryScreen

        if self.state is not None:
            self.app.push_screen(SummaryScreen(self.state, ascii_mode=self.ascii_mode))

    def action_export_svg(self) -> None:
        from rooftui.views.tui.screens.export import ExportScreen

        def save(path: Path | None) -> None:
            if path is not None:
                self.app.call_after_refresh(self._save_svg, path)

        self.app.push_screen(ExportScreen("SVG of this view", Path("rooftui-view.svg")), save)

    def _save_svg(self, path: Path) -> None:
        self.flush_redraw()
        self.app.call_after_refresh(self._write_svg, path)

    def _write_svg(self, path: Path) -> None:
        self.app.save_screenshot(filename=path.name, path=str(path.parent.resolve()))
        self.notify(f"saved {path}")

    def action_export_csv(self) -> None:
        from rooftui.views.tui.screens.export import ExportScreen

        def save(path: Path | None) -> None:
            if path is not None and self.rows is not None:
                rows = self.rows
                export_csv(rows, path)
                self.notify(f"saved {len(rows):,} rows to {path}")

        self.app.push_screen(ExportScreen("CSV of the filtered table", Path("rooftui-kernels.csv")), save)


def export_csv(rows: pd.DataFrame, path: Path) -> None:
    """The filtered, sorted rows with every column, in base units."""
    rows.to_csv(path, index=False)
