"""Memory bounds on partial FLOP totals, with the uncounted work capped from above.

A launch whose FLOP total is partial (some applicable counter not collected, or Tensor
work seen but not countable) has a true AI above the shown one at every level, so the
plain roofline cannot say whether a memory roof binds it. It can when the report bounds
the missing work: each missing pipeline p did at most ``flops_cap_p`` FLOPs
(``rooftui.model.flop_caps``), so at the roofs its compute time is at most

    T_cap = Σ_CUDA-core p cap_p / P_p  +  max_Tensor k cap_k / P_k

(Tensor types share one pipe, whose busy cycles cap each alone; the max is the most any
mix of them could take: Σ_k F_k / P_k ≤ busy · t · max_k(p_k · f / P_k)), and the known
part's is T_known = Σ_p F_p / P_p, the time of the mixed compute roof [Williams et al.,
"Roofline", CACM 2009; the mix as in ``roofline.compute_roof``]. The memory time at level
L is T_L = bytes_L / B_L. With every level that moved bytes roofed, the level L* of the
largest T_L binds whenever T_L* ≥ T_known + T_cap: however the missing work is split, the
compute time cannot exceed that, so the kernel is memory-bound at L* and its % of roof,
bytes_L* / (t · B_L*), does not depend on the FLOPs. A compute roof never binds on a
capped total (the cap is an upper bound, not the work). Such a bound's ``bound_basis`` is
``capped``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import (
    BOUND_LEVELS,
    CUDA_CORE_PIPELINES,
    FLOAT_PIPELINES,
    LEVEL_LABELS,
    NOT_COLLECTED,
    PIPELINE_LABELS,
    TENSOR_PIPELINES,
    UNCOUNTED,
    flop_column,
    state_column,
)
from rooftui.model.flop_caps import cap_column

# What a bound rests on (column ``bound_basis``; "" where there is no bound).
COMPLETE = "complete"  # a FLOP total with every applicable term known
KNOWN_PART = "known_part"  # compute-bound on the known FLOPs alone (more only takes longer)
CAPPED = "capped"  # memory-bound with the missing FLOPs capped by their pipes' busy cycles
# Zero-AI on the counters the report holds, some applicable ones not collected (the paper's
# V100 runs: no FP64): bound, as every zero-AI launch, by the level it uses most.
ZERO_AI_PARTIAL = "zero_ai_partial"
BASES = {
    COMPLETE: "every applicable FLOP counter known",
    KNOWN_PART: (
        "compute-bound on the known FLOPs alone: the FLOP total is partial, and more work only takes longer"
    ),
    CAPPED: (
        "partial FLOP total with the missing work capped: the memory time is at least the "
        "known compute time plus the most the uncounted pipelines could take (their pipes' "
        "busy cycles × peak per cycle)"
    ),
    ZERO_AI_PARTIAL: (
        "zero-AI on the counters collected (some were not: see the 'zero-AI is judged without' "
        "note), bound by the memory level whose bandwidth it uses most"
    ),
}


def _missing(table: pd.DataFrame, pipeline: str) -> pd.Series:
    state = table.get(state_column(flop_column(pipeline)))
    if state is None:
        return pd.Series(False, index=table.index)
    return state.isin((NOT_COLLECTED, UNCOUNTED))


def compute_time_bounds(table: pd.DataFrame, ceilings: CeilingSet) -> tuple[pd.Series, pd.Series]:
    """Per launch, in seconds: the known FLOPs' time at their roofs, and the most time the
    missing pipelines could add (0 where none is missing; NaN where one has no cap or no roof)."""
    known = pd.Series(0.0, index=table.index)
    for pipeline in (*FLOAT_PIPELINES, "tensor_int8"):  # INT8 OPs take Tensor time too
        flops = table[flop_column(pipeline)].fillna(0.0)
        ceiling = ceilings.compute(pipeline)
        known += flops / ceiling.value if ceiling else flops.where(flops == 0)
    capped = pd.Series(0.0, index=table.index)
    tensor = pd.Series(0.0, index=table.index)
    for pipeline in (*CUDA_CORE_PIPELINES, *TENSOR_PIPELINES, "tensor_int8"):
        missing = _missing(table, pipeline)
        ceiling = ceilings.compute(pipeline)
        column = cap_column(pipeline)
        cap = table[column] if column in table else pd.Series(np.nan, index=table.index)
        time = cap / ceiling.value if ceiling else pd.Series(np.nan, index=table.index)
        time = time.where(missing, 0.0)
        if pipeline in CUDA_CORE_PIPELINES:
            capped += time
        else:
            tensor = np.fmax(tensor, time).where(time.notna() & tensor.notna())
    return known, capped + tensor


def capped_memory_bounds(
    table: pd.DataFrame, ceilings: CeilingSet, candidates: pd.Series
) -> tuple[pd.Series, pd.Series]:
    """For the ``candidates`` (partial totals with no bound), the level that binds each
    whatever its uncounted work ("" where the caps cannot decide) and its % of roof."""
    known, extra = compute_time_bounds(table, ceilings)
    times = {}
    for level in BOUND_LEVELS:
        bandwidth = ceilings.bandwidth(level)
        moved = table[f"bytes_{level}"]
        if bandwidth is None:
            times[level] = pd.Series(np.where(moved > 0, np.nan, 0.0), index=table.index)
        else:
            times[level] = moved.fillna(0.0) / bandwidth.value
    memory = pd.DataFrame(times)
    roofed = memory.notna().all(axis=1) & (memory.sum(axis=1) > 0)
    slowest = memory.fillna(-np.inf).idxmax(axis=1)
    longest = memory.max(axis=1)
    binds = candidates & roofed & (longest >= known + extra)
    level = slowest.where(binds, "")
    fraction = (longest / table["time_s"]).where(binds)
    return level, fraction


def why_not_capped(table: pd.DataFrame, ceilings: CeilingSet) -> pd.Series:
    """Per launch, why the caps could not decide a partial total's bound, in a few words
    ("" where nothing is missing); the first reason that applies."""
    reasons = pd.Series("", index=table.index, dtype=object)

    def give(mask: pd.Series, reason: pd.Series | str) -> None:
        todo = mask.fillna(False).astype(bool) & (reasons == "")
        reasons[todo] = reason[todo] if isinstance(reason, pd.Series) else reason

    for pipeline in (*CUDA_CORE_PIPELINES, *TENSOR_PIPELINES, "tensor_int8"):
        missing = _missing(table, pipeline)
        column = cap_column(pipeline)
        no_cap = table[column].isna() if column in table else pd.Series(True, index=table.index)
        label = PIPELINE_LABELS[pipeline]
        give(missing & no_cap, f"the report holds no busy % or per-cycle peak to cap {label}")
        if ceilings.compute(pipeline) is None:
            give(missing, f"no {label} roof to time its cap at")
    for level in BOUND_LEVELS:
        if ceilings.bandwidth(level) is None:
            give(table[f"bytes_{level}"] > 0, f"no {LEVEL_LABELS[level]} roof for its bytes")
    known, extra = compute_time_bounds(table, ceilings)
    slowest = pd.concat(
        [
            table[f"bytes_{level}"].fillna(0.0) / bandwidth.value
            for level in BOUND_LEVELS
            if (bandwidth := ceilings.bandwidth(level)) is not None
        ]
        or [pd.Series(0.0, index=table.index)],
        axis=1,
    ).max(axis=1)
    text = (
        "the missing work could take up to "
        + (extra * 1e6).map(lambda us: f"{us:.3g}")
        + " µs at its roofs, more than the memory time allows"
    )
    give(extra.notna() & (slowest < known + extra), text)
    return reasons
