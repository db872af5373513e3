"""The character-cell canvas a roofline is drawn on — no Textual: coordinates, points,
lines (braille 2×4 dots per cell, or one ASCII character per cell), labels placed where
they hide nothing, and the axes. ``roofline_layout`` decides what is drawn on it and in
which order.

Every cell records what it shows (a line, a point, a label, the axes) and whose it is (a
roof's key, a level, a kernel's tag) in a ``Layout``, so the widget only colours the
cells and tests can check the picture cell by cell.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from rooftui.views.tui.roofline_glyphs import BRAILLE, DOTS, PATTERNS, Glyphs
from rooftui.views.tui.roofline_model import Roof, RooflineFigure

Cell = tuple[int, int]  # (row, column)

# Where a kernel's tag goes, from its point: beside it, else a cell further out.
TAG_NEXT = ((0, 1), (0, -1), (-1, 0), (1, 0), (-1, 1), (1, 1), (-1, -1), (1, -1))
TAG_NEAR = tuple(
    sorted(
        ((dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if max(abs(dr), abs(dc)) == 2),
        key=lambda d: (abs(d[0]), -d[1]),
    )
)

MARGIN_MIN = 7  # the y-axis title ("FLOP/s") and the axis column
TALL = 16  # from this many rows: an axis line and the x title on its own row


@dataclass(frozen=True)
class Label:
    text: str
    row: int
    col: int
    series: str  # the roof key it names, or "tag"
    kernel: object = None  # for a tag: the kernel's row label


@dataclass(frozen=True)
class PointCell:
    row: int
    col: int
    level: str
    kernel: object  # row label in the plotted frame


@dataclass
class Layout:
    width: int
    height: int
    plot: tuple[int, int, int, int]  # left, top, columns, rows of the plot area
    chars: list[list[str]]
    kinds: list[list[str]]  # "" | "line" | "point" | "label" | "axis" | "tick" | "title"
    owners: list[list[str]]  # per cell: roof key, level, "selected", "tag" ...
    styles: list[list[str]]  # per cell: what the widget colours it as
    line_series: dict[tuple[int, int], set[str]] = field(default_factory=dict)
    labels: list[Label] = field(default_factory=list)
    points: list[PointCell] = field(default_factory=list)  # the point on top in each cell
    # Every kernel's point, hidden or not, left to right: what `.` and `,` step through. Its
    # order does not depend on which kernel is drawn on top (the selected one), so a step and
    # its reverse come back to the same point.
    stops: list[PointCell] = field(default_factory=list)
    labelled: set[str] = field(default_factory=set)  # roofs whose full label is drawn
    # The kinds and owners of the cells before any label was placed (``before_labels``).
    kinds_before_labels: list[list[str]] = field(default_factory=list)
    owners_before_labels: list[list[str]] = field(default_factory=list)

    @cached_property
    def before_labels(self) -> list[list[tuple[str, str]]]:
        """What each cell held before any label was placed: (kind, owner), for checks
        (paired when first asked: a layout is drawn far more often than checked)."""
        return [
            list(zip(kinds, owners))
            for kinds, owners in zip(self.kinds_before_labels, self.owners_before_labels)
        ]

    def point_near(self, col: int, row: int) -> PointCell | None:
        """The point drawn at (col, row), else the nearest one a cell away."""
        best, best_distance = None, 2
        for point in self.points:
            distance = max(abs(point.col - col), abs(point.row - row))
            if distance < best_distance:
                best, best_distance = point, distance
        return best

    def text_rows(self) -> list[str]:
        return ["".join(row) for row in self.chars]


_DOTS = np.array(DOTS)  # braille dot bits by (row % 4, column % 2) within a cell


@functools.cache
def _dashes(pattern: str, count: int) -> np.ndarray:
    """Whether each of the first ``count`` half-dot steps of a ``pattern`` line is drawn."""
    on = PATTERNS[pattern]
    return np.array([bool(on(i)) for i in range(count)])


class Canvas:
    """A figure's cells being drawn: ``layout`` holds them; ``bits`` the braille dots
    of the lines in each cell."""

    def __init__(self, figure: RooflineFigure, width: int, height: int, glyphs: Glyphs, title: str):
        self.figure, self.glyphs = figure, glyphs
        self.width, self.height = width, height
        self.y_labels = [(y, label) for y, label in figure.y_ticks]
        margin = max(MARGIN_MIN, max((len(label) for _, label in self.y_labels), default=0) + 1)
        top = 1 if title else 0
        bottom = 3 if height >= TALL else 1
        self.left, self.top = margin, top
        self.cols = max(1, width - margin)
        self.rows = max(1, height - top - bottom)
        self.layout = Layout(
            width,
            height,
            (margin, top, self.cols, self.rows),
            [[" "] * width for _ in range(height)],
            [[""] * width for _ in range(height)],
            [[""] * width for _ in range(height)],
            [[""] * width for _ in range(height)],
        )
        self.bits: dict[tuple[int, int], int] = {}  # per cell: the braille dots of every line in it
        self.title = title

    # --- coordinates -------------------------------------------------------------

    def fx(self, x: float) -> float:
        """log10 AI -> fractional plot column."""
        lo, hi = self.figure.x_range
        return (x - lo) / (hi - lo) * self.cols

    def fy(self, y: float) -> float:
        """log10 FLOP/s -> fractional plot row, 0 at the top."""
        lo, hi = self.figure.y_range
        return (hi - y) / (hi - lo) * self.rows

    def cell(self, x: float, y: float) -> tuple[int, int]:
        """(row, column) on screen of a point, kept inside the plot area."""
        col = min(self.cols - 1, max(0, math.floor(self.fx(x))))
        row = min(self.rows - 1, max(0, math.floor(self.fy(y))))
        return self.top + row, self.left + col

    def cells(self, xs: np.ndarray, ys: np.ndarray) -> tuple[list[int], list[int]]:
        """The rows and columns ``cell`` gives each point of ``xs`` and ``ys`` (the same
        arithmetic, element by element)."""
        (x_lo, x_hi), (y_lo, y_hi) = self.figure.x_range, self.figure.y_range
        cols = np.floor((np.asarray(xs, dtype=float) - x_lo) / (x_hi - x_lo) * self.cols)
        rows = np.floor((y_hi - np.asarray(ys, dtype=float)) / (y_hi - y_lo) * self.rows)
        cols = np.minimum(self.cols - 1, np.maximum(0, cols)).astype(np.int64) + self.left
        rows = np.minimum(self.rows - 1, np.maximum(0, rows)).astype(np.int64) + self.top
        return rows.tolist(), cols.tolist()

    def put(self, row: int, col: int, char: str, kind: str, owner: str, style: str) -> None:
        layout = self.layout
        layout.chars[row][col] = char
        layout.kinds[row][col] = kind
        layout.owners[row][col] = owner
        layout.styles[row][col] = style

    # --- lines ---------------------------------------------------------------------

    def line(
        self,
        xs: tuple[float, float],
        ys: tuple[float, float],
        series: str,
        pattern: str,
        char: str,
        style: str,
    ) -> None:
        """A straight segment in log space, dashed by ``pattern``: stepped half a dot at
        a time, a dot drawn where its step is on a dash (``PATTERNS``); a cell's dots are
        reached one after another, so the line is drawn cell by cell."""
        ascii_mode = self.glyphs.ascii
        sub_x, sub_y = (1, 1) if ascii_mode else (2, 4)
        x0, x1 = self.fx(xs[0]) * sub_x, self.fx(xs[1]) * sub_x
        y0, y1 = self.fy(ys[0]) * sub_y, self.fy(ys[1]) * sub_y
        dx, dy = x1 - x0, y1 - y0
        steps = max(1, math.ceil(max(abs(dx), abs(dy)) * 2))
        k = np.arange(steps + 1)
        t = k / steps
        px = np.minimum(np.floor(x0 + dx * t), self.cols * sub_x - 1)
        py = np.minimum(np.floor(y0 + dy * t), self.rows * sub_y - 1)
        inside = (px >= 0) & (py >= 0)
        drawn = _dashes(pattern, steps // 2 + 1)[k // 2][inside]
        px, py = px[inside].astype(np.int64), py[inside].astype(np.int64)
        if not px.size:
            return
        rows, cols = self.top + py // sub_y, self.left + px // sub_x
        starts = np.flatnonzero(np.r_[True, (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])])
        cell_drawn = np.logical_or.reduceat(drawn, starts).tolist()
        cell_dots = np.bitwise_or.reduceat(np.where(drawn, _DOTS[py % 4, px % 2], 0), starts).tolist()
        layout, bits = self.layout, self.bits
        chars, kinds, owners, styles = layout.chars, layout.kinds, layout.owners, layout.styles
        line_series = layout.line_series
        cells = zip(rows[starts].tolist(), cols[starts].tolist(), cell_drawn, cell_dots)
        for row, col, any_drawn, dots in cells:
            kinds_row = kinds[row]
            if kinds_row[col] == "point":  # lines pass behind points
                continue
            # The gaps of a dashed line are still its path: no label goes there. A cell's
            # set is replaced, never changed, so a copy of the dict can be drawn on (Layers).
            cell = (row, col)
            on_cell = line_series.get(cell)
            if on_cell is None:
                line_series[cell] = {series}
            elif series not in on_cell:
                line_series[cell] = on_cell | {series}
            if not any_drawn:
                continue
            if ascii_mode:
                chars[row][col] = char
            else:
                dots = bits[cell] = bits.get(cell, 0) | dots
                chars[row][col] = chr(BRAILLE | dots)
            kinds_row[col] = "line"  # as ``put`` would
            owners[row][col] = series
            styles[row][col] = style

    # --- labels --------------------------------------------------------------------

    def free(self, row: int, col: int, text: str, series: str) -> bool:
        """Whether ``text`` fits at (row, col) over nothing but blank cells and
        ``series``' own line, with a blank cell or a line on either side."""
        if row < self.top or row >= self.top + self.rows:
            return False
        if col < self.left or col + len(text) > self.left + self.cols:
            return False
        layout = self.layout
        for c in range(col, col + len(text)):
            if not layout.line_series.get((row, c), set()) <= {series}:
                return False
            if layout.kinds[row][c] not in ("", "line"):
                return False
        for c in (col - 1, col + len(text)):
            if self.left <= c < self.left + self.cols and layout.kinds[row][c] in ("label", "point"):
                return False
        return True

    def label(self, row: int, col: int, text: str, series: str, style: str, kernel=None) -> None:
        for i, char in enumerate(text):
            self.put(row, col + i, char, "label", series, style)
        self.layout.labels.append(Label(text, row, col, series, kernel))

    def roof_label(self, roof: Roof, texts: list[str]) -> bool:
        """A compute roof's label on its line, else just above or below, as far right
        as it fits; returns whether one of ``texts`` found a place."""
        row, start = self.cell(roof.xs[0], roof.ys[0])
        _, end = self.cell(roof.xs[1], roof.ys[1])
        for text in texts:
            for r in (row, row - 1, row + 1):
                for col in range(end - len(text) + 1, start - 1, -1):
                    if self.free(r, col, text, roof.key):
                        self.label(r, col, text, roof.key, "roof-label")
                        return text == texts[0]
        return False

    def wall_label(self, roof: Roof, text: str) -> bool:
        """A vertical wall's label beside its top, right of it else left of it."""
        top, col = self.cell(roof.xs[0], roof.ys[0])
        for r in range(top, min(top + 4, self.top + self.rows)):
            for c in (col + 1, col - len(text)):
                if self.free(r, c, text, roof.key):
                    self.label(r, c, text, roof.key, "roof-label")
                    return True
        return False

    def slope_label(self, roof: Roof, texts: list[str]) -> bool:
        """A slope's label just left of it (between it and the faster level's
        slope), else just right of it, on a row it crosses, from the middle out."""
        cells = sorted(cell for cell, owners in self.layout.line_series.items() if roof.key in owners)
        rows = sorted({r for r, _ in cells})
        if not rows:
            return False
        middle = len(rows) // 2
        order = sorted(rows, key=lambda r: (abs(rows.index(r) - middle), r))
        for text in texts:
            for r in order:
                cols = [c for rr, c in cells if rr == r]
                for col in (min(cols) - len(text), max(cols) + 1):
                    if self.free(r, col, text, roof.key):
                        self.label(r, col, text, roof.key, f"slope-label:{roof.key}")
                        return text == texts[0]
        return False

    def tag(self, tag: str, cells: list[tuple[int, int]], kernel) -> bool:
        """``tag`` beside one of its kernel's points (``cells``): next to it, else a cell
        further out (a crowded plot); returns whether it found a place."""
        for offsets in (TAG_NEXT, TAG_NEAR):
            for row, col in cells:
                for dr, dc in offsets:
                    r, c = row + dr, col + dc
                    if self.free(r, c, tag, "tag") and not self.layout.kinds[r][c]:
                        self.label(r, c, tag, "tag", "tag", kernel)
                        return True
        return False

    # --- axes ----------------------------------------------------------------------

    def axes(self) -> None:
        glyphs = self.glyphs
        axis_col = self.left - 1
        for r in range(self.top, self.top + self.rows):
            self.put(r, axis_col, glyphs.axis["v"], "axis", "axis", "axis")
        # y ticks: every decade that has its own row, thinned so labels keep a row apart.
        ticks = [(self.top + math.floor(self.fy(y)), label) for y, label in self.y_labels]
        first = self.top + (0 if self.title else 1)  # row 0 holds the y title
        ticks = [(r, label) for r, label in ticks if first <= r < self.top + self.rows]
        step = 1
        while any(abs(b[0] - a[0]) < 2 for a, b in zip(ticks[::-1][::step], ticks[::-1][step::step])):
            step += 1
        for r, label in ticks[::-1][::step]:
            self.put(r, axis_col, glyphs.axis["ytick"], "axis", "axis", "axis")
            for i, char in enumerate(label.rjust(axis_col)):
                if char != " ":
                    self.put(r, i, char, "tick", "axis", "tick")
        # The y title: top left, above the tick labels.
        title_row = 0
        for i, char in enumerate(glyphs.y_title[: self.left]):
            self.put(title_row, i, char, "title", "axis", "title")
        if self.title:
            for i, char in enumerate(self.title[: self.width - self.left]):
                self.put(0, self.left + i, char, "title", "axis", "device-title")
        # x axis: a line with ticks, labels below it and the title on its own row
        # when tall enough; else labels and a short title share the last row.
        bottom = self.top + self.rows
        tall = self.height >= TALL
        label_row = bottom + 1 if tall else bottom
        if tall:
            self.put(bottom, axis_col, glyphs.axis["corner"], "axis", "axis", "axis")
            for c in range(self.left, self.width):
                self.put(bottom, c, glyphs.axis["h"], "axis", "axis", "axis")
            title = glyphs.x_title if len(glyphs.x_title) <= self.cols else glyphs.x_title_short
            start = self.left + max(0, (self.cols - len(title)) // 2)
            for i, char in enumerate(title[: self.width - start]):
                self.put(bottom + 2, start + i, char, "title", "axis", "title")
            reserved = self.width
        else:
            title = glyphs.x_title_short
            reserved = max(self.left, self.width - len(title))
            for i, char in enumerate(title[: self.width - reserved]):
                self.put(label_row, reserved + i, char, "title", "axis", "title")
        placed = [
            (self.left + math.floor(min(self.fx(x), self.cols - 1)), label)
            for x, label in self.figure.x_ticks
        ]
        spans = [(c - len(label) // 2, label, c) for c, label in placed]
        spans = [span for span in spans if span[0] >= 0 and span[0] + len(span[1]) < reserved - 1]
        step = 1
        while any(b[0] <= a[0] + len(a[1]) for a, b in zip(spans[::step], spans[step::step])):
            step += 1
        for start, label, col in spans[::step]:
            if tall:
                self.put(bottom, col, glyphs.axis["xtick"], "axis", "axis", "axis")
            for i, char in enumerate(label):
                self.put(label_row, start + i, char, "tick", "axis", "tick")
