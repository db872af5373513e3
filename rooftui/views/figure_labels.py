"""Where the roofline figure's labels go (``rooftui.views.figure``): the compute roofs'
labels right of the axes, spread apart, and each slope's along its slope at the first spot
no label, title, tag or other roof touches. Outlines are the text's true, turned rectangle
on the screen, so a slanted label's empty corners do not count as taken. Needs matplotlib
(the figure's optional extra); no Textual here."""

from __future__ import annotations

import math
import re

import numpy as np


def place_labels(
    ax, compute: list, slopes: list, renderer, *, fontsize: float, colours: dict[str, str]
) -> list:
    """Lay out the roofs' labels once the axes are placed; returns the labels (Text).

    Compute roofs are labelled right of the axes at their heights, spread apart where
    they would overlap (roofs 1.5% apart, FP32 65.7 and Tensor FP64 66.7, share a height),
    each with a leader to its roof. Slopes are labelled along their slope, inside the
    axes, each at the first place -- down the slope from its ridge, above the line, then
    below -- where its box overlaps no label, title or tag and no other roof crosses it.
    A slope's label is set in ``fontsize`` and its level's colour (``colours``)."""
    placed = _spread_right(ax, compute, renderer)
    figure = ax.figure
    inside = ax.get_window_extent(renderer)
    taken = [
        text_outline(text, renderer)
        for text in (ax.title, getattr(figure, "_suptitle", None))
        if text is not None and text.get_text()
    ]
    taken += [text_outline(child, renderer) for child in ax.texts if child.get_text()]
    # Every roof as points along it on the screen: a label struck through by another roof
    # reads as that roof's.
    lines = {
        roof: ax.transData.transform(
            np.column_stack([np.geomspace(xs[0], xs[1], 400), np.geomspace(ys[0], ys[1], 400)])
        )
        for roof, xs, ys, *_ in [*compute, *slopes]
    }
    if slopes:
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        per_decade_x = inside.width / math.log10(x1 / x0)
        per_decade_y = inside.height / math.log10(y1 / y0)
        angle = math.degrees(math.atan2(per_decade_y, per_decade_x))  # a slope of 1 in log-log
    for roof, xs, ys in slopes:
        text = ax.annotate(
            on_plot_label(roof),
            (xs[1], ys[1]),
            xytext=(0, 2),
            textcoords="offset points",
            rotation=angle,
            rotation_mode="anchor",
            fontsize=fontsize,
            color=colours[roof.key],
            ha="right",
            va="bottom",
            annotation_clip=False,
        )
        spots = [(max(xs[0], xs[1] / 10 ** (k / 4)), above) for k in range(1, 21) for above in (True, False)]
        others = [points for other, points in lines.items() if other is not roof]
        _take_a_free_spot(text, spots, renderer, inside, taken, others, ha="right", slope=(xs, ys))
        placed.append(text)
    return placed


def text_box(text, renderer):
    """The box of ``text``'s characters on the screen; an annotation's leader left out."""
    from matplotlib.text import Annotation, Text

    if isinstance(text, Annotation):
        text.update_positions(renderer)
    return Text.get_window_extent(text, renderer)


def text_outline(text, renderer) -> np.ndarray:
    """The four corners (screen coordinates) of the rectangle ``text``'s characters fill,
    turned with the text: a label along a slope is a slanted rectangle, whose upright
    box (matplotlib's window extent) also covers the empty triangles around it."""
    angle = text.get_rotation()
    if not angle:
        box = text_box(text, renderer)
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    text.set_rotation(0)
    try:
        box = text_box(text, renderer)
    finally:
        text.set_rotation(angle)
    anchor = np.array(
        [
            {"left": box.x0, "right": box.x1}.get(text.get_ha(), (box.x0 + box.x1) / 2),
            {"bottom": box.y0, "top": box.y1}.get(text.get_va(), (box.y0 + box.y1) / 2),
        ]
    )
    corners = np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]]) - anchor
    turn = math.radians(angle)
    rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    return corners @ rotation.T + anchor


def outlines_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex outlines (corners in order) share more than an edge: no axis
    along one of their edges separates them (the separating axis theorem)."""
    for outline in (a, b):
        for i in range(len(outline)):
            edge = outline[(i + 1) % len(outline)] - outline[i]
            normal = np.array([-edge[1], edge[0]])
            on_a, on_b = a @ normal, b @ normal
            if on_a.max() <= on_b.min() + 1e-9 or on_b.max() <= on_a.min() + 1e-9:
                return False
    return True


def line_crosses(outline: np.ndarray, points: np.ndarray) -> bool:
    """Whether any of ``points`` (a line, sampled) lies inside the convex ``outline``
    (corners in counter-clockwise order, as ``text_outline`` gives them)."""
    inside = np.ones(len(points), dtype=bool)
    for i in range(len(outline)):
        start, edge = outline[i], outline[(i + 1) % len(outline)] - outline[i]
        inside &= edge[0] * (points[:, 1] - start[1]) - edge[1] * (points[:, 0] - start[0]) > 0
    return bool(inside.any())


def on_plot_label(roof) -> str:
    """A roof's label on the plot: its name and value ("Tensor FP16 899 TFLOP/s"); where
    the value came from is in the title and the legend."""
    return re.sub(r"\s*\([^()]*\)$", "", roof.label)


def _spread_right(ax, compute: list, renderer) -> list:
    """Move the compute roofs' labels (right of the axes) apart: a label that would
    overlap its neighbour joins it in a block, centred on their roofs' mean height and
    kept within the axes' height."""
    if not compute:
        return []
    texts = sorted(
        ((item[3], ax.transData.transform((item[1][1], item[2][1]))[1]) for item in compute),
        key=lambda pair: pair[1],
    )
    inside = ax.get_window_extent(renderer)
    gap = max(text_box(text, renderer).height for text, _ in texts) + 1.0
    blocks = [[index] for index in range(len(texts))]
    wanted = [y for _, y in texts]

    def start(block: list[int]) -> float:
        middle = sum(wanted[i] for i in block) / len(block)
        lowest = middle - gap * (len(block) - 1) / 2
        return min(max(lowest, inside.y0 + gap / 2), inside.y1 - gap / 2 - gap * (len(block) - 1))

    merged = True
    while merged:
        merged = False
        for i in range(len(blocks) - 1):
            if start(blocks[i]) + gap * len(blocks[i]) > start(blocks[i + 1]):
                blocks[i : i + 2] = [blocks[i] + blocks[i + 1]]
                merged = True
                break
    to_points = 72.0 / ax.figure.dpi
    for block in blocks:
        for position, index in enumerate(block):
            text, y = texts[index]
            text.set_position((6, (start(block) + gap * position - y) * to_points))
    return [text for text, _ in texts]


def _take_a_free_spot(text, spots, renderer, inside, taken: list, lines: list, ha: str, slope=None) -> None:
    """Move ``text`` to the first of ``spots`` ((x, above), along its line) where its
    outline is inside the axes, clear of every outline ``taken`` and crossed by none of
    ``lines`` (points on the screen); the least crowded one if none is."""
    best, best_crowding = None, math.inf
    for x, above in spots:
        _move(text, x, above, ha, slope)
        outline = text_outline(text, renderer)
        crowding = (
            sum(outlines_overlap(outline, other) for other in taken)
            + sum(line_crosses(outline, points) for points in lines)
            + 2 * int(not _within(outline, inside))
        )
        if crowding < best_crowding:
            best, best_crowding = (x, above), crowding
        if crowding == 0:
            break
    if best is not None:
        _move(text, best[0], best[1], ha, slope)
    taken.append(text_outline(text, renderer))


def _move(text, x: float, above: bool, ha: str, slope) -> None:
    """``text`` to ``x`` on its line (a roof's height, or a slope through (xs[0], ys[0])),
    above the line or below it."""
    y = slope[1][0] * x / slope[0][0] if slope is not None else text.xy[1]
    text.xy = (x, y)
    text.set_position((-2, 2) if above else (2, -2) if slope is not None else (-3, -2))
    text.set_va("bottom" if above else "top")
    text.set_ha("left" if slope is not None and not above else ha)


def _within(outline: np.ndarray, box) -> bool:
    return bool(
        (outline[:, 0] >= box.x0).all()
        and (outline[:, 0] <= box.x1).all()
        and (outline[:, 1] >= box.y0).all()
        and (outline[:, 1] <= box.y1).all()
    )
