"""The main screen: filter bar, roofline, kernel table, detail pane, status line.

A thin adapter: ``ExplorerModel`` (``explorer_model.py``, no Textual) owns the state and
says what each part shows; this screen binds keys to the model's methods and puts what
they return into the widgets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, ProgressBar, Static

from rooftui.analysis.filters import KernelFilter
from rooftui.views.terminal import clipboard_message
from rooftui.views.text import printable
from rooftui.views.tui.explorer_model import WIDE, ExplorerModel
from rooftui.views.tui.format import literal
from rooftui.views.tui.roofline_legend import Said
from rooftui.views.tui.screens.explorer_keys import EXPLORER_BINDINGS, TABLE_HELP
from rooftui.views.tui.screens.help import HelpRow, binding_rows, footer_width
from rooftui.views.tui.table_columns import ranks_of
from rooftui.views.tui.view_state import LoadedRun, ViewState
from rooftui.views.tui.widgets.detail import DetailPane
from rooftui.views.tui.widgets.filter_bar import FilterBar
from rooftui.views.tui.widgets.footer import KeysFooter
from rooftui.views.tui.widgets.kernel_table import KernelTable
from rooftui.views.tui.widgets.roofline import RooflineCanvas, RooflinePane
from rooftui.views.tui.widgets.text_line import TextLine

# Above this many rows, moving the cursor redraws the roofline after a short
# pause instead of on every key, so holding an arrow key stays smooth.
DEBOUNCE_ROWS = 5000
DEBOUNCE_S = 0.06
# Below this many terminal rows the filter bar starts hidden (`/` or `f` shows it).
TALL_ENOUGH_FOR_FILTER_BAR = 30
# The screen's classes by its size: narrow (details cover the table), short (no filter bar).
WIDTH_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]
HEIGHT_BREAKPOINTS = [(0, "-short"), (TALL_ENOUGH_FOR_FILTER_BAR, "-tall")]


class ExplorerScreen(Screen):
    HORIZONTAL_BREAKPOINTS = WIDTH_BREAKPOINTS
    VERTICAL_BREAKPOINTS = HEIGHT_BREAKPOINTS
    # The footer shows the keys a first-time user needs; `?` lists them all (explorer_keys.py).
    BINDINGS = EXPLORER_BINDINGS

    def __init__(self, *, ascii_mode: bool = False) -> None:
        # the class from the start: added on mount, it would style every widget again
        super().__init__(classes="-ascii" if ascii_mode else None)
        self.ascii_mode = ascii_mode
        self.model: ExplorerModel | None = None  # once the run is loaded
        self._redraw_timer: Timer | None = None
        self._drawn_key: tuple[Any, ...] | None = None
        self._resumed = False  # shown once: the first ScreenResume came

    def compose(self) -> ComposeResult:
        # The size's breakpoint classes before the widgets are styled: left to the first
        # resize, they would style every widget of the screen a second time.
        width, height = self.app.size
        for size, breakpoints in ((width, WIDTH_BREAKPOINTS), (height, HEIGHT_BREAKPOINTS)):
            reached = [name for at, name in sorted(breakpoints) if size >= at]
            self.add_class(reached[-1], update=False)  # as Textual picks it; both start at 0
        yield TextLine("rooftui", ascii_mode=self.ascii_mode, id="opened")
        yield TextLine("loading…", ascii_mode=self.ascii_mode, id="status")
        yield FilterBar(ascii_mode=self.ascii_mode, id="filters")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield RooflinePane(ascii_mode=self.ascii_mode, id="roofline")
                yield KernelTable(ascii_mode=self.ascii_mode, id="table")
                yield TextLine(ascii_mode=self.ascii_mode, id="selected-name")
            yield DetailPane(ascii_mode=self.ascii_mode, id="detail")
        yield Input(placeholder="find a kernel: enter jumps, n/N next/previous, esc cancels", id="search")
        with Vertical(id="loading"):
            yield Static("Loading reports…", id="loading-text")
            yield ProgressBar(id="loading-progress", show_eta=False)
        yield KeysFooter()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Screen's own handler, which then styles every widget of the screen
        # again if asked to. The first time the explorer is shown each widget was styled
        # as it was mounted, a moment ago, by the same stylesheet: a second pass changes
        # no style and cost a fifth of an app start. Later resumes (a theme may have
        # changed meanwhile) keep Textual's pass. tests/tui/test_explorer_updates.py
        # checks that a full pass changes nothing after the start.
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def on_mount(self) -> None:
        self.query_one("#search", Input).display = False
        # Short terminals (80x24) give the bar's rows to the plot; `/` or `f` shows it.
        if self.app.size.height < TALL_ENOUGH_FOR_FILTER_BAR:
            self.query_one(FilterBar).display = False
        self.query_one(KernelTable).focus()

    # --- loading (called by the app's message handlers) ---------------------------

    def show_progress(self, done: int, total: int, what: str = "") -> None:
        self.query_one("#loading-progress", ProgressBar).update(total=total, progress=done)
        # ``what`` names a file: printable, never markup (literal)
        self.query_one("#loading-text", Static).update(
            literal(f"Loading reports… {what}".rstrip(), self.ascii_mode)
        )

    def show_error(self, error: str) -> None:
        # Shown while the app exits; the CLI then prints the error as one line.
        self.query_one("#loading-text", Static).update(literal(f"Could not load: {error}", self.ascii_mode))
        self.query_one("#loading-progress").display = False
        self.query_one("#status", Static).update("rooftui — load failed")

    def show_run(self, run: LoadedRun) -> None:
        options = getattr(self.app, "load_options", None)
        self.model = ExplorerModel(
            run,
            ascii_mode=self.ascii_mode,
            ceilings_files=getattr(options, "ceilings", None),
            sample=getattr(self.app, "is_sample", False),
            filter_bar=self.query_one(FilterBar).display,
        )
        self.query_one(RooflineCanvas).view = self.model.roofline
        self.update_opened()
        self.query_one("#loading").remove()  # shown only while loading: five widgets less
        self.query_one(FilterBar).set_choices(*self.model.state.choices())
        self.query_one(FilterBar).set_ranks(ranks_of(run.invocations))
        self.refresh_rows()

    # What tests and `rooftui plot` read, as the model has it.
    @property
    def state(self) -> ViewState | None:
        return None if self.model is None else self.model.state

    @property
    def rows(self) -> pd.DataFrame | None:
        """The filtered rows in table order, every column (for export)."""
        return None if self.model is None else self.model.rows

    @property
    def selected(self) -> pd.Series | None:
        return None if self.model is None else self.model.selected

    @property
    def legend_hidden(self) -> list[Said]:
        return [] if self.model is None else self.model.legend_hidden

    def _synced(self) -> ExplorerModel | None:
        """The model, its selection moved to the table's cursor (the keys that move the
        cursor are the table's own)."""
        if self.model is not None:
            self.model.select(self.query_one(KernelTable).cursor_row)
        return self.model

    def _show_cursor(self) -> None:
        """Put the table's cursor where the model's selection is."""
        if self.model is not None:
            self.query_one(KernelTable).cursor_row = self.model.cursor

    def configure(
        self,
        *,
        spec: KernelFilter,
        grouped: bool,
        sort_column: str,
        sort_descending: bool,
    ) -> None:
        """Set the whole view at once (``rooftui plot``); the filter bar shows ``spec``."""
        if self.model is None:
            return
        self.model.configure(
            spec=spec, grouped=grouped, sort_column=sort_column, sort_descending=sort_descending
        )
        self.query_one(FilterBar).set_spec(spec)  # posts Changed, which refreshes the rows
        self.refresh_rows()

    def flush_redraw(self) -> None:
        """Draw a debounced roofline update now (before a screenshot)."""
        if self._redraw_timer is not None:
            self._redraw_timer.stop()
            self._redraw_timer = None
            self.redraw_roofline()

    # --- the view ----------------------------------------------------------------------

    def refresh_rows(self) -> None:
        """Show the model's rows; its selection is the table's cursor."""
        model = self.model
        if model is None:
            return
        state = model.state
        self.query_one(KernelTable).show_rows(
            state.all_rows,
            model.positions,
            state.sort_column,
            state.sort_descending,
            cursor=model.cursor,
            page=model.table_page,  # the cells, tags of the five heaviest included
        )
        self.update_status()

    def update_status(self) -> None:
        if self.model is None:
            return
        status = self.query_one("#status", TextLine)
        status.show(self.model.status_line(self.app.size.width - status.styles.gutter.width))

    def update_opened(self) -> None:
        """The header: reports, GPUs, ceilings, bundled sample."""
        if self.model is None:
            return
        header = self.query_one("#opened", TextLine)
        header.show(self.model.header(self.app.size.width - header.styles.gutter.width))

    def show_selected_name(self, row: pd.Series | None) -> None:
        """The selected kernel's full name under the table (it wraps; ``d`` shows the rest)."""
        self.query_one("#selected-name", TextLine).show("" if row is None else str(row["name"]))

    def on_resize(self) -> None:
        self.update_opened()
        self.update_status()
        # Every key of the footer stays in view: packed closer where they would not fit.
        self.query_one(KeysFooter).compact = footer_width(self, self.app) > self.app.size.width

    def redraw_roofline(self) -> None:
        self._redraw_timer = None
        if self.model is None:
            return
        self._drawn_key = self.model.roofline_key()
        self.model.update_roofline()
        self.query_one(RooflinePane).redraw(
            grouped=self.model.state.grouped, content=self.model.roofline_content()
        )

    @on(KernelTable.RowHighlighted)
    def _row_highlighted(self, message: KernelTable.RowHighlighted) -> None:
        model = self._synced()
        row = None if model is None else model.selected
        self.show_selected_name(row)
        if model is not None and model.detail_open:
            self._show_details()
        if self._redraw_timer is not None:
            self._redraw_timer.stop()
            self._redraw_timer = None
        if model is None or model.roofline_key() == self._drawn_key:
            return  # e.g. a sort: same kernels, same selection, same picture
        if len(model.positions) > DEBOUNCE_ROWS:
            self._redraw_timer = self.set_timer(DEBOUNCE_S, self.redraw_roofline)
        else:
            self.redraw_roofline()

    @on(RooflineCanvas.PointChosen)
    def _point_chosen(self, message: RooflineCanvas.PointChosen) -> None:
        # The plot is labelled by the positions of the table's frame.
        if self.model is not None and self.model.select_kernel(message.kernel):
            self._show_cursor()

    @on(RooflinePane.LegendOverflow)
    def _legend_overflow(self, message: RooflinePane.LegendOverflow) -> None:
        if self.model is not None:
            self.model.legend_hidden = message.hidden
        self.update_status()

    @on(KernelTable.RowChosen)
    def _row_chosen(self, message: KernelTable.RowChosen) -> None:
        self.show_detail(True)

    @on(KernelTable.SortRequested)
    def _sort(self, message: KernelTable.SortRequested) -> None:
        if self.model is not None:
            self.model.sort(message.column, message.descending)
            self.refresh_rows()

    @on(FilterBar.Changed)
    def _filter(self, message: FilterBar.Changed) -> None:
        model = self._synced()
        if model is not None:
            model.set_filter(message.spec)
            self.refresh_rows()

    # --- actions -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The timeline needs a trace (`--trace`); without one the key is hidden.
        if action == "timeline":
            return getattr(self.app, "trace_path", None) is not None
        # `v` shows the next GPU's roofline: only a run of several GPUs has one.
        if action == "next_device":
            return self.model is not None and len(self.model.roofline.devices) > 1
        return True

    def help_rows(self) -> list[HelpRow]:
        """The keys of the explorer, its kernel table and filter bar, and the mouse."""
        table = self.query_one(KernelTable)
        return [
            *binding_rows("explorer", self.BINDINGS, self),
            *binding_rows("kernel table", KernelTable.BINDINGS, table),
            *TABLE_HELP,
        ]

    def action_copy_name(self) -> None:
        selected = self.selected
        if selected is None:
            return
        name = str(selected["name"])
        self.app.copy_to_clipboard(name)  # the exact name: OSC 52 carries it in base64
        self.notify(printable(clipboard_message(name, os.environ)), timeout=4, markup=False)

    def action_step_point(self, step: int) -> None:
        model = self._synced()
        if model is not None and model.step_point(step):
            self.query_one(RooflineCanvas).refresh()
            self._show_cursor()

    def action_next_device(self) -> None:
        if self.model is None:
            return
        said = self.model.next_device()
        if said:
            self.notify(said, timeout=2)
        else:
            self.query_one(RooflineCanvas).rebuild()

    def action_timeline(self) -> None:
        open_timeline = getattr(self.app, "open_timeline", None)
        if open_timeline is not None:
            open_timeline()

    def action_focus_filter(self) -> None:
        if self.model is not None:
            self.model.filter_bar_shown = True
        self.query_one(FilterBar).display = True
        self.query_one(FilterBar).focus_name()

    # --- find (`/`, `n`, `N`): jump to a kernel by name, as less does -----------------

    def action_search(self) -> None:
        model = self._synced()
        if model is None:
            return
        model.start_find()
        search = self.query_one("#search", Input)
        search.value = ""
        search.display = True
        search.focus()

    @on(Input.Changed, "#search")
    def _search_typed(self, event: Input.Changed) -> None:
        if self.model is not None and self.model.find_open:
            self._say(self.model.type_find(event.value))
            self._show_cursor()

    @on(Input.Submitted, "#search")
    def _search_done(self, event: Input.Submitted) -> None:
        if self.model is not None:
            self.model.submit_find()
        self._close_search()

    def _close_search(self) -> None:
        self.query_one("#search", Input).display = False
        self.query_one(KernelTable).focus()

    def _say(self, said: str | None) -> None:
        if said:
            self.notify(said, timeout=2, markup=False)

    def action_search_next(self, direction: int) -> None:
        model = self._synced()
        if model is not None:
            self._say(model.find_next(direction))
            self._show_cursor()

    def action_focus_table(self) -> None:
        model = self._synced()
        if model is not None:
            finding = model.find_open
            model.escape(self.app.size.width)
            self._show_cursor()
            if finding:  # a find abandoned: back where it started
                self._close_search()
                return
            if not model.detail_open and self.query_one(DetailPane).display:
                self.show_detail(False)  # on a narrow screen the details cover the table
        self.query_one(KernelTable).focus()

    def action_toggle_filters(self) -> None:
        if self.model is not None:
            self.model.toggle_filter_bar()
            self.query_one(FilterBar).display = self.model.filter_bar_shown
        else:
            bar = self.query_one(FilterBar)
            bar.display = not bar.display

    def action_clear_filters(self) -> None:
        self.query_one(FilterBar).clear()

    def action_toggle_grouped(self) -> None:
        if self.model is not None:
            self.model.toggle_grouped()
            self.refresh_rows()

    def action_toggle_level(self, level: str) -> None:
        if self.model is not None:
            self.notify(self.model.toggle_level(level), timeout=2)
            self.redraw_roofline()

    def action_toggle_instruction(self) -> None:
        if self.model is not None:
            self.notify(self.model.toggle_instruction(), timeout=2)
            self.redraw_roofline()

    def action_pipelines(self) -> None:
        from rooftui.views.tui.screens.pipelines import PipelinesScreen

        model = self.model
        if model is None:
            return

        def apply(hidden: set[str] | None) -> None:
            if hidden is not None:
                model.hide_pipelines(hidden)
                self.redraw_roofline()

        self.app.push_screen(
            PipelinesScreen(
                model.state.present_pipelines(), model.state.hidden_pipelines, ascii_mode=self.ascii_mode
            ),
            apply,
        )

    def action_toggle_detail(self) -> None:
        if self.model is not None:
            self.show_detail(not self.model.detail_open)
        else:
            self.show_detail(not self.query_one(DetailPane).display)

    def _show_details(self) -> None:
        detail = self.query_one(DetailPane)
        detail.show(None if self.model is None else self.model.detail(detail.text_width))

    def show_detail(self, visible: bool) -> None:
        """Open or close the detail pane; below 120 columns it covers the table."""
        model = self._synced()
        if model is not None and model.detail_open != visible:
            model.toggle_detail()
        detail = self.query_one(DetailPane)
        detail.display = visible
        # On the body, not the screen: a class change styles the node's widgets again.
        # Only a narrow screen has a rule for it; on a wide one the class is set without
        # styling the body's widgets again: becoming narrow styles the whole screen.
        self.query_one("#body").set_class(visible, "-detail-open", update=self.has_class("-narrow"))
        if visible:
            self._show_details()
            if self.has_class("-narrow"):
                detail.focus()
        elif self.has_class("-narrow"):
            self.query_one(KernelTable).focus()

    def action_zoom_roofline(self) -> None:
        if self.model is not None:
            self.model.zoomed = self.maximized is not None  # esc may have restored it
            self.model.toggle_zoom()
        if self.maximized is not None:
            self.minimize()
            self.query_one(KernelTable).focus()
        else:
            self.maximize(self.query_one(RooflinePane), container=False)
            # The table is hidden now; keep keys on this screen, not in a filter field.
            self.query_one(RooflineCanvas).focus()

    def action_advise(self) -> None:
        from rooftui.views.tui.screens.advise import AdviseScreen

        if self.model is not None:
            model = self.model
            screen = AdviseScreen(model.state.run.source, ascii_mode=self.ascii_mode, advice=model.advice())
            self.app.push_screen(screen, self.jump_to_kernel)

    def jump_to_kernel(self, name: str | None) -> None:
        """Select the row of kernel ``name`` (the advise screen's Enter) and show its details."""
        if name is None or self.model is None:
            return
        if not self.model.select_name(name):
            self.notify(printable(f"{name} is not in the table (filtered out?)"), timeout=3, markup=False)
            return
        self.query_one(KernelTable).cursor_row = self.model.cursor
        self.call_after_refresh(self.show_detail, True)  # once the cursor has selected the row

    def action_summary(self) -> None:
        from rooftui.views.tui.screens.summary import SummaryScreen

        if self.model is not None:
            tables = self.model.summary_tables()
            self.app.push_screen(SummaryScreen(self.model.state, tables, ascii_mode=self.ascii_mode))

    def action_export_svg(self) -> None:
        from rooftui.views.tui.screens.export import ExportScreen

        def save(path: Path | None) -> None:
            if path is not None:
                self.app.call_after_refresh(self._save_svg, path)

        self.app.push_screen(
            ExportScreen("SVG of this view", Path("rooftui-view.svg"), ascii_mode=self.ascii_mode), save
        )

    def _save_svg(self, path: Path) -> None:
        self.flush_redraw()
        self.app.call_after_refresh(self._write_svg, path)

    def _write_svg(self, path: Path) -> None:
        self.app.save_screenshot(filename=path.name, path=str(path.parent.resolve()))
        self.notify(printable(f"saved {path}"), markup=False)

    def action_export_csv(self) -> None:
        from rooftui.views.tui.screens.export import ExportScreen

        model = self.model

        def save(path: Path | None) -> None:
            if path is not None and model is not None:
                text, rows = model.table_csv()
                path.write_text(text)
                self.notify(printable(f"saved {rows:,} rows to {path}"), markup=False)

        self.app.push_screen(
            ExportScreen(
                "CSV of the filtered table", Path("rooftui-kernels.csv"), ascii_mode=self.ascii_mode
            ),
            save,
        )
