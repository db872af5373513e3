"""A ``RooflineFigure`` laid out on a grid of character cells — no Textual.

Every cell records what it shows (a line, a point, a label, the axes) and whose
it is (a roof's key, a level, a kernel's tag), so the widget only colours the
cells and tests can check the picture cell by cell: no label over a point or over
another series' line, every label on or next to its own line.

``lay_out`` draws a figure's points, roofs, selected kernel, labels and axes in that
order on a ``roofline_canvas.Canvas``; ``Layers`` keeps a figure laid out without its
selected kernel, so a cursor move draws only what it changes. Lines are drawn in
braille (2×4 dots per cell) or, in ASCII mode, one character per cell with a different
character per roof and slope; the characters, markers, dash patterns and point styles
are ``roofline_glyphs``'s, the colours ``rooftui.views.palette``'s.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from rooftui.model.columns import LEVEL_LABELS
from rooftui.views.palette import A_COLOUR, LEVEL_COLOURS, SELECTED_COLOUR, rgb
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.roofline_canvas import Canvas, Cell, Label, Layout, PointCell
from rooftui.views.tui.roofline_glyphs import (
    ASCII,
    ASCII_MARKERS,
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
) -> tuple[Canvas, dict[Cell, PointCell], dict[tuple[str, object], PointCell]]:
    """``lay_out``'s canvas before the labels and axes, with the kernel point on top of
    each cell and every kernel's point by (level, kernel) (``_points``)."""
    canvas = Canvas(figure, width, height, _glyphs(ascii_mode, axis_titles), title)
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


def _label(canvas: Canvas, figure: RooflineFigure, on_top: dict[Cell, PointCell]) -> None:
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
    canvas: Canvas, figure: RooflineFigure
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


def _mark_selected(canvas: Canvas, selected: list[tuple[str, float, float]]) -> list[Cell]:
    """The selected kernel's points, marked; returns their cells."""
    cells = [canvas.cell(x, y) for _, x, y in selected]
    for row, col in cells:
        canvas.put(row, col, canvas.glyphs.selected, "point", "selected", "selected")
    return cells


def _roof_lines(canvas: Canvas, figure: RooflineFigure) -> None:
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


def _selected_line(canvas: Canvas, selected: list[tuple[str, float, float]]) -> None:
    """The line joining the selected kernel's points, level to level."""
    for (_, xa, ya), (_, xb, yb) in zip(selected, selected[1:]):
        canvas.line((xa, xb), (ya, yb), "selected", "solid", "*", "selected-line")


def _labels(canvas: Canvas, figure: RooflineFigure, on_top: dict[Cell, PointCell], ascii_mode: bool) -> None:
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


def _copied(canvas: Canvas) -> Canvas:
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
