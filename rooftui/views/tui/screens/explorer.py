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
from textual.widgets import Footer, Input, ProgressBar, Static

from rooftui.analysis.filters import KernelFilter
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS
from rooftui.views.summary import to_csv
from rooftui.views.text import printable
from rooftui.views.tui.format import duration, fit_items, fit_parts, literal, percent
from rooftui.views.tui.roofline_model import ceilings_per_device
from rooftui.views.tui.screens.help import HelpRow, binding_rows
from rooftui.views.tui.table_columns import ranks_of
from rooftui.views.tui.view_state import LoadedRun, ViewState, what_is_open
from rooftui.views.tui.widgets.detail import DetailPane
from rooftui.views.tui.widgets.filter_bar import FilterBar
from rooftui.views.tui.widgets.kernel_table import KernelTable
from rooftui.views.tui.widgets.roofline import RooflineCanvas, RooflinePane, Said, in_few_words

# Above this many rows, moving the cursor redraws the roofline after a short
# pause instead of on every key, so holding an arrow key stays smooth.
DEBOUNCE_ROWS = 5000
DEBOUNCE_S = 0.06
# Below this many terminal rows the filter bar starts hidden (`/` or `f` shows it).
TALL_ENOUGH_FOR_FILTER_BAR = 30


class ExplorerScreen(Screen):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (TALL_ENOUGH_FOR_FILTER_BAR, "-tall")]
    # The footer shows the keys a first-time user needs; `?` lists them all.
    BINDINGS = [
        Binding(
            "slash",
            "search",
            "find",
            key_display="/",
            tooltip="find a kernel by name, as in less: jumps to it, hides nothing",
        ),
        Binding("n", "search_next(1)", "next match of the find", show=False),
        Binding("N", "search_next(-1)", "previous match of the find", show=False),
        Binding(
            "f",
            "focus_filter",
            "filter",
            tooltip="filter the table by name (tab to the other filters)",
        ),
        Binding("F", "toggle_filters", "show/hide filter bar", show=False),
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
        Binding("a", "advise", "advise", show=False, tooltip="the step budget and what to fix first"),
        Binding("t", "timeline", "timeline", tooltip="timeline of the --trace profile"),
        Binding(
            "y", "copy_name", "copy name", show=False, tooltip="copy the selected kernel's full name (OSC 52)"
        ),
        Binding("e", "export_svg", "svg", tooltip="save this view as SVG"),
        Binding("c", "export_csv", "csv", tooltip="save the filtered table as CSV"),
        Binding("escape", "focus_table", "back to the table (a find: back where it started)", show=False),
        # The roofline's own keys, from anywhere on the screen (widgets/roofline.py).
        Binding("full_stop", "roofline('step_point(1)')", "next point on the roofline (left to right)",
                show=False, key_display="."),
        Binding("comma", "roofline('step_point(-1)')", "previous point on the roofline",
                show=False, key_display=","),
        Binding("v", "roofline('next_device')", "next GPU's roofline (several GPUs)", show=False),
    ]

    def __init__(self, *, ascii_mode: bool = False) -> None:
        super().__init__()
        self.ascii_mode = ascii_mode
        self.state: ViewState | None = None
        self.positions: np.ndarray | None = None  # filtered, sorted rows of state.all_rows
        self.selected: pd.Series | None = None
        self._redraw_timer: Timer | None = None
        self.search_text = ""  # what `/` looks for; `n` and `N` look again
        self._search_from = 0
        self._drawn_inputs: tuple | None = None
        self.legend_hidden: list[Said] = []  # what the roofline's legend could not show

    def compose(self) -> ComposeResult:
        yield Static("rooftui", id="opened")
        yield Static("loading…", id="status")
        yield FilterBar(ascii_mode=self.ascii_mode, id="filters")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield RooflinePane(ascii_mode=self.ascii_mode, id="roofline")
                yield KernelTable(ascii_mode=self.ascii_mode, id="table")
                yield Static(id="selected-name")
            yield DetailPane(ascii_mode=self.ascii_mode, id="detail")
        yield Input(placeholder="find a kernel: enter jumps, n/N next/previous, esc cancels", id="search")
        with Vertical(id="loading"):
            yield Static("Loading reports…", id="loading-text")
            yield ProgressBar(id="loading-progress", show_eta=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search", Input).display = False
        if self.ascii_mode:
            self.add_class("-ascii")
        # Short terminals (80x24) give the bar's rows to the plot; `/` or `f` shows it.
        if self.app.size.height < TALL_ENOUGH_FOR_FILTER_BAR:
            self.query_one(FilterBar).display = False
        self.query_one(KernelTable).focus()

    # --- loading (called by the app's message handlers) ---------------------------

    def show_progress(self, done: int, total: int, what: str = "") -> None:
        self.query_one("#loading-progress", ProgressBar).update(total=total, progress=done)
        # ``what`` names a file: printable, never markup (literal)
        self.query_one("#loading-text", Static).update(
            literal(f"Loading reports… {what}".rstrip(), self.ascii_mode))

    def show_error(self, error: str) -> None:
        # Shown while the app exits; the CLI then prints the error as one line.
        self.query_one("#loading-text", Static).update(literal(f"Could not load: {error}", self.ascii_mode))
        self.query_one("#loading-progress").display = False
        self.query_one("#status", Static).update("rooftui — load failed")

    def show_run(self, run: LoadedRun) -> None:
        self.state = ViewState(run)
        self.update_opened()
        self.query_one("#loading").display = False
        self.query_one(FilterBar).set_choices(*self.state.choices())
        self.query_one(FilterBar).set_ranks(ranks_of(self.state.run.invocations))
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
        """Counts, time, zero-AI share, sort and filter state. When the line is too
        narrow, the sort and the filter state stay and the totals go first."""
        state = self.state
        if state is None or self.positions is None:
            return
        total = state.totals(self.positions)
        run_time = float(state.run.invocations["time_s"].sum())
        share = total.time_s / run_time if run_time else 0.0
        zero_share = total.zero_ai_time_s / total.time_s if total.time_s else 0.0
        columns = self.query_one(KernelTable).columns
        sorted_by = next((c.label for c in columns if c.key == state.sort_column), state.sort_column)
        arrow = "▼" if state.sort_descending else "▲"
        shown = (
            f"{total.rows:,} kernels, {total.invocations:,} launches"
            if state.grouped
            else f"{total.rows:,} invocations"
        )
        parts = [
            (0, shown),
            (2, f"{duration(total.time_s)} ({percent(share)})"),
            (3, f"0-AI: {total.zero_ai_invocations:,} ({percent(zero_share)} time)"),
            (0, f"by {sorted_by}{arrow}"),
        ]
        if state.spec.rank is not None:
            parts.append((0, f"rank {state.spec.rank} only"))
        if not state.spec.is_empty:
            parts.append((0, "filtered"))
        status = self.query_one("#status", Static)
        width = self.app.size.width - status.styles.gutter.width
        separator = " | " if self.ascii_mode else " · "
        if self.legend_hidden:
            # What the roofline's legend had no room for, in the room the rest leaves.
            room = width - len(separator.join(text for rank, text in parts if rank == 0) + separator)
            parts.append((1, fit_items("legend full: ", in_few_words(self.legend_hidden), room)))
        text = fit_parts(parts, width, separator)
        status.update(literal(text, self.ascii_mode))

    def update_opened(self) -> None:
        """The header: reports, GPUs, ceilings, bundled sample."""
        if self.state is None:
            return
        header = self.query_one("#opened", Static)
        line = what_is_open(
            self.state.run,
            getattr(getattr(self.app, "load_options", None), "ceilings", None),
            getattr(self.app, "is_sample", False),
            self.app.size.width - header.styles.gutter.width,
        )
        header.update(literal(line, self.ascii_mode))

    def show_selected_name(self, row: pd.Series | None) -> None:
        """The selected kernel's full name under the table (it wraps; ``d`` shows the rest)."""
        name = "" if row is None else row["name"]
        self.query_one("#selected-name", Static).update(literal(name, self.ascii_mode))

    def on_resize(self) -> None:
        self.update_opened()
        self.update_status()

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
            ceilings_by_device=ceilings_per_device(self.state.run.source),
            grouped=self.state.grouped,
            content=self._drawn_inputs[:-1],  # all but the selection
            levels=list(self.state.levels),
            pipelines=self.state.shown_pipelines(),
            selected=self.selected,
        )

    @on(KernelTable.RowHighlighted)
    def _row_highlighted(self, message: KernelTable.RowHighlighted) -> None:
        self.selected = message.row
        self.show_selected_name(message.row)
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

    @on(RooflineCanvas.PointChosen)
    def _point_chosen(self, message: RooflineCanvas.PointChosen) -> None:
        table = self.query_one(KernelTable)
        rows = np.flatnonzero(table.positions == message.kernel)  # plot rows are labelled by position
        if len(rows):
            table.cursor_row = int(rows[0])

    @on(RooflineCanvas.Drawn)
    def _roofline_drawn(self) -> None:
        # The plot is labelled by the positions of the table's frame.
        self.query_one(KernelTable).set_tags(self.query_one(RooflineCanvas).drawn_tags)

    @on(RooflinePane.LegendOverflow)
    def _legend_overflow(self, message: RooflinePane.LegendOverflow) -> None:
        self.legend_hidden = message.hidden
        self.update_status()

    @on(KernelTable.RowChosen)
    def _row_chosen(self, message: KernelTable.RowChosen) -> None:
        self.show_detail(True)

    @on(KernelTable.SortRequested)
    def _sort(self, message: KernelTable.SortRequested) -> None:
        if self.state is None:
            return
        self.state.sort_column, self.state.sort_descending = message.column, message.descending
        self.selected = None  # a new order starts at its top row: after `]` that is the maximum
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

    def help_rows(self) -> list[HelpRow]:
        """The keys of the explorer, its kernel table and filter bar, and the mouse."""
        table = self.query_one(KernelTable)
        return [
            *binding_rows("explorer", self.BINDINGS, self),
            *binding_rows("kernel table", KernelTable.BINDINGS, table),
            ("kernel table", "click header", "sort by that column; click again to reverse"),
            ("kernel table", "click row", "select the kernel"),
            ("kernel table", "1-5 name", "the tag of a heaviest kernel, beside its points on the roofline"),
            ("kernel table", "FP16~", "FP16 CUDA-core FLOPs, which ncu counts approximately (d: the note)"),
            ("filter bar", "tab / shift+tab", "move between fields; esc back to the table"),
        ]

    def action_copy_name(self) -> None:
        if self.selected is None:
            return
        name = str(self.selected["name"])
        self.app.copy_to_clipboard(name)  # the exact name: OSC 52 carries it in base64
        self.notify(printable(f"copied {name}"), timeout=2, markup=False)

    async def action_roofline(self, action: str) -> None:
        await self.query_one(RooflineCanvas).run_action(action)

    def action_timeline(self) -> None:
        self.app.open_timeline()

    def action_focus_filter(self) -> None:
        self.query_one(FilterBar).display = True
        self.query_one(FilterBar).focus_name()

    # --- find (`/`, `n`, `N`): jump to a kernel by name, as less does -----------------

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        self._search_from = self.query_one(KernelTable).cursor_row
        search.value = ""
        search.display = True
        search.focus()

    @on(Input.Changed, "#search")
    def _search_typed(self, event: Input.Changed) -> None:
        self.search_text = event.value
        if event.value:
            self.jump_to_match(self._search_from, 1)

    @on(Input.Submitted, "#search")
    def _search_done(self, event: Input.Submitted) -> None:
        self._close_search()

    def _close_search(self) -> None:
        self.query_one("#search", Input).display = False
        self.query_one(KernelTable).focus()

    def action_search_next(self, direction: int) -> None:
        if not self.search_text:
            self.notify("/ to find a kernel first", timeout=2)
            return
        self.jump_to_match(self.query_one(KernelTable).cursor_row + direction, direction)

    def jump_to_match(self, start: int, direction: int) -> bool:
        """Move the cursor to the first row from ``start`` on (wrapping) whose name
        holds the find text, ignoring case; say so when none does."""
        if self.state is None or self.positions is None or not len(self.positions):
            return False
        names = self.state.all_rows["name"].to_numpy()[self.positions]
        found = np.flatnonzero(
            pd.Series(names).str.contains(self.search_text, case=False, regex=False).to_numpy()
        )
        if not len(found):
            self.notify(printable(f"no kernel shown matches {self.search_text!r}"), timeout=2, markup=False)
            return False
        start %= len(self.positions)
        if direction > 0:
            after = found[found >= start]
            row = after[0] if len(after) else found[0]  # past the last row: from the top
        else:
            before = found[found <= start]
            row = before[-1] if len(before) else found[-1]
        self.query_one(KernelTable).cursor_row = int(row)
        return True

    def action_focus_table(self) -> None:
        search = self.query_one("#search", Input)
        if search.display:  # a find abandoned: back where it started
            self.query_one(KernelTable).cursor_row = self._search_from
            self._close_search()
            return
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
        self.query_one(DetailPane).show(row, self._ceilings_of(row), metrics)

    def _ceilings_of(self, row: pd.Series) -> CeilingSet:
        """The ceilings of the GPU ``row`` ran on: its headroom and binding roofs are
        against its own GPU's roofs, not the first GPU's."""
        assert self.state is not None
        run = self.state.run.source
        device = row.get("device")
        if device is not None and hasattr(run, "ceilings_for"):
            try:
                return run.ceilings_for(str(device))
            except KeyError:
                pass
        return self.state.run.ceilings

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

    def action_advise(self) -> None:
        from rooftui.views.tui.screens.advise import AdviseScreen

        if self.state is not None:
            screen = AdviseScreen(self.state.run.source, ascii_mode=self.ascii_mode)
            self.app.push_screen(screen, self.jump_to_kernel)

    def jump_to_kernel(self, name: str | None) -> None:
        """Select the row of kernel ``name`` (the advise screen's Enter) and show its details."""
        if name is None or self.state is None or self.positions is None:
            return
        rows = np.flatnonzero(self.state.all_rows["name"].to_numpy()[self.positions] == name)
        if not len(rows):
            self.notify(printable(f"{name} is not in the table (filtered out?)"), timeout=3, markup=False)
            return
        self.query_one(KernelTable).cursor_row = int(rows[0])
        self.call_after_refresh(self.show_detail, True)  # once the cursor has selected the row

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
        self.notify(printable(f"saved {path}"), markup=False)

    def action_export_csv(self) -> None:
        from rooftui.views.tui.screens.export import ExportScreen

        def save(path: Path | None) -> None:
            if path is not None and self.rows is not None:
                rows = self.rows
                if not self.state.grouped:  # the table's count of 1 per launch: summary has none
                    rows = rows.drop(columns=["count"], errors="ignore")
                path.write_text(to_csv(rows))  # the one CSV layout of the kernel table
                self.notify(printable(f"saved {len(rows):,} rows to {path}"), markup=False)

        self.app.push_screen(ExportScreen("CSV of the filtered table", Path("rooftui-kernels.csv")), save)

