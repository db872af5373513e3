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
import textwrap
from collections.abc import Sequence
from typing import NoReturn

import numpy as np
import pandas as pd

from rooftui.analysis.instruction_roofline import InstructionCeilings
from rooftui.errors import RooftuiError
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS
from rooftui.views.figure_labels import on_plot_label, place_labels
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
        place_labels(ax, compute, slopes, renderer, fontsize=FONT_PT, colours=COLOURS)
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
                on_plot_label(roof),
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
