"""Summary tables: the paper's Table III (zero-AI launches and their time), and
time and FLOPs per phase and per pipeline."""

from __future__ import annotations

import pandas as pd

ALL = "all"


def zero_ai_table(kernels: pd.DataFrame, groups: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per phase and overall: invocations, zero-AI invocations and their share of time.

    With ``groups`` (``group_by_name`` of ``kernels``) a launch counts as zero-AI when
    its kernel's group is: zero-AI counted per kernel name, as the paper's authors
    did (their Table III). A row standing for several launches (``launches``, from a
    per-name join) counts that many.
    Columns: phase, kernels, zero_ai, zero_ai_share (of invocations), time_s,
    zero_ai_time_s, zero_ai_time_share. The last row is ``all``.
    """
    rows = []
    if groups is not None:
        key = pd.MultiIndex.from_frame(kernels[["device", "name"]])
        by_name = groups.set_index(["device", "name"])["zero_ai"]
        zero = pd.Series(by_name.reindex(key).to_numpy(), index=kernels.index).fillna(False).astype(bool)
    else:
        zero = kernels["zero_ai"].fillna(False).astype(bool)
    weight = kernels["launches"] if "launches" in kernels else pd.Series(1, index=kernels.index)
    masks = [(p, kernels["phase"] == p) for p in _phases(kernels)] + [(ALL, kernels.index == kernels.index)]
    for phase, mask in masks:
        time = float(kernels.loc[mask, "time_s"].sum())
        zero_time = float(kernels.loc[mask & zero, "time_s"].sum())
        count, zero_count = int(weight[mask].sum()), int(weight[mask & zero].sum())
        rows.append({"phase": phase, "kernels": count, "zero_ai": zero_count,
                     "zero_ai_share": zero_count / count if count else 0.0,
                     "time_s": time, "zero_ai_time_s": zero_time,
                     "zero_ai_time_share": zero_time / time if time else 0.0})
    return pd.DataFrame(rows)


def phase_table(kernels: pd.DataFrame) -> pd.DataFrame:
    """Per phase: kernels, inferred ones, time, time share, FLOPs."""
    total = float(kernels["time_s"].sum())
    rows = []
    for phase in _phases(kernels):
        part = kernels[kernels["phase"] == phase]
        rows.append({"phase": phase, "kernels": _launches(part),
                     "inferred": int(part["phase_inferred"].sum()),
                     "time_s": float(part["time_s"].sum()),
                     "time_share": float(part["time_s"].sum()) / total if total else 0.0,
                     "flops": float(part["flops"].sum())})
    return pd.DataFrame(rows)


def pipeline_table(kernels: pd.DataFrame) -> pd.DataFrame:
    """Per dominant pipeline: kernels, time and its share, FLOPs."""
    total = float(kernels["time_s"].sum())
    grouped = kernels.groupby("pipeline", sort=False)
    counts = grouped["launches"].sum() if "launches" in kernels else grouped.size()
    out = pd.DataFrame({"kernels": counts, "time_s": grouped["time_s"].sum(),
                        "flops": grouped["flops"].sum()})
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
