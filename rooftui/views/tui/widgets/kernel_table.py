"""A virtualised kernel table: a ScrollView that draws only the rows on screen.

Textual's DataTable builds every row up front (~14 s at 100k rows); this widget
keeps the pandas frame and renders a line at a time in ``render_line``, so first
paint and scrolling cost the same at 10 rows or 100,000. What a cell says is the
explorer model's (``ExplorerModel.table_page``, handed over as ``show_rows``' ``page``):
the widget lays the cells out, fits them to their columns and colours them. Sorting
and filtering belong to the screen (see ``rooftui.analysis.filters``): the table
shows the frame it is given and asks for a sort with a message.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rooftui.views.text import ellipsis_mark, shorten
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.table_columns import (
    COLUMNS,
    DEFAULT_SORT,
    GAP,
    NAME_MAX_WIDTH,
    NAME_MIN_WIDTH,
    TAG_WIDTH,
    Column,
    columns_for,
    name_column_width,
)

# The cells of ``count`` rows from row ``first`` (table order) with the name column
# ``name_width`` wide: ``ExplorerModel.table_page``.
Page = Callable[[int, int, int], list[tuple[str, ...]]]


def _fit(text: str, width: int, right: bool, ellipsis: str = "…") -> str:
    """``text`` padded to ``width``; text too long is cut with ``ellipsis``, but a
    number (right-aligned) never is: like a spreadsheet it shows ``###`` instead."""
    if len(text) > width:
        return "#" * width if right else shorten(text, width, ellipsis)
    return text.rjust(width) if right else text.ljust(width)


class KernelTable(ScrollView, can_focus=True):
    """One row per kernel (or kernel name, when grouped); the first column stays put."""

    COMPONENT_CLASSES = {
        "kernel-table--header",
        "kernel-table--cursor",
        "kernel-table--sorted",
        "kernel-table--column-cursor",
        "kernel-table--odd",
    }
    BINDINGS = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "edge(0)", "first", show=False),
        Binding("end", "edge(1)", "last", show=False),
        Binding("left", "column(-1)", "column left", show=False),
        Binding("right", "column(1)", "column right", show=False),
        Binding("left_square_bracket", "sort(False)", "sort ascending", show=False),
        Binding("right_square_bracket", "sort(True)", "sort descending", show=False),
        Binding("enter", "choose", "details", show=False),
    ]

    cursor_row: reactive[int] = reactive(0, repaint=False)  # its watcher repaints what changed
    cursor_column: reactive[int] = reactive(0)

    class RowHighlighted(Message):
        """The cursor moved to ``row`` (``None`` when the table is empty)."""

        def __init__(self, row: pd.Series | None) -> None:
            super().__init__()
            self.row = row

    class RowChosen(Message):
        """Enter on a row: show its details."""

        def __init__(self, row: pd.Series) -> None:
            super().__init__()
            self.row = row

    class SortRequested(Message):
        def __init__(self, column: str, descending: bool) -> None:
            super().__init__()
            self.column = column
            self.descending = descending

    def __init__(self, *, ascii_mode: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii_mode = ascii_mode
        self.columns: tuple[Column, ...] = COLUMNS  # with a rank column when the run holds several ranks
        self.frame = pd.DataFrame()  # every row; ``positions`` picks and orders them
        self.positions = np.empty(0, dtype=np.int64)
        self._page: Page | None = None  # the rows' cells, from the model (``show_rows``)
        self.sort_column = DEFAULT_SORT  # the screen passes the model's with every show_rows
        self.sort_descending = True
        # The cells of rows start:stop at the name width they were made for.
        self._window: tuple[int, int, int, list[tuple[str, ...]]] = (0, 0, 0, [])
        self._longest_name = NAME_MAX_WIDTH
        self._scrolling_width = sum(c.width + GAP for c in self.columns[1:])
        self.virtual_size = Size(NAME_MIN_WIDTH + GAP + self._scrolling_width, 1)

    # --- what the screen calls -------------------------------------------------

    def show_rows(
        self,
        frame: pd.DataFrame,
        positions: np.ndarray,
        sort_column: str,
        descending: bool,
        cursor: int = 0,
        *,
        page: Page,
    ) -> None:
        """Show ``frame.iloc[positions]`` (already filtered and sorted) without copying
        it, with the cursor on row ``cursor`` (the explorer model's selection); ``page``
        gives the cells of the rows on screen."""
        if frame is not self.frame:
            names = frame["name"].unique() if "name" in frame else []
            self._longest_name = max((len(str(name)) for name in names), default=0)
            self.columns = columns_for(frame)
            self._scrolling_width = sum(c.width + GAP for c in self.columns[1:])
            self.cursor_column = min(self.cursor_column, len(self.columns) - 1)
        self.frame, self.positions = frame, positions
        self.sort_column, self.sort_descending = sort_column, descending
        self._page = page
        self._window = (0, 0, 0, [])
        self._size_virtually()
        self.set_reactive(KernelTable.cursor_row, max(0, min(cursor, len(positions) - 1)))
        self._scroll_cursor_into_view()
        self.refresh()
        self.post_message(self.RowHighlighted(self.current_row))

    @property
    def name_width(self) -> int:
        return name_column_width(self.columns, self.scrollable_content_region.width, self._longest_name)

    def _size_virtually(self) -> None:
        self.virtual_size = Size(self.name_width + GAP + self._scrolling_width, len(self.positions) + 1)

    def on_resize(self) -> None:
        self._window = (0, 0, 0, [])  # names are shortened to the column's new width
        self._size_virtually()

    def column_offset(self, index: int) -> int:
        """Where column ``index`` starts on screen, at the current horizontal scroll."""
        if index == 0:
            return 0
        start = sum(c.width + GAP for c in self.columns[1:index])
        return self.name_width + GAP + start - int(self.scroll_x)

    @property
    def current_row(self) -> pd.Series | None:
        if not len(self.positions):
            return None
        return self.frame.iloc[int(self.positions[self.cursor_row])]

    @property
    def current_column(self) -> Column:
        return self.columns[self.cursor_column]

    # --- cursor ------------------------------------------------------------------

    def _page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_move(self, delta: int) -> None:
        self.cursor_row = max(0, min(len(self.positions) - 1, self.cursor_row + delta))

    def action_page(self, direction: int) -> None:
        self.action_move(direction * self._page_rows())

    def action_edge(self, end: int) -> None:
        self.cursor_row = max(0, len(self.positions) - 1) if end else 0

    def action_column(self, delta: int) -> None:
        self.cursor_column = max(0, min(len(self.columns) - 1, self.cursor_column + delta))

    def action_sort(self, descending: bool) -> None:
        self.post_message(self.SortRequested(self.current_column.key, descending))

    def action_choose(self) -> None:
        if self.current_row is not None:
            self.post_message(self.RowChosen(self.current_row))

    def watch_cursor_row(self, old: int, new: int) -> None:
        top = self.scroll_y
        self._scroll_cursor_into_view()
        if self.scroll_y == top:
            # only the rows the cursor left and reached look different (line 0 is the header)
            self.refresh_line(old + 1)
            self.refresh_line(new + 1)
        else:
            self.refresh()
        if old != new:
            self.post_message(self.RowHighlighted(self.current_row))

    def watch_cursor_column(self) -> None:
        start = sum(c.width + GAP for c in self.columns[1 : self.cursor_column])
        if self.cursor_column > 0:
            width = self.columns[self.cursor_column].width + GAP
            visible = self.scrollable_content_region.width - self.name_width - GAP
            if start < self.scroll_x:
                self.scroll_to(x=start, animate=False)
            elif start + width > self.scroll_x + visible:
                self.scroll_to(x=start + width - visible, animate=False)
        self.refresh()

    def _scroll_cursor_into_view(self) -> None:
        height = self._page_rows()
        top = self.scroll_y
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + height:
            self.scroll_to(y=self.cursor_row - height + 1, animate=False)

    # --- mouse ---------------------------------------------------------------------

    def _column_at(self, x: int) -> int | None:
        edge = self.name_width + GAP
        if x < edge:
            return 0
        x += int(self.scroll_x) - edge
        for index, column in enumerate(self.columns[1:], start=1):
            if x < column.width + GAP:
                return index
            x -= column.width + GAP
        return None

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        column = self._column_at(offset.x)
        if offset.y == 0:
            if column is not None:
                key = self.columns[column].key
                # Clicking the sorted column flips it; a new column starts heaviest first.
                descending = not self.sort_descending if key == self.sort_column else key != "name"
                self.cursor_column = column
                self.post_message(self.SortRequested(key, descending))
            return
        row = int(self.scroll_y) + offset.y - 1
        if 0 <= row < len(self.positions):
            self.cursor_row = row
            if column is not None:
                self.cursor_column = column

    # --- rendering -------------------------------------------------------------------

    def _rows(self, start: int, stop: int) -> list[tuple[str, ...]]:
        """The cells of rows ``start:stop`` as the model gives them, cached while the
        view stays put."""
        cached_start, cached_stop, name_width, rows = self._window
        # A page that reaches past the last row asks no more than there are: asked for
        # as is, it missed the cache on every line at the table's end.
        stop = min(len(self.positions), stop)
        # Names are shortened to the name column's width: a scrollbar that comes or
        # goes changes that width without a resize event.
        if cached_start <= start and stop <= cached_stop and name_width == self.name_width:
            return rows[start - cached_start : stop - cached_start]
        if self._page is None:  # no rows shown yet
            return []
        stop = min(len(self.positions), stop + 64)  # read ahead for scrolling
        rows = self._page(start, stop - start, self.name_width)
        self._window = (start, stop, self.name_width, rows)
        return rows

    def _header_cells(self) -> list[str]:
        up, down = ("^", "v") if self.ascii_mode else ("▲", "▼")
        cells = []
        for column in self.columns:
            label = " " * TAG_WIDTH + column.label if column.key == "name" else column.label
            if column.key == self.sort_column:
                label += down if self.sort_descending else up
            cells.append(label)
        return cells

    def _line(self, cells: list[str] | tuple, styles: list[Style], width: int) -> Strip:
        """One line: the name column, then the other columns from ``scroll_x`` on.
        A column that does not fit whole on screen is left blank, never cut: a
        number missing its first or last digits reads as another number."""
        if self.ascii_mode:
            cells = [ascii_safe(cell) for cell in cells]
        more = ellipsis_mark(self.ascii_mode)
        segments = [Segment(_fit(cells[0], self.name_width, False, more) + " " * GAP, styles[0])]
        left = int(self.scroll_x)
        right = left + width - self.name_width - GAP
        start = 0
        for cell, column, style in zip(cells[1:], self.columns[1:], styles[1:], strict=True):
            stop = start + column.width + GAP
            shown = max(start, left), min(stop, right)
            if shown[0] < shown[1]:
                whole = left <= start and start + column.width <= right
                text = _fit(cell, column.width, column.right, more) if whole else " " * column.width
                text += " " * GAP
                segments.append(Segment(text[shown[0] - start : shown[1] - start], style))
            start = stop
        return Strip(segments).crop_extend(0, width, styles[0])

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            header = self.get_component_rich_style("kernel-table--header")
            sorted_style = self.get_component_rich_style("kernel-table--sorted")
            column_cursor = self.get_component_rich_style("kernel-table--column-cursor")
            styles = []
            for index, column in enumerate(self.columns):
                style = base + header
                if column.key == self.sort_column:
                    style += sorted_style
                if index == self.cursor_column and self.has_focus:
                    style += column_cursor
                styles.append(style)
            return self._line(self._header_cells(), styles, width)
        index = int(self.scroll_y) + y - 1
        if index >= len(self.positions):
            return Strip.blank(width, base)
        start = int(self.scroll_y)
        cells = self._rows(start, start + self.scrollable_content_region.height)[index - start]
        style = base
        if index % 2:
            style += self.get_component_rich_style("kernel-table--odd")
        if index == self.cursor_row:
            style += self.get_component_rich_style("kernel-table--cursor")
        return self._line(cells, [style] * len(self.columns), width)
