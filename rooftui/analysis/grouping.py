"""Invocations of one kernel aggregated: the paper's 2,709 optimizer launches as one point."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.analysis import zero_ai
from rooftui.model import instruction_columns
from rooftui.model.columns import (
    BYTE_COLUMNS,
    FLOP_COLUMNS,
    LEVELS,
    NOT_COLLECTED,
    STATE_ORDER,
    UNCOUNTED,
    WORK_COLUMNS,
    byte_source_column,
    flop_column,
    state_column,
)
from rooftui.model.flop_caps import CAPPED, cap_column
from rooftui.model.flop_states import dominant_pipeline, flops_partial
from rooftui.model.frames import map_unique
from rooftui.model.names import qualified_name

_SUMMED = (
    "time_s",
    *FLOP_COLUMNS,
    flop_column("tensor_int8"),
    "flops_tensor",
    "flops",
    *BYTE_COLUMNS,
    "register_moves",
    *instruction_columns.COUNT_COLUMNS,
)


def group_by_name(kernels: pd.DataFrame) -> pd.DataFrame:
    """One row per (device, kernel), or per (device, rank, kernel) when the run
    holds several ranks (a kernel: its function with namespaces, ``names.qualified_name``):
    count, total and mean time, summed work.

    Intensities, rates and the pipeline are recomputed from the sums (not
    averaged), the phase is that of the longest invocation. ``zero_ai_launches`` of
    ``count`` are zero-AI; ``zero_ai`` holds only if every invocation is known to be
    (``rooftui.analysis.zero_ai``). The kernel-table columns keep their meaning.
    """
    if kernels.empty:
        empty = {zero_ai.LAUNCHES: pd.Series(dtype=int), zero_ai.TIME: pd.Series(dtype=float)}
        return kernels.assign(count=pd.Series(dtype=int), time_mean_s=pd.Series(dtype=float), **empty)
    # Several ranks stay apart (two nodes' "device 0" are different GPUs of one run);
    # a single-rank run's rows are as they were, with no rank or communication column.
    several_ranks = "rank" in kernels and kernels["rank"].nunique(dropna=False) > 1
    # Keyed by the function with its namespaces: cask_cudnn::computeOffsetsKernel and
    # cudnn::gemm::computeOffsetsKernel are two kernels with one short name.
    kernels = kernels.assign(_function=map_unique(kernels["demangled"].astype(str), qualified_name))
    keys = ["device", "rank", "_function"] if several_ranks else ["device", "_function"]
    grouped = kernels.groupby(keys, sort=False, dropna=False)
    out = grouped[list(_SUMMED)].sum(min_count=1)
    out["count"] = grouped["launches"].sum() if "launches" in kernels else grouped.size()
    out["time_mean_s"] = out["time_s"] / out["count"]
    heaviest = kernels.loc[grouped["time_s"].idxmax().dropna()].set_index(keys)
    for column in (
        "id",
        "report",
        "ncu_id",
        "cc",
        "name",
        "demangled",
        "grid",
        "block",
        "nvtx",
        "phase",
        "phase_inferred",
        "sm_clock_hz",
        "time_source",
        *(byte_source_column(level) for level in LEVELS),
    ):
        if column in heaviest:
            out[column] = heaviest[column]
    if "communication" in kernels and (several_ranks or kernels["communication"].any()):
        out["communication"] = heaviest["communication"]  # by name: the same for every launch
    by_group = [kernels[k] for k in keys]
    for column in WORK_COLUMNS:  # a sum is as known as its least-known launch
        if state_column(column) in kernels:
            out[state_column(column)] = _least_known(kernels[state_column(column)], by_group)
    # The caps of a sum (model.flop_caps): the sum of its launches' caps, unknown when a
    # launch that lacks the pipeline's FLOPs has no cap.
    for pipeline in CAPPED:
        cap, state = cap_column(pipeline), state_column(flop_column(pipeline))
        if cap in kernels and state in kernels:
            uncapped = kernels[state].isin((NOT_COLLECTED, UNCOUNTED)) & kernels[cap].isna()
            total = grouped[cap].sum(min_count=1)
            out[cap] = total.where(~uncapped.groupby(by_group, sort=False, dropna=False).any())
    out["flops_partial"] = flops_partial(out) & out["flops"].notna()
    out["pipeline"] = dominant_pipeline(out)  # of the summed FLOPs, not of one launch
    zero = zero_ai.group_columns(kernels, keys)
    for column in ("zero_ai", zero_ai.LAUNCHES, zero_ai.TIME):
        out[column] = zero[column]
    out.loc[out["zero_ai"].fillna(False).astype(bool), "pipeline"] = "none"
    out["fp16_approximate"] = grouped["fp16_approximate"].any()
    if "l1_bypassed" in kernels:  # its L1 point is marked if any launch's was
        out["l1_bypassed"] = grouped["l1_bypassed"].any()
    for level in LEVELS:
        moved = out[f"bytes_{level}"]
        out[f"ai_{level}"] = (out["flops"] / moved).where(moved > 0)
    out["flop_rate"] = (out["flops"] / out["time_s"]).where(out["time_s"] > 0)
    instruction_columns.add_ratios(out)
    out = out.reset_index()
    # Two kernels of one short name: each shown by its function with namespaces.
    same_name = out.duplicated([k for k in keys if k != "_function"] + ["name"], keep=False)
    out.loc[same_name, "name"] = out.loc[same_name, "_function"]
    out = out.drop(columns="_function")
    return out.sort_values("time_s", ascending=False, kind="stable").reset_index(drop=True)


def _least_known(states: pd.Series, by_group: list[pd.Series]) -> pd.Series:
    """``combine_states`` of each group's launches, for every group at once: the state
    first in ``STATE_ORDER`` among its launches' (not collected where none is one)."""
    order = {state: rank for rank, state in enumerate(STATE_ORDER)}
    least = states.map(order).groupby(by_group, sort=False, dropna=False).min()
    return least.map(dict(enumerate(STATE_ORDER))).fillna(NOT_COLLECTED)


def share(values: pd.Series, total: float) -> pd.Series:
    return values / total if total > 0 else values * np.nan
