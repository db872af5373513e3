"""The kernel table's columns: which kernel-table column each shows, its label,
width and formatting. No Textual here: ``rooftui plot`` validates ``--sort`` with
it and never loads the UI."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from rooftui.model.columns import PIPELINE_LABELS
from rooftui.views.formats import approximate_mark, intensity_with_magnitude, percent, seconds
from rooftui.views.tui.format import MISSING


def _gflops(value: float) -> str:
    return "–" if value != value else f"{value / 1e9:,.1f}"


def _count(value: Any) -> str:
    return f"{int(value):,}"


@dataclass(frozen=True)
class Column:
    key: str  # the kernel-table column it shows and sorts by
    label: str
    width: int
    format: Callable[..., str] = str  # (value) or, with ``also``, (value, that column's value)
    right: bool = True  # numbers align right
    also: str | None = None  # a second kernel-table column the cell needs

    def cell(self, row: Any) -> str:
        """The cell of one kernel-table row (a Series or a dict)."""
        # ``also`` missing (a single-rank run's grouped rows have no ``communication``)
        # reads as None, as the table's own rendering reads it.
        return self.format(row[self.key], row.get(self.also)) if self.also else self.format(row[self.key])


# The opportunity leads (issue #21): what a kernel would gain at its speed of light
# (``rooftui advise``: time - max(bytes / level roof, FLOPs / pipeline roof, launch floor),
# ``views.advise.with_opportunity``), in seconds and as a share of the run's kernel time
# (the same denominator as %time). Blank where the gain is unknown; the detail pane says why.
COLUMNS = (
    Column("name", "kernel", 24, str, right=False),  # widened to fit by the table
    Column("gain_s", "gain", 9, partial(seconds, missing=MISSING)),
    Column("gain_share", "%gain", 6, partial(percent, missing=MISSING)),
    Column("time_s", "time", 9, partial(seconds, missing=MISSING)),
    Column("time_share", "%time", 6, partial(percent, missing=MISSING)),
    Column("bound", "bound", 11, str, right=False),
    Column("roof_fraction", "%roof", 6, partial(percent, missing=MISSING)),
    # After %roof, so that gain to bound fit beside a readable name at 80 columns.
    Column("count", "count", 7, _count),
    Column("flop_rate", "GFLOP/s", 10, _gflops),
    Column("ai_l1", "AI L1", 8, partial(intensity_with_magnitude, missing=MISSING)),
    Column("ai_l2", "AI L2", 8, partial(intensity_with_magnitude, missing=MISSING)),
    Column("ai_hbm", "AI HBM", 8, partial(intensity_with_magnitude, missing=MISSING)),
    Column("ai_smem", "AI SMEM", 8, partial(intensity_with_magnitude, missing=MISSING)),
    # "FP16~": FP16 FLOPs ncu counts approximately, marked as `rooftui summary` marks them.
    Column(
        "pipeline",
        "pipeline",
        11,
        lambda p, approximate: PIPELINE_LABELS.get(p, str(p)) + approximate_mark(p, approximate),
        right=False,
        also="fp16_approximate",
    ),
    # Zero-AI launches ("13/18" of a mixed group); NCCL kernels move data between GPUs:
    # "comm", not a zero-AI compute kernel (``view_state.zero_ai_cells``).
    Column("zero_ai", "0-AI", 5, lambda z, cell: cell or "", right=False, also="zero_ai_cell"),
    Column("phase", "phase", 9, str, right=False),
)

# The explorer opens sorted by gain, most first: what to work on leads.
DEFAULT_SORT = "gain_s"

# The name column starts with the kernel's tag on the roofline ("1".."5", the heaviest
# kernels, ``ViewState.tags``), so a labelled point has its row.
TAG_WIDTH = 2

# Columns are separated by GAP. The name column takes what the others leave, and at
# least 2/5 of the width (the others then scroll), within these bounds, and no wider
# than the longest name.
GAP = 1
NAME_MIN_WIDTH, NAME_MAX_WIDTH = 24, 80
NAME_SHARE = 0.4


def name_column_width(columns: tuple[Column, ...], width: int, longest_name: int) -> int:
    """The name column's width in a table ``width`` columns wide."""
    scrolling = sum(c.width + GAP for c in columns[1:])
    spare = max(width - scrolling - GAP, int(width * NAME_SHARE))
    return max(NAME_MIN_WIDTH, min(NAME_MAX_WIDTH, longest_name, spare))


def columns_in_view(columns: tuple[Column, ...], width: int, longest_name: int) -> tuple[Column, ...]:
    """The columns a table ``width`` columns wide shows whole before any horizontal
    scrolling: the name, then as many of the others as fit."""
    room = width - name_column_width(columns, width, longest_name)
    shown = [columns[0]]
    for column in columns[1:]:
        room -= column.width + GAP
        if room < 0:
            break
        shown.append(column)
    return tuple(shown)


# Shown after the name only when the run holds several ranks (``columns_for``).
RANK_COLUMN = Column("rank", "rank", 4, lambda r: r or "?", right=False)


def ranks_of(frame: Any) -> list[str]:
    """The ranks of a kernel table, in rank order ("" is a report naming none)."""
    if "rank" not in frame:
        return []
    ranks = {str(r) for r in frame["rank"].unique()}
    return sorted(ranks, key=lambda r: (r == "", int(r) if r.isdigit() else 0, r))


def columns_for(frame: Any) -> tuple[Column, ...]:
    """The table's columns for ``frame``: ``COLUMNS``, plus the rank after the name
    when the run holds more than one rank (single-rank runs look as they always did)."""
    if len(ranks_of(frame)) < 2:
        return COLUMNS
    # Several ranks: a row's time is a share of its own rank's (``view_state.with_display_columns``).
    per_rank = [replace(c, label="%rank") if c.key == "time_share" else c for c in COLUMNS[1:]]
    return (COLUMNS[0], RANK_COLUMN, *per_rank)
