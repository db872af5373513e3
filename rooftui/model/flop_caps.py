"""Upper bounds on the FLOPs a report did not count (``flops_cap_<pipeline>``).

Where a pipeline's FLOP counter was not collected, or Tensor work was seen but cannot
be counted, the pipe that work runs on still says how busy it was, and a pipe cannot
do more in a cycle than its peak. So the uncounted FLOPs of pipeline p are at most

    cap_p = busy × cycles × peak_p

with busy the fraction of its sustained peak the pipe was active for the launch
(``metrics.PIPE_BUSY``; FP16 adds the fma and the Tensor pipe, both of which run HFMA2,
and on GA100 its own fp16 pipe: ``metrics.capped_pipes``),
cycles the launch's SM cycles (time × SM clock) and peak_p the report's own per-cycle
peak of p's counter × FLOPs per count (``metrics.PIPE_BUSY`` names the sources). The
bound is loose (the pipe may have been busy with other instructions; the Tensor peaks
are the 2:4-sparse rates) and never low. NaN where the report holds no busy fraction or
no peak. ``rooftui.analysis.roofline`` turns caps into time at each pipeline's roof.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.model import metrics as m
from rooftui.model.columns import NOT_COLLECTED, TENSOR_PIPELINES, UNCOUNTED, flop_column, state_column

# ncu's CSV prints a % of peak with two decimals (0.30): the true value may be up to
# half a unit higher, so a bound adds that.
PCT_ROUNDING = 0.005


def cap_column(pipeline: str) -> str:
    """The kernel-table column holding the most FLOPs ``pipeline`` could have done."""
    return f"flops_cap_{pipeline}"


CAPPED = ("fp64", "fp16", *TENSOR_PIPELINES, "tensor_int8")
CAP_COLUMNS = tuple(cap_column(p) for p in CAPPED)


def busy_fraction(raw: pd.DataFrame, pipe: str) -> pd.Series:
    """Per launch, the fraction of its sustained peak ``pipe`` ("fp64", "fma", "tensor")
    was active, rounded up to what ncu's printed % may hide; NaN where the report lacks it."""
    name = m.PIPE_BUSY[pipe]
    value = pd.Series(np.nan, index=raw.index)
    for form in m.PIPE_BUSY_FORMS:
        if f"{name}{form}" in raw:
            pct = raw[f"{name}{form}"].astype(float)
            value = value.fillna((pct + PCT_ROUNDING) / 100.0)
    count, peak = f"{name}.sum", f"{name}.sum.peak_sustained"
    if count in raw and peak in raw and m.SM_CYCLES in raw:
        most = raw[peak].astype(float) * raw[m.SM_CYCLES].astype(float)
        value = value.fillna(raw[count].astype(float) / most)
    return value.clip(upper=1.0)


def per_cycle_peak(raw: pd.DataFrame, metric: str) -> pd.Series:
    """Per launch, the report's ``.peak_sustained`` of ``metric`` under any spelling (or of
    the counter that stands in for it, ``metrics.PEAK_STANDS_IN``); NaN where it has none."""
    value = pd.Series(np.nan, index=raw.index)
    for name in (*m.spellings(metric), m.PEAK_STANDS_IN.get(metric, "")):
        if f"{name}.peak_sustained" in raw:
            value = value.fillna(raw[f"{name}.peak_sustained"].astype(float))
    return value


def flop_caps(
    raw: pd.DataFrame, out: pd.DataFrame, arch: m.Architecture | None, fp16_rule: str, cc: str
) -> pd.DataFrame:
    """``flops_cap_<pipeline>`` for each pipeline whose FLOPs ``out`` lacks (state not
    collected or uncounted), NaN elsewhere; no Tensor caps without the architecture."""
    cycles = out["time_s"] * (raw[m.SM_CLOCK].astype(float) if m.SM_CLOCK in raw else np.nan)
    busy = {pipe: busy_fraction(raw, pipe) for pipe in m.PIPE_BUSY}
    fp64_fma, fp64_factor = m.cuda_core_terms(fp16_rule)["fp64"][-1]
    hfma, hfma_factor = m.cuda_core_terms(fp16_rule)["fp16"][-1]
    per_cycle = {
        "fp64": fp64_factor * per_cycle_peak(raw, fp64_fma),
        # HFMA2 runs on the Tensor pipe only from sm_80 on; below, no bound is claimed.
        "fp16": hfma_factor * per_cycle_peak(raw, hfma) if cc and float(cc) >= 8.0 else None,
        **{t.pipeline: t.factor * per_cycle_peak(raw, t.metric) for t in (arch.tensor if arch else ())},
    }
    caps = pd.DataFrame(index=raw.index)
    for pipeline in CAPPED:
        pipes = m.capped_pipes(pipeline, cc)
        peak = per_cycle.get(pipeline)
        cap = pd.Series(np.nan, index=raw.index)
        if peak is not None:
            cap = sum((busy[pipe] for pipe in pipes[1:]), busy[pipes[0]]) * cycles * peak
        state = out.get(state_column(flop_column(pipeline)))
        missing = state.isin((NOT_COLLECTED, UNCOUNTED)) if state is not None else False
        caps[cap_column(pipeline)] = cap.where(missing)
    return caps
