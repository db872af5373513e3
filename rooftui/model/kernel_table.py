"""Raw ncu metrics -> the kernel table (columns in ``rooftui.model.columns``).

Every formula comes from ``rooftui.model.metrics``; this module only applies them,
derives counts a report stores as rates, and says what it could not compute.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rooftui.model import metrics as m
from rooftui.model.columns import FLOAT_PIPELINES, LEVELS, flop_column
from rooftui.model.frames import map_unique
from rooftui.model.names import short_name


@dataclass
class Derivation:
    """What a report lacked: metrics derived from rates, and metrics missing outright."""

    derived: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)


def metric_values(raw: pd.DataFrame, metric: str, time_ns: pd.Series, log: Derivation) -> pd.Series:
    """A count metric, read directly or derived from the rates ncu's sections store.

    ``X.sum.per_cycle_elapsed × <unit>__cycles_elapsed.avg`` [NCU] or
    ``X.sum.per_second × gpu__time_duration``. NaN where neither is there.
    """
    if metric in raw:
        return raw[metric].astype(float)
    unit = metric.split("__", 1)[0]
    per_cycle = f"{metric}.per_cycle_elapsed"
    cycles = f"{unit}__cycles_elapsed.avg"
    if per_cycle in raw and cycles in raw:
        log.derived.add(metric)
        return raw[per_cycle].astype(float) * raw[cycles].astype(float)
    per_second = f"{metric}.per_second"
    if per_second in raw:
        log.derived.add(metric)
        return raw[per_second].astype(float) * time_ns * 1e-9
    log.missing.add(metric)
    return pd.Series(np.nan, index=raw.index)


def kernel_rows(raw: pd.DataFrame, cc: str, log: Derivation) -> pd.DataFrame:
    """The kernel-table columns for launches of one architecture."""
    arch = m.architecture_for(cc)
    out = pd.DataFrame(index=raw.index)
    time_ns = metric_values(raw, m.TIME, pd.Series(np.nan, index=raw.index), log)
    out["time_s"] = time_ns * 1e-9

    for precision, terms in m.CUDA_CORE_TERMS.items():
        total = pd.Series(0.0, index=raw.index)
        for metric, factor in terms:
            total = total + factor * metric_values(raw, metric, time_ns, log)
        out[f"flops_{precision}"] = total
    tensor_by_pipeline: dict[str, pd.Series] = {}
    for term in arch.tensor:
        value = term.factor * metric_values(raw, term.metric, time_ns, log)
        previous = tensor_by_pipeline.get(term.pipeline)
        tensor_by_pipeline[term.pipeline] = value if previous is None else previous + value
    for pipeline in FLOAT_PIPELINES:
        if pipeline.startswith("tensor_"):
            out[flop_column(pipeline)] = tensor_by_pipeline.get(pipeline, 0.0)
    out["ops_tensor_int8"] = tensor_by_pipeline.get("tensor_int8", 0.0)
    for level, metric in m.BYTES.items():
        out[f"bytes_{level}"] = metric_values(raw, metric, time_ns, log)
    out["sm_clock_hz"] = raw[m.SM_CLOCK].astype(float) if m.SM_CLOCK in raw else np.nan
    return out


def dominant_pipeline(table: pd.DataFrame) -> pd.Series:
    """The pipeline with the most FLOPs (INT8 Tensor OPs count too), "none" without any
    work, "unknown" when the report has none of the counters."""
    work = table[[flop_column(p) for p in FLOAT_PIPELINES] + ["ops_tensor_int8"]]
    known = work.notna().any(axis=1)
    filled = work.fillna(0.0)
    names = np.array([*FLOAT_PIPELINES, "tensor_int8"], dtype=object)
    pipeline = np.where(filled.sum(axis=1) > 0, names[filled.to_numpy().argmax(axis=1)], "none")
    return pd.Series(np.where(known, pipeline, "unknown"), index=table.index)


def add_derived(table: pd.DataFrame) -> pd.DataFrame:
    """Totals, intensities, rate, pipeline and zero-AI from the per-pipeline columns."""
    flop_columns = [flop_column(p) for p in FLOAT_PIPELINES]
    table["flops_tensor"] = table[[c for c in flop_columns if "tensor" in c]].sum(axis=1, min_count=1)
    flops = table[flop_columns].sum(axis=1, min_count=1)
    table["flops"] = flops
    for level in LEVELS:
        moved = table[f"bytes_{level}"]
        table[f"ai_{level}"] = (flops / moved).where(moved > 0)
    table["flop_rate"] = (flops / table["time_s"]).where(table["time_s"] > 0)

    table["pipeline"] = dominant_pipeline(table)
    # Zero-AI (rooftui.analysis.zero_ai): known to have done no floating-point and no
    # integer Tensor Core work. Some work seen: not zero-AI; none seen but a counter the
    # architecture needs is missing (its FLOPs are NaN): unknown, never zero-AI.
    work = table[flop_columns + ["ops_tensor_int8"]]
    some_work = work.fillna(0.0).sum(axis=1) > 0
    all_known = work.notna().all(axis=1)
    table["zero_ai"] = pd.Series(np.where(some_work, False, np.where(all_known, True, pd.NA)),
                                 index=table.index, dtype="boolean")
    table["fp16_approximate"] = table["flops_fp16"].fillna(0.0) > 0
    return table


def build_kernel_table(raw: pd.DataFrame) -> tuple[pd.DataFrame, Derivation]:
    """The kernel table for the launches in ``raw`` (one or more reports' rows,
    with the identity columns of ``rooftui.ingest.report`` plus ``report`` and ``id``)."""
    log = Derivation()
    parts = [kernel_rows(group, cc, log) for cc, group in raw.groupby("cc", sort=False, dropna=False)]
    work = pd.concat(parts).reindex(raw.index) if parts else pd.DataFrame(index=raw.index)
    identity = pd.DataFrame({
        "id": raw["id"].astype(int),
        "report": raw["report"],
        "ncu_id": raw["ncu_id"].astype(int),
        "device": raw["device"].fillna("").astype(str),
        "cc": raw["cc"].astype(str),
        "name": map_unique(raw["kernel_name"].astype(str), short_name),
        "demangled": raw["kernel_name"].astype(str),
        "grid": raw.get("grid", pd.Series("", index=raw.index)).astype(str),
        "block": raw.get("block", pd.Series("", index=raw.index)).astype(str),
        "stream": pd.to_numeric(raw.get("stream", pd.Series(np.nan, index=raw.index)), errors="coerce"),
        "nvtx": raw["nvtx"].fillna("").astype(str),
    })
    table = add_derived(pd.concat([identity, work], axis=1))
    return table.reset_index(drop=True), log
