"""The Timeline screen, headless: its state and what it shows, without Textual.

``TimelineModel`` owns the step shown, the finding selected in the list, the place
Enter jumped to (the marker), the zoom and which place Enter goes to next. Every key of
the Timeline screen is one method here; the renderers give the summary and step lines,
the Gantt for a width and a lane height, the findings list and the selected finding's
detail, and how the screen's rows are shared at a size (``rows``): the lanes and the
list grow with the terminal. ``screens/timeline.py`` binds keys to these methods and puts
what they return into widgets, so what the screen shows is checked without an app.

The analysis is done before, in :mod:`rooftui.timeline`; the Gantt's cells come from
:func:`rooftui.timeline.gantt.step_gantt`.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rich.text import Text

from rooftui.timeline.analysis import TimelineAnalysis
from rooftui.timeline.finding import KIND_LABELS, Finding, Place
from rooftui.timeline.gantt import GanttChart, GanttRow, step_gantt, zoom_window
from rooftui.timeline.report import costliest_text, detail_text, summary_line, where_text
from rooftui.views.formats import seconds
from rooftui.views.text import ellipsis_mark, printable, shorten
from rooftui.views.tui.format import ascii_safe, literal
from rooftui.views.tui.kept import Kept

LABEL_WIDTH = 11  # the lanes' names, right-aligned before them
GANTT_PADDING = 2  # the Gantt's and the detail's left and right padding (timeline.tcss)
MAX_LANE_HEIGHT = 8  # the most rows one lane grows to
TABLE_MIN = 4  # the findings list's fewest rows (its header and three findings)
DETAIL_MAX = 7  # the most rows the finding's detail takes
FIXED_ROWS = 3  # the summary line, the step line and the footer

KIND_STYLES = {
    "kernel": "green",
    "copy": "bright_blue",
    "copy_pageable": "bold red",
    "memset": "cyan",
    "sync": "bright_white",
    "idle": "yellow",
    "stream_idle": "bright_black",
    "marker": "bold bright_magenta",
}
# --ascii: the Gantt's shades, empty cells, finding marks, range starts and ticks
# (``rooftui.timeline.gantt``), one character each.
GANTT_ASCII = str.maketrans({"█": "#", "▓": "=", "▒": "-", "·": ".", "▲": "^", "▏": "|", "┆": ":"})
RANGE_STYLES = (
    "black on dark_cyan",
    "black on dark_goldenrod",
    "black on medium_purple",
    "black on dark_sea_green4",
    "black on indian_red",
    "black on steel_blue",
)
FINDING_COLUMNS = ("#", "cost/step", "%", "what", "range", "host call")
RANGE_WIDTH = 28  # the most columns a finding's range takes in the list
NAME_MIN = 12  # below this the range and host call columns are cut at the screen's edge
DRAWN_KEPT = 16  # Gantts kept, by width and what they show: sharing rows and drawing ask for each
# A table cell's padding (Textual's DataTable: one column each side) and the vertical
# scroll bar's width: what the list's width loses besides its cells.
CELL_PADDING, SCROLLBAR = 2, 2


@dataclass(frozen=True)
class ScreenRows:
    """How a terminal's rows are shared: each lane's height and the rows of the Gantt
    (lanes, axis and legend), of the findings list and of the detail."""

    lane_height: int
    gantt: int
    table: int
    detail: int


def ascii_text(text: Text) -> Text:
    """``text`` with rooftui's few non-ASCII characters replaced, its styles kept where
    a replacement keeps the length (the Gantt's cells), else dropped."""
    plain = ascii_safe(text.plain)
    if len(plain) == len(text.plain):
        copy = text.copy()
        copy.plain = plain
        return copy
    return Text(plain, no_wrap=text.no_wrap, overflow=text.overflow)


def grows(row: GanttRow) -> bool:
    """Whether a lane is drawn taller when there is room: the streams, the host's waits
    and the GPU's idle time; not the ranges (their names) nor the finding's marker."""
    return row.label != "finding" and not any(kind.startswith("range:") for kind in row.kinds)


class TimelineModel:
    """The Timeline screen's state for one analysed trace; see the module's docstring."""

    def __init__(self, analysis: TimelineAnalysis, *, ascii_mode: bool = False) -> None:
        self.analysis = analysis
        self.ascii_mode = ascii_mode
        self.step_index = 0
        self.cursor = 0  # the finding selected in the list
        self.marker: Place | None = None  # the place Enter jumped to
        self.marked_finding: int | None = None  # whose place the marker is
        self.zoomed = False
        self.next_place: dict[int, int] = {}  # finding -> which of its places Enter goes to next
        trace = analysis.trace
        annotations = trace.host_ranges.name[trace.host_ranges.is_annotation == 1].tolist()
        names = sorted({trace.names[code] for code in set(annotations)})
        self.range_styles = {name: RANGE_STYLES[i % len(RANGE_STYLES)] for i, name in enumerate(names)}
        # Charts and Gantt texts made, by what they depend on: sharing out the rows and
        # drawing ask for the same chart, and a resize redraws what was already made.
        self._charts: Kept[GanttChart] = Kept(DRAWN_KEPT)
        self._gantts: Kept[Text] = Kept(DRAWN_KEPT)

    # --- what is shown ---------------------------------------------------------------

    @property
    def findings(self) -> list[Finding]:
        return list(self.analysis.findings)

    @property
    def selected(self) -> Finding | None:
        return self.analysis.findings[self.cursor] if self.analysis.findings else None

    @property
    def window(self) -> tuple[float, float] | None:
        """The part of the step the Gantt shows when zoomed in on the marker."""
        if not self.zoomed or self.marker is None:
            return None
        step = self.analysis.steps[self.step_index]
        return zoom_window(step.start, step.end, self.marker)

    # --- the keys ----------------------------------------------------------------------

    def select_step(self, step_index: int, marker: Place | None = None) -> None:
        """Show step ``step_index`` (kept in range), with ``marker`` pointed at, if given.
        Without a marker there is nothing to zoom in on, so the whole step shows."""
        self.step_index = min(max(step_index, 0), len(self.analysis.steps) - 1)
        self.marker = marker
        if marker is None:
            self.marked_finding = None
        self.zoomed = self.zoomed and marker is not None

    def previous_step(self) -> None:
        """``[``: the step before."""
        self.select_step(self.step_index - 1)

    def next_step(self) -> None:
        """``]``: the step after."""
        self.select_step(self.step_index + 1)

    def select(self, row: int) -> None:
        """The finding at ``row`` of the list becomes the selected one (kept in range)."""
        self.cursor = max(0, min(len(self.analysis.findings) - 1, row))

    def jump(self) -> bool:
        """``enter``: show the step of the selected finding's next place (its costliest
        first) and point the marker at it; False when the finding has no place."""
        finding = self.selected
        if finding is None or not finding.places:
            return False
        which = self.next_place.get(self.cursor, 0) % len(finding.places)
        self.next_place[self.cursor] = which + 1
        place = finding.places[which]
        step_index = next(
            (i for i, step in enumerate(self.analysis.steps) if step.number == place.step),
            self.step_index,
        )
        self.select_step(step_index, marker=place)
        self.marked_finding = self.cursor
        return True

    def zoom(self) -> str | None:
        """``z``: zoom the Gantt in on the selected finding's place, jumping to it first
        when the marker is not one of its places; out again when zoomed. Returns what to
        tell the user when there is nothing to zoom in on."""
        if self.zoomed:
            self.zoomed = False
            return None
        if self.selected is None:
            return "no finding to zoom in on"
        if self.marked_finding != self.cursor and not self.jump():
            return "this finding has no place in the trace to zoom in on"
        self.zoomed = True
        return None

    def escape(self) -> bool:
        """``esc``: out of the zoom (True), else nothing here to undo (False: the screen
        goes back)."""
        if self.zoomed:
            self.zoomed = False
            return True
        return False

    # --- renderers ---------------------------------------------------------------------

    def _text(self, text: Text) -> Text:
        return ascii_text(text) if self.ascii_mode else text

    def summary(self) -> Text:
        """The top line: trace, GPUs, steps and idle share."""
        return literal(summary_line(self.analysis), self.ascii_mode)

    def step_line(self) -> Text:
        """Which step, its length and idle share, the zoom, and the keys that move."""
        step = self.analysis.steps[self.step_index]
        idle = self.analysis.idle_s[self.step_index]
        window = self.window
        line = Text.assemble(
            (f"{step.label}", "bold"),
            f" ({self.step_index + 1} of {len(self.analysis.steps)})",
            f" · {seconds(step.duration)} · GPU idle {idle / step.duration:.0%}",
            (f" · zoomed to {seconds(window[1] - window[0])}" if window else "", "bold"),
            ("   [ ] step · enter jump · z zoom", "dim"),
        )
        return self._text(line)

    def chart(self, width: int) -> GanttChart:
        """The Gantt's cells for a Gantt ``width`` columns wide (lane names included); made
        once per width and state and shared by every caller, who reads it."""
        cells = max(width - LABEL_WIDTH - 1, 10)
        key = (cells, self.step_index, self.marker, self.window, self.ascii_mode)
        return self._charts.get(
            key,
            lambda: step_gantt(
                self.analysis, self.step_index, cells, self.marker, self.window, self.ascii_mode
            ),
        )

    def gantt(self, width: int, lane_height: int = 1) -> Text:
        """The Gantt ``width`` columns wide, each growing lane ``lane_height`` rows tall,
        then its time axis and its legend (a glyph per kind: readable under NO_COLOR)."""
        key = (width, lane_height, self.step_index, self.marker, self.window, self.ascii_mode)
        made = self._gantts.get(key, lambda: self._gantt(width, lane_height))
        return made.copy()  # the caller's own: a widget may restyle it

    def _gantt(self, width: int, lane_height: int) -> Text:
        chart = self.chart(width)
        text = Text(no_wrap=True, overflow="crop")
        more = ellipsis_mark(self.ascii_mode)
        glyphs = GANTT_ASCII if self.ascii_mode else {}
        for row in chart.rows:
            label = shorten(printable(row.label), LABEL_WIDTH, more)
            for line in range(lane_height if grows(row) else 1):
                text.append(f"{label if line == 0 else '':>{LABEL_WIDTH}} ", style="bold")
                for char, kind in zip(row.chars, row.kinds, strict=True):
                    text.append(char.translate(glyphs), style=self._style(kind))
                text.append("\n")
        text.append(" " * (LABEL_WIDTH + 1) + chart.axis.translate(glyphs) + "\n", style="dim")
        text.append(" " * (LABEL_WIDTH + 1))
        for label, kind, glyph in chart.legend:
            text.append(glyph.translate(glyphs), style=KIND_STYLES[kind])
            text.append(f" {label} ", style="dim")
        return self._text(text)  # range names come from the trace

    def _style(self, kind: str) -> str:
        if kind.startswith("range:"):
            return self.range_styles.get(kind[6:], RANGE_STYLES[0])
        return KIND_STYLES.get(kind, "")

    def column_widths(self, width: int) -> list[int]:
        """The findings list's cell widths in ``width`` columns: the numbers and the kind
        whole, the range (at most ``RANGE_WIDTH``) and the host call sharing what is left,
        each at least ``NAME_MIN`` (the detail under the list has them whole)."""
        rows = self._cells(RANGE_WIDTH, 10_000)
        titles = FINDING_COLUMNS
        widths = [max([len(title), *(len(row[i]) for row in rows)]) for i, title in enumerate(titles)]
        left = width - sum(w + CELL_PADDING for w in widths[:-2]) - 2 * CELL_PADDING - SCROLLBAR
        widths[-2] = max(NAME_MIN, min(widths[-2], left // 2))
        widths[-1] = max(NAME_MIN, min(widths[-1], left - widths[-2]))
        return widths

    def finding_rows(self, width: int = 10_000) -> list[tuple[str, ...]]:
        """The findings list's cells in a list ``width`` columns wide: short cells, the
        range and host call shortened to their columns."""
        widths = self.column_widths(width)
        return self._cells(widths[-2], widths[-1])

    def _cells(self, range_width: int, host_call_width: int) -> list[tuple[str, ...]]:
        more = ellipsis_mark(self.ascii_mode)
        rows = []
        for number, finding in enumerate(self.analysis.findings, start=1):
            cells = (
                str(number),
                seconds(finding.cost_per_step_s),
                f"{finding.share_of_step:.0%}",
                KIND_LABELS[finding.kind],
                shorten(printable(finding.range), range_width, more),
                shorten(printable(finding.host_call or "—"), host_call_width, more),
            )
            rows.append(tuple(ascii_safe(cell) if self.ascii_mode else cell for cell in cells))
        return rows

    def detail(self) -> Text:
        """The selected finding: title, where, host call, its numbers and its costliest place."""
        finding = self.selected
        if finding is None:
            return self._text(Text("No stalls found in this trace.", style="green"))
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
        return self._text(detail)

    def rows(self, width: int, height: int) -> ScreenRows:
        """How a ``width`` × ``height`` terminal's rows are shared. First what each part
        needs: the Gantt one row per lane with its axis and legend, the list its header and
        every finding, the detail its wrapped lines (at most ``DETAIL_MAX``). Rows left over
        make the growing lanes taller (up to ``MAX_LANE_HEIGHT`` rows), then go to the list;
        when rows are short, the detail and then the list give theirs up."""
        rows = self.chart(width - GANTT_PADDING).rows
        lanes, growing = len(rows), sum(grows(row) for row in rows)
        gantt = lanes + 2
        table = len(self.analysis.findings) + 1
        lines = self.detail().plain.splitlines()
        text_width = max(10, width - GANTT_PADDING)
        detail = min(DETAIL_MAX, sum(max(1, len(textwrap.wrap(line, text_width))) for line in lines))
        spare = height - FIXED_ROWS - gantt - table - detail
        if spare < 0:
            detail = max(1, detail + spare)
            spare = height - FIXED_ROWS - gantt - table - detail
        if spare < 0:
            table = max(TABLE_MIN, table + spare)
            spare = 0
        lane_height = 1 + min(MAX_LANE_HEIGHT - 1, spare // max(1, growing))
        gantt += (lane_height - 1) * growing
        table += spare - (lane_height - 1) * growing
        return ScreenRows(lane_height, gantt, table, detail)
