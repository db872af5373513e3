"""The step budget as a figure (SVG, PNG, PDF) through matplotlib: ``rooftui advise --figure``.

The same bars as the text waterfall (``views.advise.waterfall_lines``), to scale, each
labelled with its value; a bar not collected says so instead of drawing a zero.
"""

from __future__ import annotations

import io

from rooftui.analysis.advise_budget import ADJUST, REMOVED, TOTAL, StepBudget
from rooftui.views.figure import FORMATS, figure_class, lay_out_once, same_file_metadata, saving
from rooftui.views.formats import seconds
from rooftui.views.text import printable

COLOURS = {TOTAL: "#1f77b4", REMOVED: "#d62728", ADJUST: "#ff9896", "kept": "#7f7f7f"}


def waterfall_figure_bytes(budget: StepBudget, fmt: str, title: str = "", dpi: int = 150) -> bytes:
    """The waterfall of ``budget`` as an ``fmt`` ("svg", "png", "pdf") file."""
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}; one of {FORMATS}")
    Figure = figure_class()

    bars = budget.bars
    figure = Figure(figsize=(10, 0.38 * len(bars) + 1.5), layout="constrained")
    ax = figure.subplots()
    running, kept = budget.step_s, 0.0
    scale = 1e6  # µs on the axis
    for row, bar in enumerate(bars):
        y = len(bars) - 1 - row
        if bar.seconds is None:
            ax.text(0, y, "  not collected", va="center", fontsize=8, color="#555555")
            continue
        if bar.kind == TOTAL:
            start = 0.0
        elif bar.kind in (REMOVED, ADJUST):
            running -= bar.seconds
            start = running
        else:
            start, kept = kept, kept + bar.seconds
        colour = COLOURS.get(bar.kind, "#7f7f7f")
        ax.barh(y, bar.seconds * scale, left=start * scale, color=colour, height=0.7)
        sign = "−" if bar.kind in (REMOVED, ADJUST) and bar.seconds else ""
        end = (start + max(bar.seconds, 0.0)) * scale
        ax.text(end, y, f" {sign}{seconds(bar.seconds)}", va="center", fontsize=8)
    ax.set_yticks(range(len(bars)), [printable(bar.label) for bar in reversed(bars)], fontsize=8)
    ax.set_xlabel("µs per step")
    ax.set_xlim(0, budget.step_s * scale * 1.15)
    ax.set_title(printable(title or "Step budget: a bound on the step, not a forecast"), fontsize=10)
    out = io.BytesIO()
    with saving():  # saved as `rooftui plot` saves its figures
        _lay_out_as_saved(figure, fmt, dpi)
        figure.savefig(out, format=fmt, dpi=dpi, metadata=same_file_metadata(fmt))
    return out.getvalue()


def _lay_out_as_saved(figure, fmt: str, dpi: int) -> None:
    """Lay ``figure`` out as savefig does before it saves an ``fmt`` file at ``dpi`` (on that
    format's canvas, the figure at that dpi), then keep that layout with no engine
    (``figure.lay_out_once``): savefig then draws the figure once instead of twice, into
    the same bytes."""
    from matplotlib.backend_bases import get_registered_canvas_class

    get_registered_canvas_class(fmt)(figure)  # the canvas savefig would switch to
    shown_dpi = figure.dpi
    figure.dpi = dpi
    try:
        lay_out_once(figure)
    finally:
        figure.dpi = shown_dpi
