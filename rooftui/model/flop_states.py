"""The state of a kernel's FLOP total: which pipeline leads, whether Tensor work was seen
but not counted, whether the total is partial (and the note saying what collects the
rest), a sum's least-known state, and each row's provenance for the JSON.

The states themselves (measured, known 0, not applicable, not collected, uncounted) are
defined in ``rooftui.model.columns``; ``rooftui.model.kernel_table`` fills them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from rooftui.model import metrics as m
from rooftui.model.columns import (
    CUDA_CORE_PIPELINES,
    FLOAT_PIPELINES,
    LEVELS,
    MEASURED,
    NOT_COLLECTED,
    PIPELINE_LABELS,
    STATE_ORDER,
    TENSOR_PIPELINES,
    UNCOUNTED,
    WORK_COLUMNS,
    byte_source_column,
    flop_column,
    state_column,
)
from rooftui.model.flop_caps import CAPPED, cap_column


def dominant_pipeline(table: pd.DataFrame) -> pd.Series:
    """The pipeline with the most FLOPs (INT8 Tensor OPs count too); "tensor_uncounted"
    when Tensor work was seen but not counted (which pipeline leads is then unknown);
    "none" without any work, known in full; "unknown" when the report has none of the
    counters, or the known ones are 0 but others were not collected."""
    work = _work(table)
    known = ~np.isnan(work).all(axis=1)
    filled = np.where(np.isnan(work), 0.0, work)  # fillna(0.0)
    names = np.array([*FLOAT_PIPELINES, "tensor_int8"], dtype=object)
    partial = flops_partial(table).to_numpy()
    total = np.zeros(len(table))
    for column in filled.T:  # added left to right, as DataFrame.sum(axis=1) adds
        total = total + column
    did_work = total > 0
    pipeline = np.where(did_work, names[filled.argmax(axis=1)], np.where(partial, "unknown", "none"))
    pipeline = np.where(known, pipeline, "unknown")
    return pd.Series(np.where(uncounted_tensor(table), "tensor_uncounted", pipeline), index=table.index)


def _work(table: pd.DataFrame) -> np.ndarray:
    """The FLOP (and INT8 OP) columns, one row per launch or group, NaN where not known."""
    # column by column: taking a list of columns of a wide table copies its blocks
    return np.column_stack([table[c].to_numpy(dtype=float, na_value=np.nan) for c in WORK_COLUMNS])


def _states(table: pd.DataFrame, column: str) -> np.ndarray:
    name = state_column(column)
    if name in table:
        return table[name].to_numpy(dtype=object)
    # A table built before states existed (or by hand): NaN is not collected.
    return np.where(table[column].isna(), NOT_COLLECTED, MEASURED).astype(object)


def _any_state(table: pd.DataFrame, columns: Iterable[str], states: tuple[str, ...]) -> np.ndarray:
    """Per row: one of ``columns`` is in one of ``states``."""
    found = np.zeros(len(table), dtype=bool)
    for column in columns:
        values = _states(table, column)
        for state in states:
            found |= values == state
    return found


def uncounted_tensor(table: pd.DataFrame) -> pd.Series:
    """Per row: Tensor work present, amount unknown."""
    tensor = [flop_column(p) for p in (*TENSOR_PIPELINES, "tensor_int8")]
    return pd.Series(_any_state(table, tensor, (UNCOUNTED,)), index=table.index)


def flops_partial(table: pd.DataFrame) -> pd.Series:
    """Per row: the FLOP total adds only some of the applicable terms (others not collected,
    or Tensor work not countable), while at least one is known."""
    missing = _any_state(table, WORK_COLUMNS, (NOT_COLLECTED, UNCOUNTED))
    known = ~np.isnan(_work(table)).all(axis=1)
    return pd.Series(missing & known, index=table.index)


def combine_states(states: pd.Series) -> str:
    """The state of a sum over launches: the least-known of theirs (``STATE_ORDER``)."""
    present = set(states)
    return next((state for state in STATE_ORDER if state in present), NOT_COLLECTED)


def _collect_hint(column: str) -> str:
    """The ncu option that collects the counters of FLOP column ``column``."""
    cores = {flop_column(p): p for p in CUDA_CORE_PIPELINES}
    if column in cores:
        metrics = [metric for metric, _ in m.CUDA_CORE_TERMS[cores[column]]]
        return f"--metrics {','.join(metrics)}, or --set full"
    metrics = list(
        dict.fromkeys(
            t.metric for arch in m.ARCHITECTURES for t in arch.tensor if flop_column(t.pipeline) == column
        )
    )
    return f"--metrics {','.join(metrics)}, the one for your GPU; rooftui profile collects it"


def partial_note(kernels: pd.DataFrame) -> str | None:
    """One note for launches whose FLOP total is partial: what is missing, and what collects it."""
    partial = (
        kernels["flops_partial"].fillna(False).astype(bool)
        if "flops_partial" in kernels
        else pd.Series(False, index=kernels.index)
    )
    if not partial.any():
        return None
    parts = []
    for column in WORK_COLUMNS:
        states = _states(kernels, column)[partial.to_numpy()]
        label = PIPELINE_LABELS[
            "tensor_int8" if column == "ops_tensor_int8" else column.removeprefix("flops_")
        ]
        if (states == NOT_COLLECTED).any():
            parts.append(f"{label} not collected ({_collect_hint(column)})")
    uncounted = int((uncounted_tensor(kernels) & partial).sum())
    if uncounted:
        parts.append(
            f"Tensor work seen in {uncounted} launch(es) (a Tensor pipe issued or was busy) "
            "but not countable from the report: its FLOPs per instruction depend on the MMA "
            "shape (e.g. 2048 for m16n8k8, 4096 for m16n8k16), so they are blank, not 0; "
            "collect the sm__ops_path_tensor_* counters (rooftui profile)"
        )
    return (
        f"{int(partial.sum())} launch(es) have a partial FLOP total (marked partial; JSON "
        "flops_partial): " + "; ".join(parts)
    )


def provenance(row: dict[str, Any]) -> dict[str, Any]:
    """Where each quantity of one kernel-table row came from, for the JSON: per FLOP
    column its state (``columns.STATES``), per memory level what the bytes count
    (``metrics.BYTE_SOURCES``; null when not collected), the time source, and the caps
    on the FLOPs of pipelines not counted (``flop_caps``; only those the report gives)."""
    flops = {}
    for pipeline in (*FLOAT_PIPELINES, "tensor_int8"):
        state = row.get(state_column(flop_column(pipeline)))
        flops[pipeline] = (
            state
            if isinstance(state, str)
            else (NOT_COLLECTED if pd.isna(row.get(flop_column(pipeline))) else MEASURED)
        )
    caps = {p: row.get(cap_column(p)) for p in CAPPED}
    return {
        "flops": flops,
        "bytes": {level: row.get(byte_source_column(level)) or None for level in LEVELS},
        "time": row.get("time_source") or None,
        # the most FLOPs each missing pipeline could have done (model.flop_caps)
        "flops_cap": {p: cap for p, cap in caps.items() if cap is not None and not pd.isna(cap)},
    }
