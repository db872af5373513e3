"""The explorer, headless: its state and what it shows, without Textual.

``ExplorerModel`` owns the view (``ViewState``: grouping, filter, sort, levels, roofs),
the selected row, the find (``/``, ``n``, ``N``), which panes are open, the zoom and
the roofline (``RooflineView``). Every key of the explorer is one method here; the
renderers give the header, the status line, the table's columns and page, the
detail pane's content and the roofline pane for a size. ``screens/explorer.py``
binds keys to these methods and puts what they return into widgets, so what the
explorer shows is checked in milliseconds, with no app started.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd
from rich.console import RenderableType

from rooftui.analysis import instruction_roofline
from rooftui.analysis.filters import KernelFilter
from rooftui.analysis.instruction_roofline import InstructionCeilings
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS, OPTIONAL_LEVELS
from rooftui.views.formats import counted, percent, seconds
from rooftui.views.summary import to_csv
from rooftui.views.text import ellipsis_mark, printable, short_names
from rooftui.views.tui.detail_text import describe
from rooftui.views.tui.format import MISSING, fit_items, fit_parts
from rooftui.views.tui.roofline_legend import Said, in_few_words
from rooftui.views.tui.roofline_model import ceilings_per_device
from rooftui.views.tui.roofline_view import RooflineInputs, RooflinePicture, RooflineView
from rooftui.views.tui.table_columns import TAG_WIDTH, Column, columns_for
from rooftui.views.tui.view_state import LoadedRun, ViewState, what_is_open

if TYPE_CHECKING:  # imported where used: only the summary and advise screens need them
    from rooftui.analysis.advise_run import Advice

# Below this many columns the explorer is narrow: the detail pane covers the table.
WIDE = 120


class SummaryTables(NamedTuple):
    """The summary screen's tables of the whole run (filters do not apply there)."""

    zero_ai: pd.DataFrame  # Table III
    phases: pd.DataFrame
    pipelines: pd.DataFrame
    ranks: list[tuple[str, ...]] | None  # one row per rank; None for a run of one rank


class ExplorerModel:
    """The explorer's state for one loaded run; see the module's docstring."""

    def __init__(
        self,
        run: LoadedRun,
        *,
        ascii_mode: bool = False,
        ceilings_files: object = None,
        sample: bool = False,
        filter_bar: bool = True,
    ) -> None:
        self.state = ViewState(run)
        self.ascii_mode = ascii_mode
        self.ceilings_files = ceilings_files  # --ceilings, as the header names them
        self.sample = sample  # the bundled sample was opened
        self.roofline = RooflineView(ascii_mode=ascii_mode)
        self.positions: np.ndarray = np.empty(0, dtype=np.int64)  # filtered rows of all_rows, in order
        self.cursor = 0  # the selected row, in table order
        # The find: what `/` looks for (`n` and `N` look again) and where it started.
        self.find_text = ""
        self.find_open = False
        self.find_from = 0
        self.detail_open = False
        self.filter_bar_shown = filter_bar
        self.zoomed = False
        self.legend_hidden: list[Said] = []  # what the roofline's legend could not show
        self._instruction_roofs: dict[str, InstructionCeilings] | None = None
        self._short_names: tuple[tuple[bool, int] | None, dict[str, str]] = (None, {})
        self._columns: dict[bool, tuple[Column, ...]] = {}  # per grouping (``columns``)
        # What the summary (`s`) and advise (`a`) screens show of the whole run: made on
        # the first open, kept for the next (the run does not change; 30-150 ms each)
        self._summary_tables: SummaryTables | None = None
        self._advice: Advice | None = None
        # The roofline's rows, with the rows and positions they were taken from (``plot_rows``).
        self._plotted: tuple[pd.DataFrame, np.ndarray, pd.DataFrame] | None = None
        self.refresh(keep=False)

    # --- what is shown ---------------------------------------------------------------

    @property
    def rows(self) -> pd.DataFrame:
        """The filtered rows in table order, every column (for export)."""
        return self.state.rows(self.positions)

    @property
    def columns(self) -> tuple[Column, ...]:
        """The table's columns (``table_columns``): data, so a view adds one by adding
        a ``Column``, not by changing a widget. Worked out once per row granularity (a
        run's ranks take a pass over its rows)."""
        grouped = self.state.grouped
        if grouped not in self._columns:
            self._columns[grouped] = columns_for(self.state.all_rows)
        return self._columns[grouped]

    @property
    def selected(self) -> pd.Series | None:
        """The selected row, every column; None when no row is shown."""
        if not len(self.positions):
            return None
        row: pd.Series = self.state.all_rows.iloc[int(self.positions[self.cursor])]
        return row

    def refresh(self, *, keep: bool = True) -> None:
        """Filter and sort again; the selected kernel stays selected if still shown
        (``keep``), else the top row is."""
        label = None if not keep or self.selected is None else self.selected.name
        self.positions = self.state.positions()
        self.cursor = 0
        if label is not None:
            location = self.state.all_rows.index.get_loc(label)
            if isinstance(location, int):
                matches = np.flatnonzero(self.positions == location)
                self.cursor = int(matches[0]) if len(matches) else 0

    def select(self, row: int) -> None:
        """Select the row at ``row`` (table order), kept in range."""
        self.cursor = max(0, min(len(self.positions) - 1, row))

    def select_kernel(self, kernel: Any) -> bool:
        """Select the row labelled ``kernel`` (a point on the roofline names one)."""
        rows = np.flatnonzero(self.positions == kernel)
        if not len(rows):
            return False
        self.cursor = int(rows[0])
        return True

    def select_name(self, name: str) -> bool:
        """Select the first shown row of kernel ``name`` (the advise screen's Enter)."""
        names = self.state.all_rows["name"].to_numpy()[self.positions]
        rows = np.flatnonzero(names == name)
        if not len(rows):
            return False
        self.cursor = int(rows[0])
        return True

    # --- the keys ----------------------------------------------------------------------

    def sort(self, column: str, descending: bool) -> None:
        """``[``/``]`` or a click on a header: a new order starts at its top row
        (after ``]`` that is the maximum)."""
        self.state.sort_column, self.state.sort_descending = column, descending
        self.refresh(keep=False)

    def set_filter(self, spec: KernelFilter) -> None:
        self.state.spec = spec
        self.refresh()

    def configure(
        self, *, spec: KernelFilter, grouped: bool, sort_column: str, sort_descending: bool
    ) -> None:
        """Set the whole view at once (``rooftui plot``)."""
        self.state.grouped = grouped
        self.state.sort_column, self.state.sort_descending = sort_column, sort_descending
        self.state.spec = spec
        self.refresh(keep=False)

    def toggle_grouped(self) -> None:
        """``g``: kernels grouped by name, or single invocations."""
        self.state.grouped = not self.state.grouped
        self.refresh(keep=False)

    def toggle_level(self, level: str) -> str:
        """``1``/``2``/``3``/``4``: a memory level on or off; returns what to tell the user."""
        self.state.toggle_level(level)
        rows = self.state.all_rows
        has = {lv: f"ai_{lv}" in rows and rows[f"ai_{lv}"].notna().any() for lv in OPTIONAL_LEVELS}
        collected = [lv for lv in LEVELS if has.get(lv, True)]  # SMEM only where the report has it
        shown = ", ".join(LEVEL_LABELS[lv] for lv in collected if lv in self.state.levels) or "none"
        return f"memory levels on the roofline: {shown}"

    def toggle_instruction(self) -> str:
        """``i``: the instruction roofline (warp instructions per second against warp
        instructions per transaction) or the FLOP roofline; returns what to tell the user."""
        self.state.instruction = not self.state.instruction
        if not self.state.instruction:
            return "FLOP roofline"
        return "instruction roofline: warp GIPS against warp instructions per transaction (i: FLOP)"

    def instruction_roofs(self) -> dict[str, InstructionCeilings]:
        """The instruction roofline's roofs of each GPU of the run, worked out once."""
        if self._instruction_roofs is None:
            run = self.state.run.source
            devices = getattr(run, "devices", [])
            self._instruction_roofs = {
                device: instruction_roofline.ceilings_for(run, device) for device in devices
            }
        return self._instruction_roofs

    def hide_pipelines(self, hidden: set[str]) -> None:
        """``p``'s dialog: the compute roofs not to draw."""
        self.state.hidden_pipelines = set(hidden)

    def toggle_detail(self) -> None:
        """``d``: the detail pane open or closed."""
        self.detail_open = not self.detail_open

    def toggle_filter_bar(self) -> None:
        """``F``: the filter bar shown or hidden."""
        self.filter_bar_shown = not self.filter_bar_shown

    def toggle_zoom(self) -> None:
        """``z``: the roofline alone on the screen, or back."""
        self.zoomed = not self.zoomed

    def escape(self, width: int) -> None:
        """``esc``: a find abandoned goes back where it started; on a narrow screen
        (``width`` columns) the detail pane, which covers the table, closes."""
        if self.find_open:
            self.cursor = self.find_from
            self.find_open = False
        elif width < WIDE and self.detail_open:
            self.detail_open = False

    def step_point(self, step: int) -> bool:
        """``.``/``,``: the next or previous point on the roofline, left to right; its
        kernel becomes the selected row."""
        point = self.roofline.step_point(step)
        return point is not None and self.select_kernel(point.kernel)

    def next_device(self) -> str | None:
        """``v``: the next GPU's roofline; returns what to tell the user, if anything."""
        return None if self.roofline.next_device() else "one GPU in this run"

    # --- find: jump to a kernel by name, as less does -----------------------------------

    def start_find(self) -> None:
        """``/``: an empty find, from the selected row."""
        self.find_open, self.find_from, self.find_text = True, self.cursor, ""

    def type_find(self, text: str) -> str | None:
        """Each key typed in the find: jump to the first match from where it started.
        Returns what to tell the user (no match), else None."""
        self.find_text = text
        return self.jump_to_match(self.find_from, 1) if text else None

    def submit_find(self) -> None:
        """``enter`` in the find: stay on the match."""
        self.find_open = False

    def find_next(self, direction: int) -> str | None:
        """``n`` (1) or ``N`` (-1): the next or previous match, wrapping around."""
        if not self.find_text:
            return "/ to find a kernel first"
        return self.jump_to_match(self.cursor + direction, direction)

    def jump_to_match(self, start: int, direction: int) -> str | None:
        """Select the first row from ``start`` on (wrapping) whose name holds the find
        text, ignoring case; say so when none does."""
        if not len(self.positions):
            return None
        names = self.state.all_rows["name"].to_numpy()[self.positions]
        found = np.flatnonzero(
            pd.Series(names).str.contains(self.find_text, case=False, regex=False).to_numpy()
        )
        if not len(found):
            return printable(f"no kernel shown matches {self.find_text!r}")
        start %= len(self.positions)
        if direction > 0:
            after = found[found >= start]
            row = after[0] if len(after) else found[0]  # past the last row: from the top
        else:
            before = found[found <= start]
            row = before[-1] if len(before) else found[-1]
        self.cursor = int(row)
        return None

    # --- renderers ---------------------------------------------------------------------

    def header(self, width: int) -> str:
        """The top line: reports, GPUs, ceilings, bundled sample, in ``width`` columns."""
        return what_is_open(self.state.run, self.ceilings_files, self.sample, width)

    def status_line(self, width: int) -> str:
        """Counts, time, zero-AI launches, sort and filter state, and what the legend had
        no room for, in ``width`` columns. The zero-AI launches always stay, counted as
        the legend and Table III count them; when narrow, the totals go first, then the
        words around the counts."""
        state = self.state
        total = state.totals(self.positions)
        whole = state.run.invocations
        if state.spec.rank is not None:  # a share of that rank's time, as the table's %rank
            whole = whole[whole["rank"].astype(str) == state.spec.rank]
        run_time = float(whole["time_s"].sum())
        share = total.time_s / run_time if run_time else 0.0
        zero_share = total.zero_ai_time_s / total.time_s if total.time_s else 0.0
        sorted_by = next((c.label for c in self.columns if c.key == state.sort_column), state.sort_column)
        arrow = "▼" if state.sort_descending else "▲"
        launches, kernels = counted(total.invocations, "launch"), counted(total.rows, "kernel")
        zero = f"0-AI: {counted(total.zero_ai_invocations, 'launch')}"
        shown_long, shown_short = (f"{kernels}, {launches}", kernels) if state.grouped else (launches,) * 2
        variants = [
            (shown_long, f"{zero} ({percent(zero_share, missing=MISSING)} time)"),
            (shown_long, zero),
            (shown_short, zero),
        ]
        separator = " | " if self.ascii_mode else " · "
        fitted: list[tuple[int, int, str]] = []  # (legend part's length, -variant, line)
        for index, (shown, zero_part) in enumerate(variants):
            parts = [
                (0, shown),
                (2, f"{seconds(total.time_s, missing=MISSING)} ({percent(share, missing=MISSING)})"),
                (0, zero_part),
                (0, f"by {sorted_by}{arrow}"),
            ]
            if state.spec.rank is not None:
                parts.append((0, f"rank {state.spec.rank} only"))
            if not state.spec.is_empty:
                parts.append((0, "filtered"))
            legend = ""
            if self.legend_hidden:
                # What the roofline's legend had no room for, in the room the rest leaves.
                room = width - len(separator.join(text for rank, text in parts if rank == 0) + separator)
                legend = fit_items("legend full: ", in_few_words(self.legend_hidden), room)
                if not legend.startswith("legend full: "):  # not one item named: count the roofs
                    legend = fit_items("legend full: ", in_few_words(self.legend_hidden, True), room)
                parts.append((1, legend))
            line = fit_parts(parts, width, separator)
            fitted.append((len(legend) if legend and legend in line else 0, -index, line))
        # The variant that keeps most of what the legend hands over, then the most words.
        return max(fitted)[2]

    def table_page(self, first: int, count: int, name_width: int) -> list[tuple[str, ...]]:
        """The table's cells of rows ``first`` to ``first + count`` (table order), as the
        kernel table draws them: the name column holds the row's roofline tag and its
        name shortened to what tells it from the others in ``name_width`` columns; the
        others as their ``Column`` formats, "–" where the run has no such column."""
        columns = self.columns
        window = self.positions[first : first + count]
        keys = [c.key for c in columns] + [c.also for c in columns if c.also]
        present = [key for key in dict.fromkeys(keys) if key in self.state.all_rows]
        values = [self.state.column_values(key, window) for key in present]
        records = [dict(zip(present, row)) for row in zip(*values)] if present else [{} for _ in window]
        rows = [tuple(c.cell(record) if c.key in record else "–" for c in columns) for record in records]
        if "name" not in present:
            return rows
        tags = self.state.tags()  # whether or not the plot found them room
        shown = self.shown_names(name_width)
        return [
            (
                tags.get(int(position), "").ljust(TAG_WIDTH) + shown.get(record["name"], record["name"]),
                *row[1:],
            )
            for position, record, row in zip(window, records, rows)
        ]

    def shown_names(self, name_width: int) -> dict[str, str]:
        """Each kernel name of the table shortened to what tells it from the others in a
        name column ``name_width`` wide (its tag takes the first columns); the last width
        asked for is kept, as the table asks page after page at one width."""
        key = (self.state.grouped, name_width)
        if self._short_names[0] != key:
            names = self.state.all_rows["name"].unique()
            more = ellipsis_mark(self.ascii_mode)
            self._short_names = (key, short_names(names, name_width - TAG_WIDTH, more))
        return self._short_names[1]

    def table_csv(self) -> tuple[str, int]:
        """The filtered table in table order as CSV, in ``rooftui summary --format csv``'s
        layout (the one CSV layout of the kernel table), and its number of rows. Single
        launches leave out the table's count of 1 per launch, as summary does."""
        rows = self.rows
        if not self.state.grouped:
            rows = rows.drop(columns=["count"], errors="ignore")
        return to_csv(rows), len(rows)

    def summary_tables(self) -> SummaryTables:
        """The summary screen's tables: Table III, time per phase and per pipeline, and
        with several ranks one row per rank (as ``rooftui summary`` prints them)."""
        if self._summary_tables is None:
            from rooftui.analysis.summary import phase_table, pipeline_table, zero_ai_table
            from rooftui.views.summary import rank_rows
            from rooftui.views.tui.table_columns import ranks_of

            kernels = self.state.run.invocations
            ranks = rank_rows(self.state.run.source) if len(ranks_of(kernels)) > 1 else None
            self._summary_tables = SummaryTables(
                zero_ai_table(kernels), phase_table(kernels), pipeline_table(kernels), ranks
            )
        return self._summary_tables

    def advice(self) -> Advice:
        """``rooftui advise``'s step budget and findings for the run (the advise screen)."""
        if self._advice is None:
            from rooftui.analysis.advise_run import advise

            self._advice = advise(self.state.run.source)
        return self._advice

    def ceilings_of(self, row: pd.Series) -> CeilingSet:
        """The ceilings of the GPU ``row`` ran on: its headroom and binding roofs are
        against its own GPU's roofs, not the first GPU's."""
        run = self.state.run.source
        device = row.get("device")
        if device is not None and hasattr(run, "ceilings_for"):
            try:
                ceilings: CeilingSet = run.ceilings_for(str(device))
                return ceilings
            except KeyError:
                pass
        return self.state.run.ceilings

    def detail(self, width: int = 80) -> RenderableType | None:
        """The detail pane's content for the selected row, laid out for ``width``
        columns; None when no row is selected."""
        row = self.selected
        if row is None:
            return None
        metrics = self.state.run.launch_metrics(row)
        return describe(row, self.ceilings_of(row), metrics, self.ascii_mode, width)

    def roofline_content(self) -> tuple[Any, ...]:
        """What the roofline depends on but for the selection (and the order of rows)."""
        state = self.state
        return (
            state.grouped,
            state.spec,
            tuple(state.levels),
            frozenset(state.hidden_pipelines),
            state.instruction,
        )

    def roofline_key(self) -> tuple[Any, ...]:
        """What the roofline shows depends on: ``roofline_content`` and the selected
        kernel. A move that leaves it the same (a sort) needs no redraw."""
        selected = self.selected
        return (*self.roofline_content(), None if selected is None else selected.name)

    def update_roofline(self) -> None:
        """Give the roofline the shown rows, levels, roofs and the selected kernel."""
        state = self.state
        self.roofline.show(
            RooflineInputs(
                self.plot_rows(),
                state.run.ceilings,
                tuple(state.levels),
                tuple(state.shown_pipelines()),
                self.selected,
                self.instruction_roofs() if state.instruction else None,
                state.tags(),
            ),
            ceilings_per_device(state.run.source),
        )

    def plot_rows(self) -> pd.DataFrame:
        """The roofline's rows (``ViewState.plot_rows``): the same frame while the rows
        shown and their order are, so the roofline keeps what it laid out for it."""
        rows, positions = self.state.all_rows, self.positions
        kept = self._plotted
        if kept is None or kept[0] is not rows or not np.array_equal(kept[1], positions):
            kept = self._plotted = (rows, positions.copy(), self.state.plot_rows(positions))
        return kept[2]

    def roofline_picture(self, width: int, height: int) -> RooflinePicture | None:
        """The roofline pane at ``width`` × ``height`` (plot and legend); what the
        legend could not say goes to the status line."""
        picture = self.roofline.picture(width, height, self.state.grouped)
        if picture is not None:
            self.legend_hidden = picture.overflow
        return picture
