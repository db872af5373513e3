"""Two runs side by side: which kernel in A is which kernel in B, and what changed.

Kernels are compared grouped by name (all invocations of one kernel as one row,
as in ``grouped_kernels``), each side against its own GPU's ceilings, so A may
come from a V100 and B from an H200.

Which kernel is which comes from ``rooftui.analysis.compare_match``: per phase, the
launch sequences of A and B are aligned, the launch pairs aggregate into one-to-one
kernel matches, and kernels left over are matched by name alone (its docstring has the
rules). This module puts the two runs side by side on those matches: the per-kernel
table, the per-operation table (a B launch paired with an A launch counts under A's
operation), the launch pairs, and the phase, pipeline and zero-AI tables of each side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from rooftui.analysis import Run, grouped_kernels
from rooftui.analysis.alignment import LaunchMatch, align_launches
from rooftui.analysis.compare_match import (
    COUNT_RATIO,
    HOWS,
    METHODS,
    Match,
    kernel_matches,
    launch_keys,
    match_kernels,
    operation_key,
    parameter_key,
)
from rooftui.analysis.summary import ALL, phase_table, pipeline_table, zero_ai_table
from rooftui.model.columns import LEVEL_LABELS, LEVELS, byte_source_column
from rooftui.notes import Note, prefixed

# The matching lives in compare_match; its names stay importable from here too.
__all__ = [
    "COUNT_RATIO",
    "HOWS",
    "METHODS",
    "SIDE_COLUMNS",
    "Comparison",
    "Match",
    "byte_source_notes",
    "compare_runs",
    "kernel_matches",
    "launch_keys",
    "match_kernels",
    "operation_key",
    "parameter_key",
]

# Per-kernel quantities carried into the comparison, once for each side.
SIDE_COLUMNS = (
    "name",
    "device",
    "phase",
    "count",
    "time_s",
    "time_mean_s",
    "flops",
    "flop_rate",
    "ai_l1",
    "ai_l2",
    "ai_hbm",
    "pipeline",
    "bound",
    "roof_fraction",
    "zero_ai",
)


@dataclass
class Comparison:
    """A and B side by side. Frames use ``_a``/``_b`` suffixes for each side's value.

    kernels
        one row per matched pair and per kernel found on one side only, heaviest
        (larger of the two times) first: ``status`` (matched/only_a/only_b),
        ``method``, ``how``, ``aligned``, ``key``, ``rank``, ``candidates_a``/``_b``,
        ``operation_a``/``_b``,
        the ``SIDE_COLUMNS`` of each side, and ``time_ratio`` (B / A).
    launches
        one row per aligned launch pair, in A's launch order: ``phase``, ``signal``,
        ``id_a``/``_b``, ``name_a``/``_b``, ``time_s_a``/``_b``.
    operations
        per phase and operation key, every launch of each side in its own phase (a B
        launch aligned with an A launch under A's operation key):
        ``kernels`` (names), ``count`` (launches), ``time_s``, ``flops``,
        ``pipeline`` (of most time).
    phases, pipelines, zero_ai
        ``phase_table``, ``pipeline_table`` and ``zero_ai_table`` of each side,
        joined on phase or pipeline.
    """

    label_a: str
    label_b: str
    run_a: Run
    run_b: Run
    kernels: pd.DataFrame
    operations: pd.DataFrame
    phases: pd.DataFrame
    pipelines: pd.DataFrame
    zero_ai: pd.DataFrame
    launches: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: list[str] = field(default_factory=list)

    @property
    def matched(self) -> pd.DataFrame:
        return self.kernels[self.kernels["status"] == "matched"]

    @property
    def only_a(self) -> pd.DataFrame:
        return self.kernels[self.kernels["status"] == "only_a"]

    @property
    def only_b(self) -> pd.DataFrame:
        return self.kernels[self.kernels["status"] == "only_b"]

    def total_time(self, side: str) -> float:
        run = self.run_a if side == "a" else self.run_b
        return float(run.kernels["time_s"].sum())


def compare_runs(run_a: Run, run_b: Run, label_a: str = "A", label_b: str = "B") -> Comparison:
    """Match the kernels of two runs and put every table of them side by side."""
    groups_a = grouped_kernels(run_a).reset_index(drop=True)
    groups_b = grouped_kernels(run_b).reset_index(drop=True)
    launches_a = run_a.kernels.reset_index(drop=True)
    launches_b = run_b.kernels.reset_index(drop=True)
    names = set(launches_a["name"].astype(str)) | set(launches_b["name"].astype(str))
    launch_matches = align_launches(launches_a, launches_b, {name: launch_keys(name) for name in names})
    matches = kernel_matches(groups_a, groups_b, launches_a, launches_b, launch_matches)
    side_a = _side(groups_a, "_a")
    side_b = _side(groups_b, "_b")
    rows = []
    for match in matches:
        rows.append(
            {
                "status": "matched",
                "method": match.method,
                "key": match.key,
                "rank": match.rank,
                "candidates_a": match.candidates_a,
                "candidates_b": match.candidates_b,
                "how": match.how,
                "aligned": match.aligned,
                **side_a[match.a],
                **side_b[match.b],
            }
        )
    paired_a = {m.a for m in matches}
    paired_b = {m.b for m in matches}
    rows += [{"status": "only_a", **side_a[i]} for i in range(len(groups_a)) if i not in paired_a]
    rows += [{"status": "only_b", **side_b[j]} for j in range(len(groups_b)) if j not in paired_b]
    kernels = pd.DataFrame(rows, columns=_kernel_columns())
    kernels["time_ratio"] = kernels["time_s_b"] / kernels["time_s_a"]
    heaviest = kernels[["time_s_a", "time_s_b"]].max(axis=1)
    kernels = kernels.iloc[heaviest.sort_values(ascending=False, kind="stable").index].reset_index(drop=True)

    notes: list[str] = [prefixed("A and B: " if note in run_b.notes else "A: ", note) for note in run_a.notes]
    notes += [prefixed("B: ", note) for note in run_b.notes if note not in run_a.notes]
    if set(run_a.devices) != set(run_b.devices):
        notes.append(
            Note(
                "different_gpus",
                f"different GPUs: A ran on {', '.join(run_a.devices)}, "
                f"B on {', '.join(run_b.devices)}; each side is measured against its own ceilings",
            )
        )
    notes += byte_source_notes(run_a, run_b)
    aligned = sum(1 for m in launch_matches)
    notes.append(
        Note(
            "alignment",
            f"launches aligned per phase in launch order: {aligned} pairs of "
            f"{len(launches_a)} launches in A and {len(launches_b)} in B",
        )
    )
    return Comparison(
        label_a,
        label_b,
        run_a,
        run_b,
        kernels,
        operations=_operations(launches_a, launches_b, launch_matches),
        launches=_launch_pairs(launches_a, launches_b, launch_matches),
        phases=_join(phase_table(run_a.kernels), phase_table(run_b.kernels), "phase"),
        pipelines=_join(pipeline_table(run_a.kernels), pipeline_table(run_b.kernels), "pipeline"),
        zero_ai=_join(zero_ai_table(run_a.kernels), zero_ai_table(run_b.kernels), "phase"),
        notes=notes,
    )


def byte_source_notes(run_a: Run, run_b: Run) -> list[Note]:
    """A note per memory level whose bytes count different things in A and B (say an L2
    of lts__t_bytes against one of lts__t_sectors_srcunit_tex: docs/l2-bytes.md), where a
    change of bytes is partly the counter."""
    notes = []
    for level in LEVELS:
        column = byte_source_column(level)
        a, b = ({str(s).split(":")[0] for s in run.kernels.get(column, ()) if s} for run in (run_a, run_b))
        if a and b and a != b:
            notes.append(
                Note(
                    "byte_sources",
                    f"{LEVEL_LABELS[level]} bytes count different things: A {', '.join(sorted(a))}, "
                    f"B {', '.join(sorted(b))}; part of their change is the counter (docs/l2-bytes.md)",
                )
            )
    return notes


def _kernel_columns() -> list[str]:
    columns = ["status", "method", "key", "rank", "candidates_a", "candidates_b"]
    for suffix in ("_a", "_b"):
        columns += [f"{c}{suffix}" for c in SIDE_COLUMNS] + [f"operation{suffix}"]
    return columns + ["how", "aligned"]  # added last: CSV readers keep their column positions


def _side(groups: pd.DataFrame, suffix: str) -> list[dict[str, Any]]:
    present = [c for c in SIDE_COLUMNS if c in groups]
    records = groups[present].to_dict("records")
    for record in records:
        record["operation"] = operation_key(record["name"])
    return [{f"{k}{suffix}": v for k, v in record.items()} for record in records]


def _operations(
    kernels_a: pd.DataFrame, kernels_b: pd.DataFrame, launch_matches: list[LaunchMatch]
) -> pd.DataFrame:
    """Time, launches, FLOPs and main pipeline per (phase, operation), both sides.

    Every launch counts in its own phase (a kernel launched in forward and in
    backward is in both), unlike the matched kernels, which carry the phase of
    their most time. A launch of B aligned with a launch of A counts under A's
    operation, so a kernel and its counterpart land on one row even when their
    names give different operations.
    """

    def operations_of(kernels: pd.DataFrame) -> pd.Series:
        names = kernels["name"].astype(str)
        keys = {name: operation_key(name) for name in names.unique()}
        return names.map(keys)

    operation_a = operations_of(kernels_a)
    operation_b = operations_of(kernels_b)
    for match in launch_matches:
        operation_b.iloc[match.b] = operation_a.iloc[match.a]

    def per_operation(kernels: pd.DataFrame, operation: pd.Series) -> pd.DataFrame:
        frame = kernels.assign(operation=operation, phase=kernels["phase"].fillna(""))
        grouped = frame.groupby(["phase", "operation"], sort=False)
        out = pd.DataFrame(
            {
                "kernels": grouped["name"].nunique(),
                "count": grouped.size(),
                "time_s": grouped["time_s"].sum(),
                "flops": grouped["flops"].sum(),
            }
        )
        by_pipeline = frame.groupby(["phase", "operation", "pipeline"], sort=False)["time_s"].sum()
        out["pipeline"] = by_pipeline.groupby(level=[0, 1]).idxmax().map(lambda key: key[2])
        return out

    joined = per_operation(kernels_a, operation_a).merge(
        per_operation(kernels_b, operation_b),
        how="outer",
        left_index=True,
        right_index=True,
        suffixes=("_a", "_b"),
    )
    joined = joined.reset_index()
    joined["time_ratio"] = joined["time_s_b"] / joined["time_s_a"]
    heaviest = joined[["time_s_a", "time_s_b"]].max(axis=1)
    return joined.iloc[heaviest.sort_values(ascending=False, kind="stable").index].reset_index(drop=True)


def _launch_pairs(
    kernels_a: pd.DataFrame, kernels_b: pd.DataFrame, launch_matches: list[LaunchMatch]
) -> pd.DataFrame:
    a = [m.a for m in launch_matches]
    b = [m.b for m in launch_matches]
    return pd.DataFrame(
        {
            "phase": [m.phase for m in launch_matches],
            "signal": [m.signal for m in launch_matches],
            "id_a": kernels_a["id"].to_numpy()[a],
            "id_b": kernels_b["id"].to_numpy()[b],
            "name_a": kernels_a["name"].to_numpy()[a],
            "name_b": kernels_b["name"].to_numpy()[b],
            "time_s_a": kernels_a["time_s"].to_numpy()[a],
            "time_s_b": kernels_b["time_s"].to_numpy()[b],
        }
    )


def _join(table_a: pd.DataFrame, table_b: pd.DataFrame, on: str) -> pd.DataFrame:
    """Two summary tables on one row per ``on`` value, in A's order then B's new ones."""
    joined = table_a.merge(table_b, on=on, how="outer", suffixes=("_a", "_b"), sort=False)
    order = list(table_a[on]) + [v for v in table_b[on] if v not in set(table_a[on])]
    order = [v for v in order if v != ALL] + [v for v in order if v == ALL]  # Table III's total row last
    joined = joined.set_index(on).loc[order].reset_index()
    if "time_s_a" in joined:
        joined["time_ratio"] = joined["time_s_b"] / joined["time_s_a"]
    return joined
