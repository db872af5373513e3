"""What the legend under the explorer's roofline says — no Textual: the roofs, notes and
tags the plot leaves unsaid (``must_say``), the legend text that fits a width and a number
of rows (``legend``) and what is left over for the status line, in few words
(``in_few_words``). ``RooflineView`` (roofline_view.py) chooses the rows and keeps the
answers per figure."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from rooftui.model.columns import LEVEL_LABELS, OPTIONAL_LEVELS
from rooftui.views.palette import SERIES_COLOURS
from rooftui.views.tui.format import ascii_safe
from rooftui.views.tui.roofline_layout import ASCII_MARKERS, LEVEL_COLOURS, UNICODE_MARKERS, Layout, rgb
from rooftui.views.tui.roofline_model import Roof, RooflineFigure, roof_sources, short_name

if TYPE_CHECKING:
    from rooftui.views.tui.roofline_view import RooflineInputs

LEGEND_ROWS = 3  # the most rows the legend under the plot takes
LEGEND_PADDING = 2  # the legend's left and right padding (app.tcss)


@dataclass(frozen=True)
class Said:
    """A thing the legend must say: in full, and in the status line's few words."""

    text: str  # "FP32 65.7 TFLOP/s (empirical)"
    short: str  # "FP32"
    roof: bool = False  # a roof's value: shortened together with the others ("FP32/FP64 roofs")


def in_few_words(hidden: list[Said], count_roofs: bool = False) -> list[str]:
    """The short forms of ``hidden``, the roofs named together: ["34 zero-AI not
    plotted", "FP32/FP64 roofs", "sources"]; with ``count_roofs``, fewer words still:
    the roofs counted ("3 roofs") where their names do not fit."""
    words: list[str] = []
    roofs = [said.short for said in hidden if said.roof]
    for said in hidden:
        if not said.roof:
            words.append(said.short)
        elif said.short == roofs[0]:
            named = "/".join(roofs) if not count_roofs or len(roofs) == 1 else str(len(roofs))
            words.append(named + (" roofs" if len(roofs) > 1 else " roof"))
    return words


def unlabelled_roofs(figure: RooflineFigure, layout: Layout) -> list[Roof]:
    """The roofs whose full label (value and source) is not written on the plot."""
    return [roof for roof in figure.roofs if roof.key not in layout.labelled]


def must_say(
    figure: RooflineFigure,
    unlabelled: list[Roof],
    ascii_mode: bool = False,
    off_plot: list[Said] | None = None,
) -> list[Said]:
    """What the plot leaves unsaid: roofs with no source at all, kernels not drawn
    or drawn on the edge, and every roof whose value and source are not written
    beside it; each with the few words the status line uses when the legend is full."""
    said = [Said(message, message.split(":")[0]) for message in figure.missing]
    below = " (" + str((ASCII_MARKERS if ascii_mode else UNICODE_MARKERS)["below"]["hbm"]) + ")"
    for note in filter(None, figure.note.split("; ")):
        if "on the bottom edge" in note:
            said.append(Said(note + below, f"{figure.below:,} on the bottom edge{below}"))
        elif "L1 bypassed" in note:  # a key of the legend's own (legend)
            continue
        elif "merged per cell" in note:
            said.append(Said(note, note.split(", ")[-1]))
        else:
            said.append(Said(note, note))
    # In launches, as the status line counts zero-AI: "34 zero-AI launches not plotted".
    said += [Said(gone.text, gone.short) for gone in figure.not_plotted]
    said += off_plot or []  # tags in the table with no place on this plot
    if not any(r.kind == "bandwidth" for r in figure.roofs) and not figure.missing:
        said.append(Said("no memory level shown", "no memory level shown"))
    said += [Said(roof.label, short_name(roof).replace(" · ", "/"), roof=True) for roof in unlabelled]
    sources = roof_sources(figure.roofs)
    if sources:
        said.append(Said(sources, "sources"))
    if ascii_mode:
        said = [Said(ascii_safe(s.text), ascii_safe(s.short), s.roof) for s in said]
    return said


def legend(
    figure: RooflineFigure,
    unlabelled: list[Roof],
    grouped: bool,
    width: int = 10_000,
    rows: int = LEGEND_ROWS,
    ascii_mode: bool = False,
    off_plot: list[Said] | None = None,
) -> tuple[Text, list[Said]]:
    """The legend text, and what must be said but did not fit in ``width`` × ``rows``."""
    markers = ASCII_MARKERS if ascii_mode else UNICODE_MARKERS
    mode = "grouped by name" if grouped else "single invocations"
    shown: list[str] = []
    left_over: list[Said] = []
    for part in must_say(figure, unlabelled, ascii_mode, off_plot):
        # Wrapped at spaces as the legend wraps; a part goes under the plot only if
        # everything up to it still fits in the legend's rows.
        lines = textwrap.wrap(" · ".join([mode, *shown, part.text]), width)
        if len(lines) <= rows:
            shown.append(part.text)
        else:
            left_over.append(part)
    text = Text(mode + " · ")
    for part_text in shown:
        text.append(part_text, style="bold")
        text.append(" · ")
    keys = Text()
    heavy: dict[str, str] = markers["heavy"]
    drawn = {series.level for series in figure.points} | {roof.key for roof in figure.roofs}
    for level, label in LEVEL_LABELS.items():
        if level in OPTIONAL_LEVELS and level not in drawn:  # SMEM: only where collected
            continue
        keys.append(f"{heavy[level]} {label} ", style=rgb(LEVEL_COLOURS[level]))
    for level in ("global", "shared"):  # the instruction roofline's wall series
        if any(series.level == level and len(series.xs) for series in figure.points):
            keys.append(f"{heavy[level]} {level} ", style=rgb(SERIES_COLOURS[level]))
    keys.append(f"{markers['selected']} selected", style="bold")
    keys.append(" · 1-5 heaviest")
    if any(series.emphasis == "bypassed" for series in figure.points):
        # L1 points of TMA kernels, on the right edge: l1tex__t_bytes does not see TMA
        keys.append(f" · {markers['bypassed']['l1']} L1 bypassed (TMA)", style=rgb(LEVEL_COLOURS["l1"]))
    text.append_text(keys)
    if ascii_mode:
        text = Text(ascii_safe(text.plain))
    return text, left_over


def legend_width(pane_width: int) -> int:
    """The legend's text width in a pane ``pane_width`` cells wide."""
    return max(10, pane_width - LEGEND_PADDING)


def off_plot_tags(
    inputs: RooflineInputs | None, drawn: RooflineInputs | None, layout: Layout | None
) -> list[Said]:
    """What to say of ``inputs``' tags of shown rows that ``layout`` did not draw: those
    of kernels on another GPU (``drawn`` holds the shown GPU's rows), and the others (no
    room near their points, or no level of theirs shown)."""
    if inputs is None or not inputs.tags or drawn is None or layout is None:
        return []
    placed = {label.text for label in layout.labels if label.series == "tag"}
    shown, here = set(inputs.frame.index.tolist()), set(drawn.frame.index.tolist())
    missing = [
        (tag, label in here) for label, tag in inputs.tags.items() if label in shown and tag not in placed
    ]
    said = []
    for on_this_gpu, where in ((True, "off the plot"), (False, "on another GPU (v)")):
        tags = sorted((tag for tag, here_too in missing if here_too == on_this_gpu), key=int)
        if tags:
            text = ("tags " if len(tags) > 1 else "tag ") + ", ".join(tags) + " " + where
            said.append(Said(text, text.removesuffix(" (v)")))
    return said
