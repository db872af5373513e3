"""A ``RooflineFigure`` laid out on a grid of character cells — no Textual.

Every cell records what it shows (a line, a point, a label, the axes) and whose
it is (a roof's key, a level, a kernel's tag), so the widget only colours the
cells and tests can check the picture cell by cell: no label over a point or over
another series' line, every label on or next to its own line.

Lines are drawn in braille (2×4 dots per cell) or, in ASCII mode, one character
per cell with a different character per roof and slope; the characters, markers,
dash patterns and point styles are ``roofline_glyphs``'s, the colours
``rooftui.views.palette``'s.
"""

from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from rooftui.model.columns import LEVEL_LABELS
from rooftui.views.palette import A_COLOUR, LEVEL_COLOURS, SELECTED_COLOUR, rgb
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.roofline_glyphs import (
    ASCII,
    ASCII_MARKERS,
    BRAILLE,
    DOTS,
    PATTERNS,
    POINT_STYLES,
    SLOPE_PATTERN,
    UNICODE,
    UNICODE_MARKERS,
    Glyphs,
)
from rooftui.views.tui.roofline_model import Roof, RooflineFigure

# The glyphs and colours lived here; their names stay importable from here too.
__all__ = [
    "A_COLOUR",
    "ASCII",
    "ASCII_MARKERS",
    "LEVEL_COLOURS",
    "SELECTED_COLOUR",
    "UNICODE",
    "UNICODE_MARKERS",
    "Glyphs",
    "Label",
    "Layers",
    "Layout",
    "PointCell",
    "lay_out",
    "nearest_in_order",
    "plot_cells",
    "rgb",
    "short_label",
]

# Character cells the axes and tick labels take from the plot area.
AXIS_COLUMNS, AXIS_ROWS = 8, 3


def plot_cells(width: int, height: int) -> tuple[int, int]:
    """The plot area, in character cells, of a chart ``width`` × ``height`` cells large:
    what is left by the axes, never less than 10 × 4."""
    return max(10, width - AXIS_COLUMNS), max(4, height - AXIS_ROWS)


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


class _Canvas:
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


def short_label(roof: Roof) -> str:
    """A roof's label without its source: "HBM 4.8 TB/s"."""
    return roof.label.rsplit(" (", 1)[0]


# The order points are drawn in: the last drawn is on top of its cell.
DRAWING_ORDER = {
    "merged": 0,
    "below": 1,
    "bypassed": 1,
    "normal": 2,
    "heavy": 3,
    "side-a": 4,
    "side-b": 5,
    "chosen-a": 6,
    "chosen-b": 7,
}

Cell = tuple[int, int]  # (row, column)


def lay_out(
    figure: RooflineFigure,
    width: int,
    height: int,
    *,
    ascii_mode: bool = False,
    title: str = "",
    cursor: tuple[str, object] | None = None,
    axis_titles: tuple[str, str, str] | None = None,
) -> Layout:
    """Draw ``figure`` on ``width`` × ``height`` cells: roofs, points (heaviest on
    top), the selected kernel, labels that fit, axes with titles.

    ``title`` (the device, when a run has several) takes the top row; ``cursor``
    is the (level, kernel) of the point cycled to, drawn highlighted; ``axis_titles``
    (y, x, short x) replace the FLOP roofline's (the instruction roofline's).
    """
    canvas, on_top, _ = _unlabelled(figure, width, height, ascii_mode, title, cursor, axis_titles)
    _label(canvas, figure, on_top)
    return canvas.layout


def _unlabelled(
    figure: RooflineFigure,
    width: int,
    height: int,
    ascii_mode: bool,
    title: str,
    cursor: tuple[str, object] | None,
    axis_titles: tuple[str, str, str] | None,
) -> tuple[_Canvas, dict[Cell, PointCell], dict[tuple[str, object], PointCell]]:
    """``lay_out``'s canvas before the labels and axes, with the kernel point on top of
    each cell and every kernel's point by (level, kernel) (``_points``)."""
    canvas = _Canvas(figure, width, height, _glyphs(ascii_mode, axis_titles), title)
    layout = canvas.layout
    on_top, every = _points(canvas, figure)
    _mark_selected(canvas, figure.selected)
    chosen = None if cursor is None else every.get(cursor)
    if chosen is not None:  # the point stepped to is on top of its cell, hidden or not before
        on_top[(chosen.row, chosen.col)] = chosen
        layout.styles[chosen.row][chosen.col] = "cursor"
    layout.points = _on_top_order(on_top)
    layout.stops = sorted(every.values(), key=lambda p: (p.col, -p.row, p.level, str(p.kernel)))
    _roof_lines(canvas, figure)
    _selected_line(canvas, figure.selected)
    # The compare chart's arrows, the chosen pair's last (on top).
    for segment in sorted(figure.segments, key=lambda s: s.selected):
        owner, style = ("selected", "selected-line") if segment.selected else ("arrow", "compare-a")
        canvas.line(segment.xs, segment.ys, owner, "solid", "." if canvas.glyphs.ascii else "*", style)
    return canvas, on_top, every


def _label(canvas: _Canvas, figure: RooflineFigure, on_top: dict[Cell, PointCell]) -> None:
    """The labels and axes on ``_unlabelled``'s canvas."""
    layout = canvas.layout
    layout.kinds_before_labels = [row[:] for row in layout.kinds]
    layout.owners_before_labels = [row[:] for row in layout.owners]
    _labels(canvas, figure, on_top, canvas.glyphs.ascii)
    canvas.axes()


def _glyphs(ascii_mode: bool, axis_titles: tuple[str, str, str] | None) -> Glyphs:
    glyphs = ASCII if ascii_mode else UNICODE
    if axis_titles is not None:
        glyphs = replace(glyphs, y_title=axis_titles[0], x_title=axis_titles[1], x_title_short=axis_titles[2])
    return glyphs


def _points(
    canvas: _Canvas, figure: RooflineFigure
) -> tuple[dict[Cell, PointCell], dict[tuple[str, object], PointCell]]:
    """The kernels' points, heaviest last (on top); returns the kernel point on top of
    each cell and every kernel's point by (level, kernel). Drawn first, so that lines
    pass behind them."""
    glyphs = canvas.glyphs
    on_top: dict[Cell, PointCell] = {}
    every: dict[tuple[str, object], PointCell] = {}
    layout = canvas.layout
    for series in sorted(figure.points, key=lambda s: DRAWING_ORDER[s.emphasis]):
        marker = glyphs.markers[series.emphasis][series.level]
        style = POINT_STYLES.get(series.emphasis, "point:{level}").format(level=series.level)
        level = series.level
        kernels = series.kernels if len(series.kernels) == len(series.xs) else [None] * len(series.xs)
        rows, cols = canvas.cells(series.xs, series.ys)
        for row, col, kernel in zip(reversed(rows), reversed(cols), reversed(list(kernels))):
            layout.chars[row][col] = marker  # as ``put`` would
            layout.kinds[row][col] = "point"
            layout.owners[row][col] = level
            layout.styles[row][col] = style
            if kernel is not None:
                on_top[(row, col)] = every[(level, kernel)] = PointCell(row, col, level, kernel)
            else:
                on_top.pop((row, col), None)
    return on_top, every


def _on_top_order(on_top: dict[Cell, PointCell]) -> list[PointCell]:
    return sorted(on_top.values(), key=lambda p: (p.col, -p.row))


def _mark_selected(canvas: _Canvas, selected: list[tuple[str, float, float]]) -> list[Cell]:
    """The selected kernel's points, marked; returns their cells."""
    cells = [canvas.cell(x, y) for _, x, y in selected]
    for row, col in cells:
        canvas.put(row, col, canvas.glyphs.selected, "point", "selected", "selected")
    return cells


def _roof_lines(canvas: _Canvas, figure: RooflineFigure) -> None:
    glyphs = canvas.glyphs
    roof_chars = iter(glyphs.roofs * 4)
    for roof in figure.roofs:
        if roof.kind == "bandwidth":
            char = glyphs.slope.get(roof.key, "/")
            # ASCII tells slopes apart by character; dashes would only thin them out.
            pattern = "solid" if glyphs.ascii else SLOPE_PATTERN.get(roof.key, "solid")
            canvas.line(roof.xs, roof.ys, roof.key, pattern, char, f"slope:{roof.key}")
        elif roof.kind == "wall":  # the instruction roofline's vertical walls
            canvas.line(roof.xs, roof.ys, roof.key, "dotted", "|" if glyphs.ascii else "│", "roof")
        else:
            canvas.line(roof.xs, roof.ys, roof.key, "solid", next(roof_chars, "-"), "roof")


def _selected_line(canvas: _Canvas, selected: list[tuple[str, float, float]]) -> None:
    """The line joining the selected kernel's points, level to level."""
    for (_, xa, ya), (_, xb, yb) in zip(selected, selected[1:]):
        canvas.line((xa, xb), (ya, yb), "selected", "solid", "*", "selected-line")


def _labels(canvas: _Canvas, figure: RooflineFigure, on_top: dict[Cell, PointCell], ascii_mode: bool) -> None:
    """Labels: compute roofs from the top, then walls and slopes, then the tags of the
    heaviest kernels beside their points on top (``on_top``)."""
    layout = canvas.layout
    plain = ascii_safe if ascii_mode else str
    for roof in figure.roofs:
        texts = [plain(roof.label), plain(short_label(roof))]
        if roof.kind == "compute" and canvas.roof_label(roof, texts):
            layout.labelled.add(roof.key)
    for roof in figure.roofs:
        if roof.kind == "wall" and canvas.wall_label(roof, plain(roof.tag)):
            layout.labelled.add(roof.key)
    for roof in figure.roofs:
        texts = [plain(roof.label), plain(short_label(roof)), LEVEL_LABELS.get(roof.key, roof.tag)]
        if roof.kind == "bandwidth" and canvas.slope_label(roof, texts):
            layout.labelled.add(roof.key)
    by_kernel: dict[object, list[Cell]] = {}
    for point in sorted(
        on_top.values(),
        key=lambda p: ("hbm", "l2", "l1").index(p.level) if p.level in ("hbm", "l2", "l1") else 3,
    ):
        by_kernel.setdefault(point.kernel, []).append((point.row, point.col))
    for kernel, tag in figure.tags.items():
        if kernel in by_kernel:
            canvas.tag(tag, by_kernel[kernel], kernel)


class Layers:
    """A figure laid out with no kernel selected and no point stepped to, kept with what
    drawing those on top needs: a cursor move then costs what it changes.

    ``lay_out(selected, cursor)`` gives, cell for cell, what ``lay_out`` (the function)
    gives for the figure with ``selected`` and ``cursor``. It takes the kept cells before
    the labels when each selected point falls on a cell that holds a point (lines pass
    behind points, so the roofs drawn without the selection are drawn the same with it)
    and the figure has no compare arrows (drawn above the selected line); else it lays
    the figure out again. On top of those cells it marks the selected points, the cursor
    and the line between the points, and places the labels again. It keeps the labels
    placed without the selection too when
    - the selected line crosses no label: it only takes room (labels keep clear of other
      series' lines, tags of cells a line is on), so every label placed without it still
      finds the same first free place with it;
    - the point stepped to, if it changes which kernel is on top of its cell, is of no
      tagged kernel, nor is the one it covers: tags go beside the points on top.
    """

    def __init__(
        self,
        figure: RooflineFigure,
        width: int,
        height: int,
        *,
        ascii_mode: bool = False,
        title: str = "",
        axis_titles: tuple[str, str, str] | None = None,
    ) -> None:
        self.figure = replace(figure, selected=[]) if figure.selected else figure
        self.width, self.height = width, height
        self.ascii_mode, self.title, self.axis_titles = ascii_mode, title, axis_titles
        canvas, self.on_top, self.every = _unlabelled(
            self.figure, width, height, ascii_mode, title, None, axis_titles
        )
        self.unlabelled = _copied(canvas)  # the cells before the labels
        _label(canvas, self.figure, self.on_top)
        self.canvas, self.layout = canvas, canvas.layout
        self.label_cells = {
            (label.row, label.col + i) for label in self.layout.labels for i in range(len(label.text))
        }

    def lay_out(self, selected: list[tuple[str, float, float]], cursor: tuple[str, object] | None) -> Layout:
        """The figure with ``selected`` (its ``RooflineFigure.selected``) and ``cursor``,
        as ``lay_out`` draws it; the kept layout itself when neither changes a cell."""
        base = self.layout
        chosen = None if cursor is None else self.every.get(cursor)
        if not selected and chosen is None:
            return base
        cells = [self.canvas.cell(x, y) for _, x, y in selected]
        if self.figure.segments or any(base.kinds[row][col] != "point" for row, col in cells):
            figure = replace(self.figure, selected=selected)
            options = (self.ascii_mode, self.title, cursor, self.axis_titles)
            canvas, on_top, _ = _unlabelled(figure, self.width, self.height, *options)
            _label(canvas, figure, on_top)
            return canvas.layout
        on_top, relabel = self.on_top, False
        if chosen is not None and on_top.get((chosen.row, chosen.col)) != chosen:
            covered = on_top.get((chosen.row, chosen.col))
            tagged = self.figure.tags
            relabel = chosen.kernel in tagged or (covered is not None and covered.kernel in tagged)
            on_top = {**on_top, (chosen.row, chosen.col): chosen}
        if not relabel:
            layout = self._labelled_with(selected, chosen, on_top)
            if layout is not None:
                return layout
        canvas = _copied(self.unlabelled)
        _mark_selected(canvas, selected)
        if chosen is not None:
            canvas.layout.styles[chosen.row][chosen.col] = "cursor"
        canvas.layout.points = _on_top_order(on_top)
        _selected_line(canvas, selected)
        _label(canvas, self.figure, on_top)
        return canvas.layout

    def _labelled_with(
        self,
        selected: list[tuple[str, float, float]],
        chosen: PointCell | None,
        on_top: dict[Cell, PointCell],
    ) -> Layout | None:
        """The kept layout with ``selected`` and ``chosen`` drawn on top; None where the
        selected line crosses a label."""
        canvas = _copied(self.canvas)
        layout = canvas.layout
        cells = _mark_selected(canvas, selected)
        if chosen is not None:
            layout.styles[chosen.row][chosen.col] = "cursor"
        _selected_line(canvas, selected)
        path = [cell for cell, owners in layout.line_series.items() if "selected" in owners]
        if not self.label_cells.isdisjoint(path):
            return None
        if on_top is not self.on_top:
            layout.points = _on_top_order(on_top)
        for row, col in (*cells, *path):  # before the labels, these cells held what they hold now
            layout.kinds_before_labels[row][col] = layout.kinds[row][col]
            layout.owners_before_labels[row][col] = layout.owners[row][col]
        return layout


def _copied(canvas: _Canvas) -> _Canvas:
    """A canvas holding a copy of ``canvas``'s layout, to draw on."""
    base = canvas.layout
    twin = copy.copy(canvas)
    twin.layout = replace(
        base,
        chars=[row[:] for row in base.chars],
        kinds=[row[:] for row in base.kinds],
        owners=[row[:] for row in base.owners],
        styles=[row[:] for row in base.styles],
        line_series=dict(base.line_series),  # a cell's set is replaced when drawn on, not changed
        labels=list(base.labels),
        points=list(base.points),
        stops=list(base.stops),
        labelled=set(base.labelled),
        kinds_before_labels=[row[:] for row in base.kinds_before_labels],
        owners_before_labels=[row[:] for row in base.owners_before_labels],
    )
    twin.bits = dict(canvas.bits)
    return twin


def nearest_in_order(
    points: list[PointCell], current: tuple[str, object] | None, step: int
) -> PointCell | None:
    """The point after (``step`` = 1) or before (-1) ``current`` in left-to-right
    order, wrapping around; the first (or last) one when there is no current point."""
    if not points:
        return None
    keys = [(p.level, p.kernel) for p in points]
    if current in keys:
        return points[(keys.index(current) + step) % len(points)]
    return points[0] if step > 0 else points[-1]
