"""Upper bounds on the FLOPs a report did not count (``flops_cap_<pipeline>``).

Where a pipeline's FLOP counter was not collected, or Tensor work was seen but cannot
be counted, the pipe that work runs on still says how busy it was, and a pipe cannot
do more in a cycle than its peak. So the uncounted FLOPs of pipeline p are at most

    cap_p = busy × cycles × peak_p

with busy the fraction of its sustained peak the pipe was active for the launch
(``pipe_activity.PIPE_BUSY``; FP16 adds the fma and the Tensor pipe, both of which run HFMA2,
and on GA100 its own fp16 pipe: ``pipe_activity.capped_pipes``),
cycles the launch's SM cycles (time × SM clock) and peak_p the report's own per-cycle
peak of p's counter × FLOPs per count (``pipe_activity.PIPE_BUSY`` names the sources). The
bound is loose (the pipe may have been busy with other instructions; the Tensor peaks
are the 2:4-sparse rates) and never low. NaN where the report holds no busy fraction or
no peak. ``rooftui.analysis.roofline`` turns caps into time at each pipeline's roof.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rooftui.model import metrics as m
from rooftui.model import pipe_activity
from rooftui.model.columns import NOT_COLLECTED, TENSOR_PIPELINES, UNCOUNTED, flop_column, state_column

if TYPE_CHECKING:
    from rooftui.model.kernel_table import Numbers

# ncu's CSV prints a % of peak with two decimals (0.30): the true value may be up to
# half a unit higher, so a bound adds that.
PCT_ROUNDING = 0.005


def cap_column(pipeline: str) -> str:
    """The kernel-table column holding the most FLOPs ``pipeline`` could have done."""
    return f"flops_cap_{pipeline}"


CAPPED = ("fp64", "fp16", *TENSOR_PIPELINES, "tensor_int8")
CAP_COLUMNS = tuple(cap_column(p) for p in CAPPED)
LACKING = (NOT_COLLECTED, UNCOUNTED)  # the states whose FLOPs a cap bounds


def busy_fraction(raw: Numbers, pipe: str) -> np.ndarray:
    """Per launch, the fraction of its sustained peak ``pipe`` ("fp64", "fma", "tensor")
    was active, rounded up to what ncu's printed % may hide; NaN where the report lacks it.
    ``raw``: the report's columns as float arrays (``kernel_table.Numbers``)."""
    name = pipe_activity.PIPE_BUSY[pipe]
    value = np.full(len(raw), np.nan)
    for form in pipe_activity.PIPE_BUSY_FORMS:
        if f"{name}{form}" in raw:
            value = _fill(value, (raw[f"{name}{form}"] + PCT_ROUNDING) / 100.0)
    count, peak = f"{name}.sum", f"{name}.sum.peak_sustained"
    if count in raw and peak in raw and m.SM_CYCLES in raw:
        most = raw[peak] * raw[m.SM_CYCLES]
        value = _fill(value, raw[count] / most)
    return np.minimum(value, 1.0)  # clip(upper=1.0): NaN stays NaN


def per_cycle_peak(raw: Numbers, metric: str) -> np.ndarray:
    """Per launch, the report's ``.peak_sustained`` of ``metric`` under any spelling (or of
    the counter that stands in for it, ``pipe_activity.PEAK_STANDS_IN``); NaN where it has none."""
    value = np.full(len(raw), np.nan)
    for name in (*m.spellings(metric), pipe_activity.PEAK_STANDS_IN.get(metric, "")):
        if f"{name}.peak_sustained" in raw:
            value = _fill(value, raw[f"{name}.peak_sustained"])
    return value


def _fill(value: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``fillna``: ``value``, and ``other`` where it is NaN."""
    return np.where(np.isnan(value), other, value)


def flop_caps(
    raw: Numbers, out: dict[str, Any], arch: m.Architecture | None, fp16_rule: str, cc: str
) -> dict[str, np.ndarray]:
    """``flops_cap_<pipeline>`` for each pipeline whose FLOPs ``out`` (the kernel-table
    columns so far, as arrays) lacks in some launch (state not collected or uncounted),
    NaN in the others; no Tensor caps without the architecture. ``raw``: the report's
    columns as float arrays (``kernel_table.Numbers``)."""
    missing = {}
    with np.errstate(invalid="ignore", divide="ignore"):  # as pandas: NaN and inf, said nowhere
        for pipeline in CAPPED:
            state = out.get(state_column(flop_column(pipeline)))
            if state is not None:
                lacks = np.isin(np.broadcast_to(np.asarray(state, dtype=object), len(raw)), LACKING)
                if lacks.any():  # elsewhere its cap would be NaN throughout, a column not kept
                    missing[pipeline] = lacks
        if not missing:
            return {}
        cycles = out["time_s"] * (raw[m.SM_CLOCK] if m.SM_CLOCK in raw else np.nan)
        busy = {pipe: busy_fraction(raw, pipe) for pipe in pipe_activity.PIPE_BUSY}
        fp64_fma, fp64_factor = m.cuda_core_terms(fp16_rule)["fp64"][-1]
        hfma, hfma_factor = m.cuda_core_terms(fp16_rule)["fp16"][-1]
        tensor = {t.pipeline: t for t in (arch.tensor if arch else ())}
        caps = {}
        for pipeline, lacks in missing.items():
            peak: np.ndarray | None
            if pipeline == "fp64":
                peak = fp64_factor * per_cycle_peak(raw, fp64_fma)
            elif pipeline == "fp16":  # HFMA2 runs on the Tensor pipe only from sm_80 on; below, no bound
                peak = hfma_factor * per_cycle_peak(raw, hfma) if cc and float(cc) >= 8.0 else None
            else:
                term = tensor.get(pipeline)
                peak = term.factor * per_cycle_peak(raw, term.metric) if term else None
            if peak is None:
                continue
            pipes = pipe_activity.capped_pipes(pipeline, cc)
            cap = sum((busy[pipe] for pipe in pipes[1:]), busy[pipes[0]]) * cycles * peak
            caps[cap_column(pipeline)] = np.where(lacks, cap, np.nan)
    return caps
