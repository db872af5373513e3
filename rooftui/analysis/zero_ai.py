"""Zero-AI, defined once: per launch, as the paper's Table III counts.

A launch is zero-AI when it is known to have done no floating-point operation and
no integer Tensor Core operation (``kernel_table.add_derived``: ``zero_ai`` is
True). A launch for which the report has none of the counters has ``zero_ai`` unknown (NA)
and is not counted as zero-AI; one judged without some counters is said
(``judged_without_note``). A grouped row counts the zero-AI launches it holds
(``zero_ai_launches`` of ``count``); its own ``zero_ai`` is True only when every
launch is known to be zero-AI, False when one is known not to be, else unknown.

Every count the views show (Table III, the summary, the JSON, the explorer's
status line and its zero-AI filter) comes from these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rooftui.model.columns import (
    FLOAT_PIPELINES,
    NOT_APPLICABLE,
    PIPELINE_LABELS,
    flop_column,
    state_column,
)

if TYPE_CHECKING:
    from pandas.core.groupby import DataFrameGroupBy

LAUNCHES = "zero_ai_launches"  # grouped rows: launches that are zero-AI
TIME = "zero_ai_time_s"  # grouped rows: the time of those launches


def launch_is_zero_ai(kernels: pd.DataFrame) -> np.ndarray:
    """Per kernel-table row: known to be zero-AI."""
    return kernels["zero_ai"].astype("boolean").fillna(False).to_numpy(dtype=bool)


def _row_launches(kernels: pd.DataFrame) -> np.ndarray:
    """Launches a kernel-table row stands for: 1, or ``launches`` for rows joined per
    kernel name (one-metric-per-run collections whose launch order differs)."""
    if "launches" in kernels.columns:
        return kernels["launches"].to_numpy(dtype=np.int64)
    return np.ones(len(kernels), dtype=np.int64)


def judged_without(kernels: pd.DataFrame) -> list[str]:
    """The pipelines whose counters are missing for some launch counted zero-AI: such a
    launch did none of the work the report counts, but may have done this. A pipeline
    the GPU lacks (``not_applicable``: every Tensor type but FP16 on a V100) is not
    missing: no launch did that work."""
    zero = launch_is_zero_ai(kernels)
    if not zero.any():
        return []

    def missing(pipeline: str) -> bool:
        blank = pd.isna(kernels[flop_column(pipeline)].to_numpy()[zero])
        state = state_column(flop_column(pipeline))
        if state in kernels:
            blank &= kernels[state].to_numpy(dtype=object)[zero] != NOT_APPLICABLE
        return bool(blank.any())

    return [pipeline for pipeline in (*FLOAT_PIPELINES, "tensor_int8") if missing(pipeline)]


def unknown_launches(kernels: pd.DataFrame) -> int:
    """Launches whose zero-AI is unknown: the report has none of their work counters."""
    return int(_row_launches(kernels)[kernels["zero_ai"].astype("boolean").isna().to_numpy()].sum())


def launches(rows: pd.DataFrame) -> np.ndarray:
    """Zero-AI launches per row: invocations count 0 or 1, grouped rows their own."""
    if LAUNCHES in rows.columns:
        return rows[LAUNCHES].to_numpy(dtype=np.int64)
    return launch_is_zero_ai(rows) * _row_launches(rows)


def time_s(rows: pd.DataFrame) -> np.ndarray:
    """Seconds spent in zero-AI launches per row."""
    if TIME in rows.columns:
        return rows[TIME].to_numpy(dtype=float)
    return np.where(launch_is_zero_ai(rows), rows["time_s"].to_numpy(dtype=float), 0.0)


def launch_counts(rows: pd.DataFrame) -> np.ndarray:
    """Launches per row: ``count`` for grouped rows, 1 for invocations (``launches``
    for a row that stands for several)."""
    if "count" in rows.columns:
        return rows["count"].to_numpy(dtype=np.int64)
    return _row_launches(rows)


def group_columns(kernels: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group of ``kernels`` (invocations) by ``keys``: ``zero_ai`` (True when every
    launch is known zero-AI, False when one is known not to be, else NA),
    ``zero_ai_launches`` and ``zero_ai_time_s``."""
    frame = kernels[keys].assign(**launch_columns(kernels))
    return from_groups(frame.groupby(keys, sort=False, dropna=False))


def launch_columns(kernels: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per launch, what ``group_columns`` aggregates: a frame grouped with these columns
    gives it to ``from_groups`` (``grouping.group_by_name`` groups once for everything)."""
    state = kernels["zero_ai"].astype("boolean")
    return {
        "_zero": launches(kernels),
        "_zero_time": time_s(kernels),
        "_not_zero": (state == False).fillna(False).to_numpy(dtype=bool),  # noqa: E712 (NA-aware)
        "_unknown": state.isna().to_numpy(dtype=bool),
    }


def from_groups(grouped: DataFrameGroupBy) -> pd.DataFrame:
    """``group_columns`` of a grouped frame that holds ``launch_columns``."""
    summed, seen = grouped[["_zero", "_zero_time"]].sum(), grouped[["_not_zero", "_unknown"]].any()
    out = pd.DataFrame({LAUNCHES: summed["_zero"], TIME: summed["_zero_time"]})
    not_zero, unknown = seen["_not_zero"].to_numpy(), seen["_unknown"].to_numpy()
    # False where one launch is known not to be; else True when none is unknown; else NA
    out["zero_ai"] = pd.arrays.BooleanArray(~not_zero, ~not_zero & unknown)
    return out


def filter_mask(rows: pd.DataFrame, mode: str) -> np.ndarray:
    """``mode`` "only": rows holding a zero-AI launch; "hide": rows holding a launch
    that is not (known to be) zero-AI; anything else keeps every row."""
    zero = launches(rows)
    if mode == "only":
        return zero > 0
    if mode == "hide":
        return launch_counts(rows) - zero > 0
    return np.ones(len(rows), dtype=bool)


def judged_without_note(kernels: pd.DataFrame) -> str | None:
    """The one-line note when zero-AI launches were judged without some counters."""
    missing = judged_without(kernels)
    if not missing:
        return None
    names = ", ".join(PIPELINE_LABELS[p] for p in missing)
    return (
        f"zero-AI is judged without {names} counters (not in the report): a launch counted "
        "zero-AI did none of the work the report counts, but may have done this"
    )


@dataclass(frozen=True)
class Tally:
    """Zero-AI in the words every view uses: launches and kernels, named as such.

    A kernel is a kernel name (per GPU, and per rank where a run has several), as the
    grouped table shows it; it is zero-AI when every launch of it is, and "in part"
    when some launches are and others are not (a mixed group, shown "13/18").
    """

    launches: int  # launches known to be zero-AI
    all_launches: int
    kernels: int  # kernels whose every launch is zero-AI
    kernels_in_part: int  # kernels with zero-AI launches among others
    all_kernels: int
    unknown_launches: int  # no work counter at all: not counted as zero-AI

    def text(self) -> str:
        """ "34 of 179 launches zero-AI (23 of 73 kernels, 2 more in part)"."""
        part = f", {self.kernels_in_part} more in part" if self.kernels_in_part else ""
        unknown = f"; {self.unknown_launches} unknown" if self.unknown_launches else ""
        return (
            f"{self.launches} of {self.all_launches} launches zero-AI "
            f"({self.kernels} of {self.all_kernels} kernels{part}){unknown}"
        )


def kernel_keys(rows: pd.DataFrame) -> list[str]:
    """The columns that make a kernel of ``rows``: as ``grouping.group_by_name`` groups."""
    several_ranks = "rank" in rows.columns and rows["rank"].nunique(dropna=False) > 1
    keys = ["device", "rank", "name"] if several_ranks else ["device", "name"]
    return [key for key in keys if key in rows.columns]


def tally(rows: pd.DataFrame) -> Tally:
    """The zero-AI launches and kernels of ``rows``, invocations or grouped rows alike.

    Integer Tensor Core work is work: a launch with INT8 Tensor ops is never zero-AI
    (``zero_ai`` is defined so in the kernel table), though it has no FLOP."""
    zero, count = launches(rows), launch_counts(rows)
    keys = kernel_keys(rows)
    per_kernel = (
        pd.DataFrame({"zero": zero, "count": count, **{k: rows[k].to_numpy() for k in keys}})
        .groupby(keys, sort=False, dropna=False)[["zero", "count"]]
        .sum()
    )
    whole = per_kernel["zero"] == per_kernel["count"]
    some = per_kernel["zero"] > 0
    if "count" in rows.columns:  # grouped rows: unknown launches are not kept per group
        state = rows["zero_ai"].astype("boolean")
        unknown = int(count[state.isna().to_numpy()].sum() - zero[state.isna().to_numpy()].sum())
    else:
        unknown = unknown_launches(rows)
    return Tally(
        launches=int(zero.sum()),
        all_launches=int(count.sum()),
        kernels=int((some & whole).sum()),
        kernels_in_part=int((some & ~whole).sum()),
        all_kernels=len(per_kernel),
        unknown_launches=unknown,
    )


def share_text(zero: int, launches: int) -> str:
    """A row's zero-AI launches as a cell: "" for none, "18" when all 18 are, "13/18"
    when 13 of 18 are (a mixed group)."""
    if zero <= 0:
        return ""
    return str(zero) if zero >= launches else f"{zero}/{launches}"
