"""What to fix first, and what it buys: each launch's achievable time and gain.

The roofline bound in time form (Williams et al., "Roofline", CACM 2009; per memory
level as in the hierarchical roofline of Yang, Wang, Williams et al.): a launch that
moves ``bytes_L`` at level L and does ``flops_p`` on pipeline p cannot take less than

    t_roof = max( max_L bytes_L / B_L ,  max_p flops_p / P_p )

where B_L and P_p are the run's roofs (each with its source: measured, report peak or
datasheet). Pipelines are taken to overlap at best (the max, not the sum), so this is
a lower bound on time, never above what the hardware allows. No launch takes less
than the launch floor either: an empty kernel's duration as ncu reports it, which
``rooftui measure`` stores in the ceilings file. So

    achievable = max(t_roof, floor)        gain = time - achievable (at least 0)

A launch with a quantity not collected (NaN bytes or FLOPs) or moving bytes at a level
(doing FLOPs on a pipeline) that has no roof gets no achievable time and no gain; its
``advise_reason`` says why. Shared memory has no column in the kernel table and is not
a term. ``sol_fraction`` = achievable / time: how close the launch runs to its speed
of light (1 = at the roof or the floor).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rooftui.analysis.ceilings import source_text
from rooftui.analysis.operations import COMMUNICATION, operation_classes
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import (
    BOUND_LEVELS,
    FLOAT_PIPELINES,
    FLOP_COLUMNS,
    LEVEL_LABELS,
    LEVELS,
    OPTIONAL_LEVELS,
    PIPELINE_LABELS,
    flop_column,
)

PIPELINES = (*FLOAT_PIPELINES, "tensor_int8")
FLOOR_LIMIT = "launch floor"


@dataclass(frozen=True)
class LaunchFloor:
    """The floor under every launch, and where it came from."""

    per_launch_s: float | None  # an empty kernel's ncu duration; None: no floor applied
    interval_s: float | None  # back-to-back launch interval on one stream
    source: str  # "measured (bundled ceilings x.json, 2026-12-01)", or why there is none
    how: str = ""  # how the file says each number was measured

    @property
    def measured(self) -> bool:
        return self.per_launch_s is not None

    def to_dict(self) -> dict[str, object]:
        return {
            "per_launch_s": self.per_launch_s,
            "interval_s": self.interval_s,
            "source": self.source,
            "how": self.how,
        }


NO_FLOOR = LaunchFloor(
    None,
    None,
    "not measured for this GPU: no ceilings file of its roofs has a "
    "launch_floor (run rooftui measure); achievable times are not floored",
)


def launch_floor_of(ceilings: CeilingSet) -> LaunchFloor:
    """The launch floor stored with the run's roofs, or ``NO_FLOOR`` (saying why)."""
    from rooftui.ingest.launch_floor import find_launch_floor

    stored = find_launch_floor(ceilings)
    if stored is None or stored.empty_kernel_s is None:
        return NO_FLOOR
    when = f", {stored.measured_at[:10]}" if stored.measured_at else ""
    name = stored.origin.rsplit("/", 1)[-1]
    return LaunchFloor(
        stored.empty_kernel_s,
        stored.back_to_back_s,
        f"measured ({stored.source} ceilings {name}{when})",
        stored.how,
    )


OPTIONAL_BYTES = tuple(f"bytes_{level}" for level in OPTIONAL_LEVELS)


def _terms(ceilings: CeilingSet) -> list[tuple[str, str, float | None, str]]:
    """(kernel-table column, roof label, roof value or None, roof source) per bound term."""
    terms: list[tuple[str, str, float | None, str]] = []
    for level in BOUND_LEVELS:
        roof = ceilings.bandwidth(level)
        terms.append(
            (
                f"bytes_{level}",
                LEVEL_LABELS[level],
                roof.value if roof else None,
                source_text(roof) if roof else "",
            )
        )
    for pipeline in PIPELINES:
        roof = ceilings.compute(pipeline)
        terms.append(
            (
                flop_column(pipeline),
                PIPELINE_LABELS[pipeline],
                roof.value if roof else None,
                source_text(roof) if roof else "",
            )
        )
    return terms


def achievable_times(kernels: pd.DataFrame, ceilings: CeilingSet, floor: LaunchFloor) -> pd.DataFrame:
    """Per launch: roof_s (t_roof, before the floor), achievable_s, gain_s, sol_fraction,
    limit (the binding term), limit_source
    and advise_reason ("" when the gain is known). Same index as ``kernels``."""
    terms = _terms(ceilings)
    times = np.zeros((len(kernels), len(terms)))
    reason = pd.Series("", index=kernels.index, dtype=object)
    for j, (column, label, roof, _) in enumerate(terms):
        amount = kernels[column].to_numpy(dtype=float) if column in kernels else np.full(len(kernels), np.nan)
        what = "bytes" if column.startswith("bytes_") else "FLOPs" if column != "ops_tensor_int8" else "OPs"
        missing = np.isnan(amount)
        reason = reason.where(~missing | (reason != ""), f"{label} {what} not collected")
        if roof is None:
            reason = reason.where(~(amount > 0) | (reason != ""), f"no {label} roof")
            continue
        times[:, j] = np.where(missing, 0.0, amount) / roof
    binding = times.argmax(axis=1)
    t_roof = times.max(axis=1)
    labels = np.array([t[1] for t in terms], dtype=object)[binding]
    sources = np.array([t[3] for t in terms], dtype=object)[binding]
    if floor.per_launch_s is not None:
        floored = t_roof < floor.per_launch_s
        t_roof = np.maximum(t_roof, floor.per_launch_s)
        labels = np.where(floored, FLOOR_LIMIT, labels)
        sources = np.where(floored, floor.source, sources)
    time = kernels["time_s"].to_numpy(dtype=float)
    known = (reason == "").to_numpy() & np.isfinite(time)
    reason = reason.where(np.isfinite(time), "no duration")
    achievable = np.where(known, t_roof, np.nan)
    return pd.DataFrame(
        {
            "roof_s": np.where(known, times.max(axis=1), np.nan),
            "achievable_s": achievable,
            "gain_s": np.where(known, np.maximum(time - t_roof, 0.0), np.nan),
            "sol_fraction": np.where(known, np.minimum(t_roof / time, 1.0), np.nan),
            "limit": np.where(known, labels, ""),
            "limit_source": np.where(known, sources, ""),
            "advise_reason": reason,
        },
        index=kernels.index,
    )


# What the advice reads from the kernel table (a narrow copy: 100k launches stay quick).
INPUT_COLUMNS = (
    "id",
    "report",
    "device",
    "cc",
    "name",
    "stream",
    "nvtx",
    "phase",
    "time_s",
    "flops",
    *FLOP_COLUMNS,
    "ops_tensor_int8",
    "bytes_l1",
    "bytes_l2",
    "bytes_hbm",
    "bytes_smem",
    "pipeline",
    "zero_ai",
    "communication",
    "sm_clock_hz",
)


def with_advice(
    kernels: pd.DataFrame, ceilings_by_device: dict[str, CeilingSet], floors: dict[str, LaunchFloor]
) -> pd.DataFrame:
    """The launches (``INPUT_COLUMNS`` of the kernel table, same index) with the
    achievable-time columns and ``operation_class`` added."""
    out = kernels[[column for column in INPUT_COLUMNS if column in kernels]].copy()
    groups = out.groupby(["device", "cc"], sort=False).groups
    parts = []
    for (device, cc), index in groups.items():
        label = device or f"unnamed GPU (cc {cc})"
        part = out if len(groups) == 1 else out.loc[index]
        parts.append(achievable_times(part, ceilings_by_device[label], floors[label]))
    advice = parts[0] if len(parts) == 1 else pd.concat(parts).reindex(out.index) if parts else None
    if advice is not None:
        out = pd.concat([out, advice], axis=1)
    out["operation_class"] = operation_classes(kernels)
    communication = out["operation_class"] == COMMUNICATION
    if communication.any():
        for column in ("roof_s", "achievable_s", "gain_s", "sol_fraction"):
            out.loc[communication, column] = np.nan
        out.loc[communication, ["limit", "limit_source"]] = ""
        out.loc[communication, "advise_reason"] = "communication: no roof bounds it"
    for column in ("limit", "limit_source", "operation_class"):  # few values: compared quickly
        out[column] = out[column].astype("category")
    return out


SUMMED = ("time_s", "achievable_s", "gain_s", "flops", "bytes_l1", "bytes_l2", "bytes_hbm")


def roll_up(launches: pd.DataFrame, by: pd.Series | str) -> pd.DataFrame:
    """Launches, time, achievable time and gain per group, largest gain first.

    ``achievable_s`` and ``gain_s`` sum the launches whose gain is known; ``unbounded_s`` is
    the time of the others. Each group is one roofline point from its summed FLOPs and
    bytes: ``flop_rate`` = FLOPs / time, ``ai_<level>`` = FLOPs / bytes at that level.
    """
    keys = launches[by] if isinstance(by, str) else by
    frame = launches.assign(
        _key=keys.to_numpy() if not isinstance(keys.dtype, pd.CategoricalDtype) else keys.array,
        _unbounded=launches["time_s"].where(launches["gain_s"].isna(), 0.0),
    )
    grouped = frame.groupby("_key", sort=False, observed=True)
    out = pd.DataFrame({"launches": grouped.size()})
    for column in (*SUMMED, *(c for c in OPTIONAL_BYTES if c in frame)):
        out[column] = grouped[column].sum(min_count=1)
    out["unbounded_s"] = grouped["_unbounded"].sum()
    out["flop_rate"] = out["flops"] / out["time_s"]
    for level in (lv for lv in LEVELS if f"bytes_{lv}" in out):
        out[f"ai_{level}"] = out["flops"] / out[f"bytes_{level}"].where(out[f"bytes_{level}"] > 0)
    out["gain_s"] = out["gain_s"].fillna(0.0)
    out.index.name = "group"
    return out.sort_values(["gain_s", "time_s"], ascending=False, kind="stable")


NVTX_SEPARATOR = " > "


def nvtx_tree(launches: pd.DataFrame) -> pd.DataFrame:
    """``roll_up`` per NVTX range, every enclosing range a node of its own (its launches
    and those of the ranges inside it), with ``depth`` and ``parent``; in tree order
    (a parent before its children, siblings by gain). Launches under no range are "(none)"."""
    paths = (
        launches["nvtx"].fillna("").astype(str) if "nvtx" in launches else pd.Series("", index=launches.index)
    )
    keys = []
    for path in paths.unique():
        parts = path.split(NVTX_SEPARATOR) if path else ["(none)"]
        for depth in range(1, len(parts) + 1):
            keys.append((path, NVTX_SEPARATOR.join(parts[:depth])))
    if not keys:
        return roll_up(launches.iloc[:0], paths.iloc[:0]).assign(depth=[], parent=[])
    pairs = pd.DataFrame(keys, columns=["nvtx", "node"]).drop_duplicates()
    rows_of = pd.DataFrame({"nvtx": paths.to_numpy(), "_row": np.arange(len(launches))})
    exploded = rows_of.merge(pairs, on="nvtx")
    tree = roll_up(launches.iloc[exploded["_row"].to_numpy()].reset_index(drop=True), exploded["node"])
    tree["depth"] = [node.count(NVTX_SEPARATOR) for node in tree.index]
    tree["parent"] = [
        node.rsplit(NVTX_SEPARATOR, 1)[0] if NVTX_SEPARATOR in node else "" for node in tree.index
    ]
    order: list[str] = []
    children = {parent: list(group.index) for parent, group in tree.groupby("parent", sort=False)}

    def visit(node: str) -> None:
        order.append(node)
        for child in children.get(node, []):
            visit(child)

    for root in children.get("", []):
        visit(root)
    return tree.loc[order]
