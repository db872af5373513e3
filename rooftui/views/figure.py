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

import io
import math

import numpy as np
import pandas as pd

from rooftui.errors import RooftuiError
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import LEVEL_LABELS, LEVELS
from rooftui.views.text import printable
from rooftui.views.tui.roofline_model import HEAVY_COUNT, build_figure, device_labels, roof_sources

# The paper's colours (L1 red, L2 green, HBM blue), the explorer's markers and dash patterns.
COLOURS = {"l1": "#d62728", "l2": "#2ca02c", "hbm": "#1f77b4"}
MARKERS = {"l1": "o", "l2": "s", "hbm": "^"}
LINESTYLES = {"l1": "-", "l2": "--", "hbm": ":"}
ROOF_LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1))]
FORMATS = ("svg", "png", "pdf")


class MissingExtraError(RooftuiError):
    """An optional dependency is not installed."""


def require_matplotlib() -> None:
    """Raise ``MissingExtraError`` (one line, exit code 2) if matplotlib is missing."""
    _matplotlib()


def _matplotlib():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError(
            "drawing a figure needs matplotlib", None, "pip install 'rooftui[plot]'"
        ) from None
    return Figure


def roofline_figure_bytes(
    frame: pd.DataFrame,
    ceilings_by_device: dict[str, CeilingSet],
    fmt: str,
    *,
    pipelines: list[str],
    levels: list[str] | tuple[str, ...] = LEVELS,
    title: str = "",
    dpi: int = 150,
) -> bytes:
    """The roofline of ``frame``'s kernels as an ``fmt`` ("svg", "png", "pdf") file.

    ``ceilings_by_device`` keys each GPU as ``device_labels`` spells it; one panel per
    GPU that has rows in ``frame``."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}; one of {FORMATS}")
    Figure = _matplotlib()
    labels = device_labels(frame)
    devices = [d for d in ceilings_by_device if (labels == d).any()] or list(ceilings_by_device)[:1]
    figure = Figure(figsize=(12 * len(devices), 6.5), layout="constrained")
    axes = figure.subplots(1, len(devices), squeeze=False)[0]
    slopes = []
    for ax, device in zip(axes, devices):
        rows = frame[labels == device] if len(ceilings_by_device) > 1 else frame
        slopes.append(_panel(ax, rows, ceilings_by_device[device], device, pipelines, list(levels)))
    if title:
        figure.suptitle(printable(title))
    figure.draw_without_rendering()  # lay out first: the slope labels' angles depend on it
    for ax, ax_slopes in zip(axes, slopes):
        _slope_texts(ax, ax_slopes, clip=True)
    out = io.BytesIO()
    from matplotlib import rc_context

    with rc_context({"svg.fonttype": "none"}):  # text stays text: searchable, editable
        figure.savefig(out, format=fmt, dpi=dpi, metadata=_metadata(fmt))
    return out.getvalue()


def _metadata(fmt: str) -> dict:
    # No creation date: the same input gives the same file.
    return {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt, {})


def _panel(ax, frame: pd.DataFrame, ceilings: CeilingSet, device: str, pipelines, levels) -> list:
    """Draw one GPU's roofline; returns its slopes, labelled once the layout is done."""
    model = build_figure(frame, ceilings, levels=levels, pipelines=pipelines,
                         individual_limit=len(frame) + 1, zoom=False)
    ax.set_xscale("log")
    ax.set_yscale("log")
    (x_lo, x_hi), (y_lo, y_hi) = model.x_range, model.y_range
    ax.set_xlim(10**x_lo, 10**x_hi)
    ax.set_ylim(10**y_lo, 10**y_hi)
    ax.set_xlabel("Arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("Performance (FLOP/s)")
    ax.set_title(f"{printable(device) or 'GPU'} — {roof_sources(model.roofs) or 'no roofs'}", fontsize=10)
    ax.grid(True, which="major", linewidth=0.3, alpha=0.5)

    compute = [roof for roof in model.roofs if roof.kind == "compute"]
    slopes = []
    for roof in model.roofs:
        xs, ys = np.power(10.0, roof.xs), np.power(10.0, roof.ys)
        if roof.kind == "bandwidth":
            ax.plot(xs, ys, color=COLOURS[roof.key], linestyle=LINESTYLES[roof.key], linewidth=1.6,
                    label=roof.label)
            slopes.append((roof, xs, ys))
        else:
            style = ROOF_LINESTYLES[compute.index(roof) % len(ROOF_LINESTYLES)]
            ax.plot(xs, ys, color="black", linestyle=style, linewidth=1.4, label=roof.label)
            ax.annotate(roof.label, (xs[1], ys[1]), xytext=(-4, 3), textcoords="offset points",
                        ha="right", va="bottom", fontsize=8)

    for series in model.points:
        if not len(series.xs):
            continue
        heavy = series.emphasis == "heavy"
        ax.scatter(np.power(10.0, series.xs), np.power(10.0, series.ys), marker=MARKERS[series.level],
                   s=36 if heavy else 16, facecolors=COLOURS[series.level] if heavy else "none",
                   edgecolors=COLOURS[series.level], linewidths=0.8, zorder=3)
    for level in levels:  # one legend entry per level, whatever the emphasis
        ax.scatter([], [], marker=MARKERS[level], color=COLOURS[level],
                   label=f"kernels at {LEVEL_LABELS[level]} AI")
    ax.scatter([], [], marker="o", facecolors="none", edgecolors="grey",
               label=f"open: lighter kernels, filled: the {HEAVY_COUNT} heaviest")

    names = frame["name"] if "name" in frame.columns else pd.Series(dtype=object)
    for kernel, tag in model.tags.items():
        place = _tag_point(model, kernel)
        if place is None:
            continue
        ax.annotate(tag, place, xytext=(4, 4), textcoords="offset points", fontsize=9,
                    fontweight="bold", zorder=4)
        name = printable(str(names.get(kernel, ""))) if len(names) else ""
        share = _time_share(frame, kernel)
        ax.scatter([], [], marker="$" + tag + "$", color="black", label=_short(name) + share)
    notes = [*model.missing, *([model.note] if model.note else [])]
    if notes:
        ax.text(0.01, 0.01, "\n".join(notes), transform=ax.transAxes, fontsize=8, va="bottom")
    # Beside the axes, where it hides no point.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    return slopes


def _slope_texts(ax, slopes, clip: bool) -> None:
    """Each slope's label along it, a decade left of its ridge. Called once the
    layout is final: the angle on screen depends on the axes' size and limits."""
    box = ax.get_window_extent()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    per_decade_x = box.width / math.log10(x1 / x0)
    per_decade_y = box.height / math.log10(y1 / y0)
    angle = math.degrees(math.atan2(per_decade_y, per_decade_x))  # a slope of 1 in log-log
    for roof, xs, ys in slopes:
        x = max(xs[0], xs[1] / 10)
        y = ys[0] * x / xs[0]
        # Not part of the layout (in_layout=False): the axes stay where the angle was measured.
        ax.annotate(roof.label, (x, y), xytext=(-3, 3), textcoords="offset points", rotation=angle,
                    rotation_mode="anchor", fontsize=8, color=COLOURS[roof.key], ha="left", va="bottom",
                    annotation_clip=clip, in_layout=False)


def _tag_point(model, kernel) -> tuple[float, float] | None:
    """Where the tag goes: the kernel's HBM point, else L2, else L1."""
    for level in ("hbm", "l2", "l1"):
        for series in model.points:
            if series.level == level and len(series.kernels):
                hits = np.flatnonzero(series.kernels == kernel)
                if hits.size:
                    return 10 ** series.xs[hits[0]], 10 ** series.ys[hits[0]]
    return None


def _time_share(frame: pd.DataFrame, kernel) -> str:
    """The kernel's share of the run's time, as the explorer's %time column shows it."""
    if "time_share" in frame.columns:
        return f" ({frame.loc[kernel, 'time_share']:.1%} of time)"
    total = float(frame["time_s"].sum())
    return f" ({frame.loc[kernel, 'time_s'] / total:.1%} of the plotted time)" if total else ""


def _short(name: str, width: int = 48) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"
