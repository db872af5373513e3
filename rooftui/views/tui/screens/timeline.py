"""The Timeline screen: a text Gantt of one step, the findings, and a jump between them.

``TimelineScreen(trace_analysis)`` is self-contained: any app can push it (the
explorer does, for a trace), and ``run_timeline_app`` wraps it in a tiny app for
``rooftui timeline TRACE --tui``.

Keys: ``[`` / ``]`` previous / next step; ``up`` / ``down`` the findings;
``enter`` on a finding jumps to the step of its costliest place and marks it
(again: its next place); ``z`` zooms the Gantt in on the selected finding's place
(jumping there first) and out again; ``escape`` goes back (out of the zoom, then
the screen); ``?`` lists the keys. A thin adapter over ``TimelineModel``
(``timeline_model.py``, no Textual).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from rooftui.timeline.analysis import TimelineAnalysis
from rooftui.timeline.finding import Place
from rooftui.views.tui.base_app import RooftuiBaseApp, go_back
from rooftui.views.tui.timeline_model import FINDING_COLUMNS, GANTT_PADDING, TimelineModel
from rooftui.views.tui.widgets.footer import KeysFooter


class GanttView(Static):
    """The Gantt of the model's step, each growing lane as tall as the screen gives it;
    re-laid out to its own width."""

    def __init__(self, model: TimelineModel, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.lane_height = 1

    @property
    def marker(self) -> Place | None:
        return self.model.marker

    @property
    def window(self) -> tuple[float, float] | None:
        return self.model.window

    def on_resize(self) -> None:
        self.refresh_chart()

    def refresh_chart(self) -> None:
        width = self.content_size.width or self.size.width - GANTT_PADDING
        self.update(self.model.gantt(width, self.lane_height))


class TimelineScreen(Screen[None]):
    """Gantt of one step, the findings list, and jumping from a finding to its place.

    A thin adapter: ``TimelineModel`` (``timeline_model.py``, no Textual) owns the state
    and says what each part shows and how many rows it gets."""

    CSS_PATH = "timeline.tcss"
    BINDINGS = [
        Binding("left_square_bracket", "previous_step", "prev step", key_display="["),
        Binding("right_square_bracket", "next_step", "next step", key_display="]"),
        Binding("up", "move(-1)", "previous finding", show=False),
        Binding("down", "move(1)", "next finding", show=False),
        Binding(
            "enter",
            "jump",
            "jump",
            show=False,
            tooltip="show the step of the finding's costliest place and mark it (again: its next place)",
        ),
        Binding(
            "z", "zoom", "zoom to finding", tooltip="zoom the Gantt in on the selected finding's place / out"
        ),
        Binding("escape", "close", "back", tooltip="back (out of the zoom first)"),
    ]
    HELP_WHERE = "timeline"

    def __init__(self, trace_analysis: TimelineAnalysis, *, ascii_mode: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.analysis = trace_analysis
        self.ascii_mode = ascii_mode
        self.model = TimelineModel(trace_analysis, ascii_mode=ascii_mode)
        self._list_width = 0  # the width the findings list was last filled for

    # What tests read, as the model has it.
    @property
    def step_index(self) -> int:
        return self.model.step_index

    def compose(self) -> ComposeResult:
        yield Static(self.model.summary(), id="timeline-summary")
        yield Static(id="timeline-step")
        yield GanttView(self.model, id="timeline-gantt")
        yield DataTable(id="timeline-findings", cursor_type="row", zebra_stripes=True)
        yield Static(id="timeline-detail")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#timeline-findings", DataTable).focus()
        self._show_detail()
        self._show_step()

    def on_resize(self) -> None:
        self._fill_findings()
        self._share_rows()

    def _fill_findings(self) -> None:
        """The findings list for the screen's width: the host calls fitted to what is left."""
        width = self.size.width
        table = self.query_one("#timeline-findings", DataTable)
        if table.columns and width == self._list_width:
            return
        self._list_width = width
        table.clear(columns=True)
        for title, cells in zip(FINDING_COLUMNS, self.model.column_widths(width)):
            table.add_column(title, width=cells)
        for number, row in enumerate(self.model.finding_rows(width)):
            # Text, not str: a DataTable reads a str cell as markup, and names come from traces.
            table.add_row(*(Text(cell) for cell in row), key=str(number))
        if table.row_count:
            table.move_cursor(row=self.model.cursor)

    def _share_rows(self) -> None:
        """Give each part the rows the model shares out at this size: taller lanes and a
        longer list on a taller terminal."""
        rows = self.model.rows(*self.size)
        gantt = self.query_one(GanttView)
        gantt.lane_height = rows.lane_height
        gantt.styles.height = rows.gantt
        self.query_one("#timeline-findings").styles.height = rows.table
        self.query_one("#timeline-detail").styles.height = rows.detail
        gantt.refresh_chart()

    # -- keys ------------------------------------------------------------------

    def action_previous_step(self) -> None:
        self.model.previous_step()
        self._show_step()

    def action_next_step(self) -> None:
        self.model.next_step()
        self._show_step()

    def select_step(self, step_index: int, marker: Place | None = None) -> None:
        """Show step ``step_index`` (clamped), with ``marker`` pointed at, if given."""
        self.model.select_step(step_index, marker)
        self._show_step()

    def action_move(self, step: int) -> None:
        """Up/down when the list has not the focus: the next or previous finding."""
        table = self.query_one("#timeline-findings", DataTable)
        table.focus()
        if table.row_count:
            table.move_cursor(row=self.model.cursor + step)

    def action_jump(self) -> None:
        if self.model.jump():
            self._show_step()

    def action_zoom(self) -> None:
        message = self.model.zoom()
        if message:
            self.notify(message)
        self._show_step()

    def action_close(self) -> None:
        if self.model.escape():
            self._show_step()
        else:
            go_back(self)

    def _show_step(self) -> None:
        self.query_one("#timeline-step", Static).update(self.model.step_line())
        self.query_one(GanttView).refresh_chart()

    # -- findings --------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#timeline-findings")
    def _describe(self, event: DataTable.RowHighlighted) -> None:
        self.model.select(event.cursor_row)
        self._show_detail()

    def _show_detail(self) -> None:
        self.query_one("#timeline-detail", Static).update(self.model.detail())
        self._share_rows()

    @on(DataTable.RowSelected, "#timeline-findings")
    def _jump(self, event: DataTable.RowSelected) -> None:
        self.model.select(event.cursor_row)
        self.action_jump()


class TimelineApp(RooftuiBaseApp):
    """``rooftui timeline TRACE --tui``: the Timeline screen on its own."""

    TITLE = "rooftui timeline"
    HELP_INTRO = (
        "rooftui timeline — one training step as a Gantt chart, and the stalls a roofline cannot see."
    )

    def __init__(self, trace_analysis: TimelineAnalysis, *, ascii_mode: bool = False) -> None:
        super().__init__(ascii_mode=ascii_mode)
        self.analysis = trace_analysis

    def on_mount(self) -> None:
        super().on_mount()
        self.push_screen(TimelineScreen(self.analysis, ascii_mode=self.ascii_mode))


def make_timeline_app(trace_analysis: TimelineAnalysis, *, ascii_mode: bool = False) -> TimelineApp:
    """``ascii_mode``: only ASCII characters (``rooftui timeline --tui --ascii``, and by
    default where the locale or TERM cannot show Unicode)."""
    return TimelineApp(trace_analysis, ascii_mode=ascii_mode)


def run_timeline_app(trace_analysis: TimelineAnalysis, *, ascii_mode: bool = False) -> None:
    make_timeline_app(trace_analysis, ascii_mode=ascii_mode).run()
