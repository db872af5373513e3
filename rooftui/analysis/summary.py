"""Summary tables: the paper's Table III (zero-AI launches and their time), and
time and FLOPs per phase and per pipeline."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.analysis import zero_ai
from rooftui.model.names import qualified_name

ALL = "all"
NO_PHASE_LABEL = "(none)"  # how tables show launches without a phase (JSON: null)


def _group_key(frame: pd.DataFrame, with_rank: bool = True) -> pd.MultiIndex:
    """(device[, rank], function with namespaces) per row, as ``group_by_name`` keys."""
    columns = [frame["device"]]
    if with_rank and "rank" in frame:
        columns.append(frame["rank"])
    functions = frame["demangled"].astype(str).map(qualified_name) if "demangled" in frame else frame["name"]
    return pd.MultiIndex.from_arrays([*columns, functions])


def phase_label(phase: object) -> str:
    """A phase as tables show it: "(none)" for launches without one."""
    return phase if isinstance(phase, str) and phase else NO_PHASE_LABEL


def zero_ai_table(kernels: pd.DataFrame, groups: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per phase and overall: invocations, zero-AI invocations and their share of time.

    ``kernels`` has one row per invocation, or per kernel name for a per-name join
    (its ``launches`` column counts the launches a row stands for). Zero-AI is decided
    per launch (``analysis.zero_ai``); with ``groups`` (``group_by_name`` of ``kernels``)
    a launch counts as zero-AI when its kernel's group is: zero-AI counted per kernel
    name, as the paper's authors did for their Table III.
    Columns: phase ("" for launches without one: show it with ``phase_label``), kernels,
    zero_ai, zero_ai_share (of invocations), time_s, zero_ai_time_s, zero_ai_time_share.
    The last row is ``all``.
    """
    rows = []
    if groups is not None:
        # Matched on what group_by_name groups by (the function with its namespaces), not
        # on the shown name: a group whose short name collides with another's is shown by
        # its qualified name, which no launch's short name equals.
        by_name = groups.set_index(_group_key(groups))["zero_ai"].astype("boolean")
        zero = by_name.reindex(_group_key(kernels, "rank" in groups)).fillna(False).to_numpy(dtype=bool)
    else:
        zero = zero_ai.launch_is_zero_ai(kernels)
    weight = (
        kernels["launches"].to_numpy(dtype=np.int64)
        if "launches" in kernels
        else np.ones(len(kernels), dtype=np.int64)
    )
    phase_of = kernels["phase"].to_numpy(dtype=object)
    masks = [(p, phase_of == p) for p in _phases(kernels)] + [(ALL, np.ones(len(kernels), bool))]
    seconds = kernels["time_s"].to_numpy(dtype=float)
    for phase, mask in masks:
        time = float(seconds[mask].sum())
        zero_time = float(seconds[mask & zero].sum())
        count, zero_count = int(weight[mask].sum()), int(weight[mask & zero].sum())
        rows.append(
            {
                "phase": phase,
                "kernels": count,
                "zero_ai": zero_count,
                "zero_ai_share": zero_count / count if count else 0.0,
                "time_s": time,
                "zero_ai_time_s": zero_time,
                "zero_ai_time_share": zero_time / time if time else 0.0,
            }
        )
    return pd.DataFrame(rows)


def phase_table(kernels: pd.DataFrame) -> pd.DataFrame:
    """Per phase: kernels, inferred ones, time, time share, FLOPs."""
    total = float(kernels["time_s"].sum())
    rows = []
    for phase in _phases(kernels):
        part = kernels[kernels["phase"] == phase]
        rows.append(
            {
                "phase": phase,
                "kernels": _launches(part),
                "inferred": int(part["phase_inferred"].sum()),
                "time_s": float(part["time_s"].sum()),
                "time_share": float(part["time_s"].sum()) / total if total else 0.0,
                "flops": float(part["flops"].sum()),
            }
        )
    return pd.DataFrame(rows)


def pipeline_table(kernels: pd.DataFrame) -> pd.DataFrame:
    """Per dominant pipeline: kernels, time and its share, FLOPs."""
    total = float(kernels["time_s"].sum())
    grouped = kernels.groupby("pipeline", sort=False)
    counts = grouped["launches"].sum() if "launches" in kernels else grouped.size()
    out = pd.DataFrame(
        {"kernels": counts, "time_s": grouped["time_s"].sum(), "flops": grouped["flops"].sum()}
    )
    out["time_share"] = out["time_s"] / total if total else 0.0
    return out.sort_values("time_s", ascending=False).reset_index()


def _launches(kernels: pd.DataFrame) -> int:
    """Launches in ``kernels``: a row may stand for several (a per-name join)."""
    return int(kernels["launches"].sum()) if "launches" in kernels else len(kernels)


def _phases(kernels: pd.DataFrame) -> list[str]:
    seen = []
    for phase in kernels["phase"]:
        if phase not in seen:
            seen.append(phase)
    return [p if p else "" for p in seen]
