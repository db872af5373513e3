"""The Timeline screen: a text Gantt of one step, the findings, and a jump between them.

``TimelineScreen(trace_analysis)`` is self-contained: any app can push it (the
explorer does, for a trace), and ``run_timeline_app`` wraps it in a tiny app for
``rooftui timeline TRACE --tui``. It only renders; the analysis is done before,
in :mod:`rooftui.timeline`, and the Gantt's cells come from
:func:`rooftui.timeline.gantt.step_gantt`.

Keys: ``[`` / ``]`` previous / next step; ``enter`` on a finding jumps to the
step of its costliest place and marks it (again: its next place); ``z`` zooms
the Gantt in on the marked place and out again; ``escape`` goes back (out of the
zoom, then the screen); ``?`` lists the keys.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from rooftui.timeline.analysis import TimelineAnalysis
from rooftui.timeline.finding import KIND_LABELS, Finding, Place
from rooftui.timeline.gantt import GanttChart, step_gantt, zoom_window
from rooftui.timeline.report import costliest_text, detail_text, summary_line, where_text
from rooftui.views.formats import seconds
from rooftui.views.text import printable, shorten
from rooftui.views.tui.base_app import RooftuiBaseApp, go_back
from rooftui.views.tui.format import ascii_safe, literal

LABEL_WIDTH = 11
_KIND_STYLES = {
    "kernel": "green",
    "copy": "bright_blue",
    "copy_pageable": "bold red",
    "memset": "cyan",
    "sync": "bright_white",
    "idle": "yellow",
    "stream_idle": "bright_black",
    "marker": "bold bright_magenta",
}
_LEGEND = (
    ("kernel", "kernel", "█"),
    ("copy", "copy", "█"),
    ("pageable", "copy_pageable", "█"),
    ("memset", "memset", "█"),
    ("host waits", "sync", "█"),
    ("GPU idle", "idle", "█"),
    ("finding", "marker", "▲"),
)
# --ascii: the Gantt's shades, empty cells, finding marks, range starts and ticks
# (``rooftui.timeline.gantt``), one character each.
GANTT_ASCII = str.maketrans({"█": "#", "▓": "=", "▒": "-", "·": ".", "▲": "^", "▏": "|", "┆": ":"})
_RANGE_STYLES = (
    "black on dark_cyan",
    "black on dark_goldenrod",
    "black on medium_purple",
    "black on dark_sea_green4",
    "black on indian_red",
    "black on steel_blue",
)


class GanttView(Static):
    """The Gantt of one step; re-laid out to its own width."""

    def __init__(self, analysis: TimelineAnalysis, *, ascii_mode: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.analysis = analysis
        self.ascii_mode = ascii_mode
        self.step_index = 0
        self.marker: Place | None = None
        self.window: tuple[float, float] | None = None
        names = sorted(
            {
                analysis.trace.names[code]
                for code in set(
                    analysis.trace.host_ranges.name[analysis.trace.host_ranges.is_annotation == 1].tolist()
                )
            }
        )
        self._range_style = {name: _RANGE_STYLES[i % len(_RANGE_STYLES)] for i, name in enumerate(names)}

    def show(self, step_index: int, marker: Place | None, window: tuple[float, float] | None = None) -> None:
        self.step_index, self.marker, self.window = step_index, marker, window
        self.refresh_chart()

    def on_resize(self) -> None:
        self.refresh_chart()

    def refresh_chart(self) -> None:
        width = max(self.content_size.width - LABEL_WIDTH - 1, 10)
        chart = step_gantt(self.analysis, self.step_index, width, self.marker, self.window, self.ascii_mode)
        self.update(self.render_chart(chart))

    def render_chart(self, chart: GanttChart) -> Text:
        text = Text(no_wrap=True, overflow="crop")
        more = "..." if self.ascii_mode else "…"
        glyphs = GANTT_ASCII if self.ascii_mode else {}
        for row in chart.rows:
            label = shorten(printable(row.label), LABEL_WIDTH, more)
            text.append(f"{label:>{LABEL_WIDTH}} ", style="bold")
            for char, kind in zip(row.chars, row.kinds, strict=True):
                text.append(char.translate(glyphs), style=self._style(kind))
            text.append("\n")
        text.append(" " * (LABEL_WIDTH + 1) + chart.axis.translate(glyphs) + "\n", style="dim")
        text.append(" " * (LABEL_WIDTH + 1))
        for label, kind, glyph in chart.legend:  # a glyph per kind: readable under NO_COLOR
            text.append(glyph.translate(glyphs), style=_KIND_STYLES[kind])
            text.append(f" {label} ", style="dim")
        if self.ascii_mode:  # range names from the trace: what literal() does to them
            return _ascii_text(text)
        return text

    def _style(self, kind: str) -> str:
        if kind.startswith("range:"):
            return self._range_style.get(kind[6:], _RANGE_STYLES[0])
        return _KIND_STYLES.get(kind, "")


def _ascii_text(text: Text) -> Text:
    """``text`` with rooftui's few non-ASCII characters replaced, its styles kept where
    a replacement keeps the length (the Gantt's cells), else dropped."""
    plain = ascii_safe(text.plain)
    if len(plain) == len(text.plain):
        copy = text.copy()
        copy.plain = plain
        return copy
    return Text(plain, no_wrap=text.no_wrap, overflow=text.overflow)


class TimelineScreen(Screen[None]):
    """Gantt of one step, the findings list, and jumping from a finding to its place."""

    CSS_PATH = "timeline.tcss"
    BINDINGS = [
        Binding("left_square_bracket", "previous_step", "prev step", key_display="["),
        Binding("right_square_bracket", "next_step", "next step", key_display="]"),
        Binding("z", "zoom", "zoom to finding"),
        Binding("escape", "close", "back", tooltip="back (out of the zoom first)"),
    ]
    HELP_WHERE = "timeline"

    def __init__(self, trace_analysis: TimelineAnalysis, *, ascii_mode: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.analysis = trace_analysis
        self.ascii_mode = ascii_mode
        self.step_index = 0
        self.marker: Place | None = None
        self.zoomed = False
        self._next_place: dict[int, int] = {}  # finding row -> which place enter jumps to

    def compose(self) -> ComposeResult:
        yield Static(literal(summary_line(self.analysis), self.ascii_mode), id="timeline-summary")
        yield Static(id="timeline-step")
        yield GanttView(self.analysis, ascii_mode=self.ascii_mode, id="timeline-gantt")
        yield DataTable(id="timeline-findings", cursor_type="row", zebra_stripes=True)
        yield Static(id="timeline-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#timeline-findings", DataTable)
        # Short cells, so that 80 columns show them all; the panel below has the rest.
        table.add_columns("#", "cost/step", "%", "what", "range", "host call")
        more = "..." if self.ascii_mode else "…"
        for number, finding in enumerate(self.analysis.findings, start=1):
            host_call = finding.host_call or "—"
            table.add_row(
                str(number),
                literal(seconds(finding.cost_per_step_s), self.ascii_mode),
                f"{finding.share_of_step:.0%}",
                literal(KIND_LABELS[finding.kind], self.ascii_mode),
                literal(shorten(printable(finding.range), 28, more), self.ascii_mode),
                literal(shorten(printable(host_call), 40, more), self.ascii_mode),
                key=str(number - 1),
            )
        if not self.analysis.findings:
            self.query_one("#timeline-detail", Static).update(
                Text("No stalls found in this trace.", style="green")
            )
        table.focus()
        self._show_step()

    # -- steps -----------------------------------------------------------------

    def action_previous_step(self) -> None:
        self.select_step(self.step_index - 1)

    def action_next_step(self) -> None:
        self.select_step(self.step_index + 1)

    def action_close(self) -> None:
        if self.zoomed:
            self.zoomed = False
            self._show_step()
        else:
            go_back(self)

    def action_zoom(self) -> None:
        if self.marker is None:
            self.notify("Jump to a finding first (enter); z then zooms in on it.")
            return
        self.zoomed = not self.zoomed
        self._show_step()

    def select_step(self, step_index: int, marker: Place | None = None) -> None:
        """Show step ``step_index`` (clamped), with ``marker`` pointed at, if given.

        Without a marker there is nothing to zoom in on, so the whole step shows.
        """
        self.step_index = min(max(step_index, 0), len(self.analysis.steps) - 1)
        self.marker = marker
        self.zoomed = self.zoomed and marker is not None
        self._show_step()

    def _show_step(self) -> None:
        step = self.analysis.steps[self.step_index]
        idle = self.analysis.idle_s[self.step_index]
        window = None
        if self.zoomed and self.marker is not None:
            window = zoom_window(step.start, step.end, self.marker)
        line = Text.assemble(
            (f"{step.label}", "bold"),
            f" ({self.step_index + 1} of {len(self.analysis.steps)})",
            f" · {seconds(step.duration)} · GPU idle {idle / step.duration:.0%}",
            (f" · zoomed to {seconds(window[1] - window[0])}" if window else "", "bold"),
            ("   [ ] step · enter jump · z zoom", "dim"),
        )
        self.query_one("#timeline-step", Static).update(_ascii_text(line) if self.ascii_mode else line)
        self.query_one(GanttView).show(self.step_index, self.marker, window)

    # -- findings --------------------------------------------------------------

    def _finding_at(self, row_key) -> tuple[int, Finding]:
        index = int(row_key.value)
        return index, self.analysis.findings[index]

    @on(DataTable.RowHighlighted, "#timeline-findings")
    def _describe(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        _, finding = self._finding_at(event.row_key)
        detail = Text.assemble(
            (printable(finding.title), "bold"),
            "\n",
            ("where: ", "dim"),
            printable(where_text(finding)),
            "\n",
            ("host call: ", "dim"),
            (printable(finding.host_call or "—"), "cyan"),
            "\n",
            (printable(detail_text(finding)), "dim"),
            "\n",
            (printable(costliest_text(self.analysis, finding)) + " (enter: jump, z: zoom)", "dim"),
        )
        self.query_one("#timeline-detail", Static).update(_ascii_text(detail) if self.ascii_mode else detail)

    @on(DataTable.RowSelected, "#timeline-findings")
    def _jump(self, event: DataTable.RowSelected) -> None:
        index, finding = self._finding_at(event.row_key)
        self.jump_to(index, finding)

    def jump_to(self, index: int, finding: Finding) -> None:
        """Show the step of the finding's next place and point the marker at it."""
        if not finding.places:
            return
        which = self._next_place.get(index, 0) % len(finding.places)
        self._next_place[index] = which + 1
        place = finding.places[which]
        step_index = next(
            (i for i, step in enumerate(self.analysis.steps) if step.number == place.step),
            self.step_index,
        )
        self.select_step(step_index, marker=place)


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
