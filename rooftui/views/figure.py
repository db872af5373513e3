"""The roofline as a figure for a paper or a slide (SVG, PNG, PDF), through matplotlib.

An optional extra (``pip install 'rooftui[plot]'``): without matplotlib,
``MissingExtraError`` says which extra to install. No Textual here.

The geometry is the explorer's (``roofline_model.build_figure``: the same roofs,
ridges and points), drawn on true log axes, one panel per GPU, each against its
own device's ceilings. Every roof and slope carries its value and source, on the
plot and in the legend; the five heaviest kernels are tagged 1..5 beside their
points (the same tags as the explorer's) and named in the legend.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import textwrap
from collections.abc import Sequence
from typing import NoReturn

import numpy as np
import pandas as pd

from rooftui.analysis.instruction_roofline import InstructionCeilings
from rooftui.errors import RooftuiError
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS
from rooftui.views.palette import LEVEL_COLOURS, SERIES_COLOURS, hex_colour
from rooftui.views.text import printable, short_names
from rooftui.views.tui.instruction_figure import WALL_SERIES, build_instruction_figure
from rooftui.views.tui.roofline_model import (
    HEADROOM,
    HEAVY_COUNT,
    RooflineFigure,
    build_figure,
    device_labels,
    roof_sources,
)

# One palette with the explorer (views.palette: L1 red, L2 green, HBM blue), its markers
# and its slope patterns; each compute roof its own dash pattern (ten pipelines at most).
COLOURS = {level: hex_colour(rgb) for level, rgb in LEVEL_COLOURS.items()}
# Points of the instruction roofline's wall series too (key i, plot --instructions).
POINT_COLOURS = {level: hex_colour(rgb) for level, rgb in SERIES_COLOURS.items()}
MARKERS = {"l1": "o", "l2": "s", "hbm": "^", "smem": "v", "global": "D", "shared": "P"}  # the last two: key i
LINESTYLES = {"l1": "-", "l2": "--", "hbm": ":", "smem": "-."}
ROOF_LINESTYLES: list[str | tuple[int, tuple[float, ...]]] = [
    "-",
    (0, (6, 2)),
    (0, (1, 1.5)),
    (0, (6, 2, 1, 2)),
    (0, (10, 2, 2, 2, 2, 2)),
    (0, (3, 3)),
    (0, (12, 3)),
    (0, (6, 2, 1, 2, 1, 2)),
    (0, (2, 4)),
    (0, (12, 2, 4, 2)),
]
FORMATS = ("svg", "png", "pdf")
# A two-column paper's text width (IEEE, ACM: 7 to 7.16 in); one GPU per panel, panels
# stacked, the legend under each panel's axes.
FIGURE_WIDTH_IN = 7.0
PANEL_HEIGHT_IN = 4.6
FONT_PT = 7
NAME_WIDTH = 40  # kernel names in the legend, as the shortener fits them
LEGEND_DROP_PT = 30  # the legend's top below the axes: under the tick labels and the axis title


class MissingExtraError(RooftuiError):
    """An optional dependency is not installed."""


def require_matplotlib() -> None:
    """Raise ``MissingExtraError`` (one line, exit code 2) if matplotlib is missing.

    Looked up, not imported: a first import builds matplotlib's font cache, and a build
    slower than 5 s prints its own warning on stderr, a second line beside rooftui's
    one-line error about the input (found by the fuzz run on a loaded machine)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        _missing()


def figure_class():
    """matplotlib's ``Figure``, imported now; ``MissingExtraError`` where it cannot be."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        _missing()
    return Figure


def _missing() -> NoReturn:
    raise MissingExtraError(
        "drawing a figure needs matplotlib", None, "pip install 'rooftui[plot]'"
    ) from None


def roofline_figure_bytes(
    frame: pd.DataFrame,
    ceilings_by_device: dict[str, CeilingSet],
    fmt: str,
    *,
    pipelines: list[str],
    levels: list[str] | tuple[str, ...] = LEVELS,
    title: str = "",
    dpi: int = 300,
    instruction_roofs: dict[str, InstructionCeilings] | None = None,
) -> bytes:
    """The roofline of ``frame``'s kernels as an ``fmt`` ("svg", "png", "pdf") file;
    see ``roofline_figure``."""
    return roofline_figure_files(
        frame,
        ceilings_by_device,
        [fmt],
        pipelines=pipelines,
        levels=levels,
        title=title,
        dpi=dpi,
        instruction_roofs=instruction_roofs,
    )[fmt]


def roofline_figure_files(
    frame: pd.DataFrame,
    ceilings_by_device: dict[str, CeilingSet],
    formats: Sequence[str],
    *,
    pipelines: list[str],
    levels: list[str] | tuple[str, ...] = LEVELS,
    title: str = "",
    dpi: int = 300,
    instruction_roofs: dict[str, InstructionCeilings] | None = None,
) -> dict[str, bytes]:
    """The roofline of ``frame``'s kernels in each of ``formats``: one figure drawn once,
    saved as each (the same bytes as ``roofline_figure_bytes`` gives for each alone)."""
    for fmt in formats:
        if fmt not in FORMATS:
            raise ValueError(f"format {fmt!r}; one of {FORMATS}")
    figure = roofline_figure(
        frame,
        ceilings_by_device,
        pipelines=pipelines,
        levels=levels,
        title=title,
        instruction_roofs=instruction_roofs,
    )
    files = {}
    for fmt in formats:
        out = io.BytesIO()
        with saving():
            figure.savefig(out, format=fmt, dpi=dpi, metadata=same_file_metadata(fmt))
        files[fmt] = out.getvalue()
    return files


def roofline_figure(
    frame: pd.DataFrame,
    ceilings_by_device: dict[str, CeilingSet],
    *,
    pipelines: list[str],
    levels: list[str] | tuple[str, ...] = LEVELS,
    title: str = "",
    instruction_roofs: dict[str, InstructionCeilings] | None = None,
):
    """The roofline of ``frame``'s kernels as a matplotlib Figure, laid out: one panel per
    GPU that has rows in ``frame`` (``ceilings_by_device`` keys each GPU as
    ``device_labels`` spells it), stacked, ``FIGURE_WIDTH_IN`` wide. No label overlaps
    another label or a title (``place_labels``). With ``instruction_roofs`` (per GPU) the
    instruction roofline instead (``views.tui.instruction_figure``)."""
    Figure = figure_class()
    labels = device_labels(frame)
    devices = [d for d in ceilings_by_device if (labels == d).any()] or list(ceilings_by_device)[:1]
    figure = Figure(figsize=(FIGURE_WIDTH_IN, PANEL_HEIGHT_IN * len(devices)), layout="constrained")
    axes = figure.subplots(len(devices), 1, squeeze=False)[:, 0]
    panels = []
    for ax, device in zip(axes, devices):
        rows = frame[labels == device] if len(ceilings_by_device) > 1 else frame
        panels.append(
            _panel(
                ax,
                rows,
                ceilings_by_device[device],
                device,
                pipelines,
                list(levels),
                one_of_several=len(devices) > 1,
                instruction=None if instruction_roofs is None else instruction_roofs.get(device),
            )
        )
    if title:
        figure.suptitle(printable(title), fontsize=FONT_PT + 2)
    # Lay out first: label sizes and slope angles depend on it; the labels are placed
    # against that layout.
    lay_out_once(figure)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()  # text extents as a PNG draws them
    for ax, (compute, slopes) in zip(axes, panels):
        place_labels(ax, compute, slopes, renderer)
    return figure


def lay_out_once(figure) -> None:
    """Run ``figure``'s layout engine, then keep that layout with no engine at all.

    The engine alone, as a draw runs it: a whole draw here gave the same layout and drew
    every artist once more. With an engine left (or "none", a placeholder engine) savefig
    draws everything twice per file, once only to lay it out."""
    figure.get_layout_engine().execute(figure)
    from matplotlib import rc_context

    with rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        figure.set_layout_engine(None)  # None is "no engine" only where these are off


def saving() -> contextlib.AbstractContextManager:
    """The settings every figure file is saved in: text stays text in an SVG (searchable,
    editable), and its element ids are drawn from a fixed salt (unset, Matplotlib draws a
    random one per save). With ``same_file_metadata``: the same input gives the same file,
    byte for byte, so two figures can be diffed."""
    from matplotlib import rc_context

    return rc_context({"svg.fonttype": "none", "svg.hashsalt": "rooftui"})


def same_file_metadata(fmt: str) -> dict:
    """savefig's ``metadata`` for ``fmt``: no creation date (``saving``)."""
    return {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt, {})


def _panel(
    ax,
    frame: pd.DataFrame,
    ceilings: CeilingSet,
    device: str,
    pipelines,
    levels,
    one_of_several: bool = False,
    instruction: InstructionCeilings | None = None,
) -> tuple[list, list]:
    """Draw one GPU's roofline (the instruction roofline with ``instruction``); returns its
    compute roofs and slopes, labelled once the layout is done."""
    if instruction is not None:
        model = build_instruction_figure(frame, instruction, levels=levels, headroom=HEADROOM)
    else:
        model = build_figure(
            frame, ceilings, levels=levels, pipelines=pipelines, individual_limit=len(frame) + 1, zoom=False
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    (x_lo, x_hi), (y_lo, y_hi) = model.x_range, model.y_range
    ax.set_xlim(10**x_lo, 10**x_hi)
    ax.set_ylim(10**y_lo, 10**y_hi)
    if instruction is not None:
        ax.set_xlabel("Instruction intensity (warp instructions per transaction)", fontsize=FONT_PT + 1)
        ax.set_ylabel("Performance (warp instructions/s)", fontsize=FONT_PT + 1)
    else:
        ax.set_xlabel("Arithmetic intensity (FLOP/byte)", fontsize=FONT_PT + 1)
        ax.set_ylabel("Performance (FLOP/s)", fontsize=FONT_PT + 1)
    ax.tick_params(labelsize=FONT_PT)
    sources = roof_sources(model.roofs) or "no roofs"
    if instruction is not None:  # its sources are long: under the plot, the title names the chart
        sources, roofs_from = "instruction roofline (Ding & Williams, PMBS'19)", sources
    ax.set_title(f"{printable(device) or 'GPU'} — {sources}", fontsize=FONT_PT + 1)
    ax.grid(True, which="major", linewidth=0.3, alpha=0.5)

    compute_roofs = [roof for roof in model.roofs if roof.kind == "compute"]
    compute, slopes = [], []
    for roof in model.roofs:
        xs, ys = np.power(10.0, roof.xs), np.power(10.0, roof.ys)
        if roof.kind == "bandwidth":
            ax.plot(
                xs,
                ys,
                color=COLOURS[roof.key],
                linestyle=LINESTYLES[roof.key],
                linewidth=1.2,
                label=roof.label,
            )
            slopes.append((roof, xs, ys))
        elif roof.kind == "wall":  # the instruction roofline's walls, labelled at their top
            ax.plot(xs, ys, color="0.45", linestyle=":", linewidth=0.8, label=roof.label)
            at = (xs[0], ys[0])
            ax.annotate(roof.tag, at, xytext=(2, -8), textcoords="offset points", fontsize=FONT_PT)
        else:
            style = ROOF_LINESTYLES[compute_roofs.index(roof) % len(ROOF_LINESTYLES)]
            ax.plot(xs, ys, color="black", linestyle=style, linewidth=1.0, label=roof.label)
            # Right of the axes, at the roof's height: laid out with the axes, spread apart
            # once the layout is done (place_labels), a leader back to the roof's end.
            text = ax.annotate(
                _on_plot(roof),
                (xs[1], ys[1]),
                xytext=(6, 0),
                textcoords="offset points",
                ha="left",
                va="center",
                fontsize=FONT_PT,
                annotation_clip=False,
                arrowprops={"arrowstyle": "-", "linewidth": 0.4, "color": "0.45", "shrinkA": 0, "shrinkB": 0},
            )
            compute.append((roof, xs, ys, text))

    for series in model.points:
        if not len(series.xs):
            continue
        heavy = series.emphasis == "heavy"
        ax.scatter(
            np.power(10.0, series.xs),
            np.power(10.0, series.ys),
            marker=MARKERS[series.level],
            s=20 if heavy else 9,
            facecolors=POINT_COLOURS[series.level] if heavy else "none",
            edgecolors=POINT_COLOURS[series.level],
            linewidths=0.6,
            zorder=3,
        )
    for level in levels:  # one legend entry per level, whatever the emphasis
        ax.scatter(
            [],
            [],
            marker=MARKERS[level],
            color=COLOURS[level],
            label=f"kernels at {LEVEL_LABELS[level]} {'intensity' if instruction is not None else 'AI'}",
        )
    for level in WALL_SERIES if instruction is not None else ():
        label = f"{level} requests per transaction"
        ax.scatter([], [], marker=MARKERS[level], color=POINT_COLOURS[level], label=label)
    ax.scatter(
        [],
        [],
        marker="o",
        facecolors="none",
        edgecolors="grey",
        label=f"open: lighter kernels, filled: the {HEAVY_COUNT} heaviest",
    )

    names = frame["name"] if "name" in frame.columns else pd.Series(dtype=object)
    shown = short_names([str(name) for name in names], NAME_WIDTH)
    for kernel, tag in model.tags.items():
        place = _tag_point(model, kernel)
        if place is None:
            continue
        ax.annotate(
            tag,
            place,
            xytext=(3, 3),
            textcoords="offset points",
            fontsize=FONT_PT + 1,
            fontweight="bold",
            zorder=4,
        )
        name = shown.get(str(names.get(kernel, "")), "") if len(names) else ""
        share = _time_share(frame, kernel, one_of_several)
        ax.scatter([], [], marker="$" + tag + "$", color="black", label=name + share)
    notes = [*model.missing, *_notes(model, frame)] if instruction is None else [*model.missing]
    if instruction is not None:
        notes += [model.note] if model.note else []
        notes += textwrap.wrap(roofs_from, 120)
    if notes:
        ax.text(0.01, 0.01, "\n".join(notes), transform=ax.transAxes, fontsize=FONT_PT - 1, va="bottom")
    # Under the axes, where it hides no point and leaves the plot the figure's width.
    from matplotlib.transforms import ScaledTranslation

    below = ax.transAxes + ScaledTranslation(0, -LEGEND_DROP_PT / 72, ax.figure.dpi_scale_trans)
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        bbox_transform=below,
        ncols=2,
        fontsize=FONT_PT - 1,
        frameon=False,
        borderaxespad=0.0,
        handlelength=3.0,
    )
    return compute, slopes


def _notes(model: RooflineFigure, frame: pd.DataFrame) -> list[str]:
    """The model's notes, its zero-AI launches said in launches and kernels as every view
    says zero-AI (``zero_ai.tally``), and the other launches it could not plot, and why
    (``roofline_model.not_plotted``: integer Tensor work, no counters, no time)."""
    from rooftui.analysis import zero_ai

    notes = [part for part in model.note.split("; ") if part]
    if {"zero_ai", "name", "flops"} <= set(frame.columns):
        tally = zero_ai.tally(frame)
        if tally.launches:
            notes.append(f"not plotted (no FLOP): {tally.text()}")
    return notes + [gone.text for gone in model.not_plotted if gone.why != "zero-AI"]


def place_labels(ax, compute: list, slopes: list, renderer) -> list:
    """Lay out the roofs' labels once the axes are placed; returns the labels (Text).

    Compute roofs are labelled right of the axes at their heights, spread apart where
    they would overlap (roofs 1.5% apart, FP32 65.7 and Tensor FP64 66.7, share a height),
    each with a leader to its roof. Slopes are labelled along their slope, inside the
    axes, each at the first place -- down the slope from its ridge, above the line, then
    below -- where its box overlaps no label, title or tag and no other roof crosses it."""
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
            _on_plot(roof),
            (xs[1], ys[1]),
            xytext=(0, 2),
            textcoords="offset points",
            rotation=angle,
            rotation_mode="anchor",
            fontsize=FONT_PT,
            color=COLOURS[roof.key],
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


def _on_plot(roof) -> str:
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


def _tag_point(model, kernel) -> tuple[float, float] | None:
    """Where the tag goes: the kernel's HBM point, else L2, else L1."""
    for level in ("hbm", "l2", "l1"):
        for series in model.points:
            if series.level == level and len(series.kernels):
                hits = np.flatnonzero(series.kernels == kernel)
                if hits.size:
                    return 10 ** series.xs[hits[0]], 10 ** series.ys[hits[0]]
    return None


def _time_share(frame: pd.DataFrame, kernel, one_of_several: bool = False) -> str:
    """The kernel's share of the run's time, as the explorer's %time column shows it; on
    one GPU's panel of several, of that GPU's plotted time."""
    if one_of_several:
        gpu = float(frame["time_s"].sum())
        return f" ({frame.loc[kernel, 'time_s'] / gpu:.1%} of this GPU's plotted time)" if gpu else ""
    if "time_share" in frame.columns:
        return f" ({frame.loc[kernel, 'time_share']:.1%} of time)"
    total = float(frame["time_s"].sum())
    return f" ({frame.loc[kernel, 'time_s'] / total:.1%} of the plotted time)" if total else ""
