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
from rooftui.model.frames import heaviest_rows, map_unique
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
    # The states' ranks (least known first), and per cap whether a launch that lacks the
    # pipeline's FLOPs has no cap: added as columns, so that one groupby call of each
    # kind aggregates them all (each call cost ~1 ms of pandas, about 30 of them).
    states = [state_column(c) for c in WORK_COLUMNS if state_column(c) in kernels]
    caps = [
        cap_column(p) for p in CAPPED if cap_column(p) in kernels and state_column(flop_column(p)) in kernels
    ]
    extra = {f"_rank {state}": _ranks(kernels[state]) for state in states}
    for pipeline in CAPPED:
        if (cap := cap_column(pipeline)) in caps:
            lacks = kernels[state_column(flop_column(pipeline))].isin((NOT_COLLECTED, UNCOUNTED))
            extra[f"_uncapped {cap}"] = lacks.to_numpy(dtype=bool) & kernels[cap].isna().to_numpy()
    extra |= zero_ai.launch_columns(kernels)
    kernels = pd.concat([kernels, pd.DataFrame(extra, index=kernels.index)], axis=1)
    grouped = kernels.groupby(keys, sort=False, dropna=False)
    summed = grouped[list(_SUMMED) + caps].sum(min_count=1)
    out = summed[list(_SUMMED)]
    groups = out.index  # every aggregate of ``grouped`` has its groups in this order
    out["count"] = grouped["launches"].sum() if "launches" in kernels else grouped.size()
    out["time_mean_s"] = out["time_s"] / out["count"]
    heaviest = kernels.loc[heaviest_rows(kernels, keys)].set_index(keys)
    if not heaviest.index.equals(groups):  # every group has one (heaviest_rows); order as ``groups``
        heaviest = heaviest.reindex(groups)
    heaviest = heaviest.set_axis(groups)  # the same index object: no alignment per column
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
    if states:  # a sum is as known as its least-known launch (not collected where none is one)
        least = grouped[[f"_rank {state}" for state in states]].min().set_axis(groups)
        names = np.array([*STATE_ORDER, NOT_COLLECTED], dtype=object)  # NaN: none had a state
        for state in states:
            rank = least[f"_rank {state}"].to_numpy(dtype=float)
            place = np.where(np.isnan(rank), len(STATE_ORDER), rank).astype(int)
            out[state] = pd.Series(names[place], index=groups)  # (dtype str, as map gave)
    # The caps of a sum (model.flop_caps): the sum of its launches' caps, unknown when a
    # launch that lacks the pipeline's FLOPs has no cap.
    if caps:
        uncapped = grouped[[f"_uncapped {cap}" for cap in caps]].any().set_axis(groups)
        for cap in caps:
            out[cap] = summed[cap].set_axis(groups).where(~uncapped[f"_uncapped {cap}"])
    out["flops_partial"] = flops_partial(out) & out["flops"].notna()
    out["pipeline"] = dominant_pipeline(out)  # of the summed FLOPs, not of one launch
    zero = zero_ai.from_groups(grouped).set_axis(groups)
    for column in ("zero_ai", zero_ai.LAUNCHES, zero_ai.TIME):
        out[column] = zero[column]
    out.loc[out["zero_ai"].fillna(False).astype(bool), "pipeline"] = "none"
    flags = ["fp16_approximate"] + ["l1_bypassed"] * ("l1_bypassed" in kernels)
    marked = grouped[flags].any()  # l1_bypassed: its L1 point is marked if any launch's was
    for column in flags:
        out[column] = marked[column]
    flops = out["flops"].to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        for level in LEVELS:
            moved = out[f"bytes_{level}"].to_numpy(dtype=float, na_value=np.nan)
            out[f"ai_{level}"] = np.where(moved > 0, flops / moved, np.nan)
        time_s = out["time_s"].to_numpy(dtype=float, na_value=np.nan)
        out["flop_rate"] = np.where(time_s > 0, flops / time_s, np.nan)
    instruction_columns.add_ratios(out)
    out = out.reset_index()
    # Two kernels of one short name: each shown by its function with namespaces.
    same_name = out.duplicated([k for k in keys if k != "_function"] + ["name"], keep=False)
    out.loc[same_name, "name"] = out.loc[same_name, "_function"]
    out = out.drop(columns="_function")
    return out.sort_values("time_s", ascending=False, kind="stable").reset_index(drop=True)


def _ranks(states: pd.Series) -> np.ndarray:
    """Each state's place in ``STATE_ORDER`` (least known first), NaN for any other value;
    the least-known state of a group is the one of its smallest rank (``combine_states``)."""
    values = states.to_numpy(dtype=object)
    ranks = np.full(len(values), np.nan)
    for rank, state in enumerate(STATE_ORDER):
        ranks[values == state] = rank
    return ranks


def share(values: pd.Series, total: float) -> pd.Series:
    return values / total if total > 0 else values * np.nan
