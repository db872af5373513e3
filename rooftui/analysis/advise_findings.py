"""Findings, each priced in seconds per step with the evidence behind it, and the verdict
on one launch in words a user acts on.

Findings overlap (a copy kernel is in "zero-AI time" and may be in "fusion"): each is
what fixing that one thing would buy at best, never to be added up; the step budget
(``advise_budget``) is the one total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rooftui.analysis.advise import (
    FLOOR_LIMIT,
    ISSUE_LIMIT,
    SHARED_LIMIT,
    LaunchFloor,
    group_limits,
    roll_up,
)
from rooftui.analysis.advise_budget import plural
from rooftui.analysis.ceilings import source_text
from rooftui.analysis.operations import COPY_CAST_LAYOUT, ELEMENTWISE, MATRIX_CLASSES
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import BOUND_LEVELS, LEVEL_LABELS, PIPELINE_LABELS
from rooftui.views.formats import seconds, si

TINY_FLOOR_MULTIPLE = 2.0  # "near the floor": under this many floors
LITTLE_HBM = 0.25  # "little HBM traffic": HBM bytes under this share of L2 bytes
SLOW_CLOCK = 0.98  # a launch ran "below the roof's clock" under this share of it
CAST_TRAFFIC = 1.5  # a cast reads 4 bytes and writes 2 per element of an FP32 operand
FUSABLE = (ELEMENTWISE, COPY_CAST_LAYOUT)
KERNEL_FINDINGS = 10


@dataclass(frozen=True)
class Finding:
    """One thing to fix, what it buys per step at best, and why we think so."""

    kind: str  # precision, zero_ai, clocks, tiny_kernels, fusion, memory_level, kernel
    title: str
    gain_s: float  # per step, at best
    evidence: str
    fix: str
    launches: int
    subject: str = ""  # the kernel name, for kind "kernel"
    ids: tuple[int, ...] = ()  # the launches (kernel-table id), costliest first
    details: dict[str, float] = field(default_factory=dict)  # e.g. gain per operation class

    def to_dict(self, step_s: float) -> dict[str, object]:
        return {
            "kind": self.kind,
            "title": self.title,
            "subject": self.subject,
            "gain_s": self.gain_s,
            "share_of_step": self.gain_s / step_s if step_s > 0 else None,
            "evidence": self.evidence,
            "fix": self.fix,
            "launches": self.launches,
            "ids": list(self.ids[:20]),
            "details": self.details,
        }


# How a limit reads in "X-bound" where its own name would not.
BOUND_WORDS = {ISSUE_LIMIT: "issue", SHARED_LIMIT: "shared-memory"}


def verdict(limit: str, sol_fraction: float, reason: str = "") -> str:
    """What binds one launch (or kernel), in words a user acts on."""
    if reason or not math.isfinite(sol_fraction):
        return f"no bound: {reason or 'quantities not collected'}"
    share = f"{sol_fraction:.0%}" if sol_fraction >= 0.01 else "<1%"
    if limit == FLOOR_LIMIT:
        if sol_fraction >= 0.5:
            return f"at {share} of its speed of light, the launch floor: launch-bound, fuse or batch launches"
        return (
            f"at {share} of its speed of light, the launch floor: latency/occupancy-bound, "
            "too little work per launch to reach any roof"
        )
    memory = limit in LEVEL_LABELS.values()
    if sol_fraction >= 0.6:
        if memory:
            what = "reduce traffic" if limit == "HBM" else f"reduce {limit} traffic (reuse, tiling)"
            return f"at {share} of the {limit} roof: memory-bound, {what}"
        if limit == ISSUE_LIMIT:
            return f"at {share} of the {limit} roof: issue-bound, issue fewer instructions"
        if limit == SHARED_LIMIT:
            return f"at {share} of the {limit} roof: shared-memory-bound, fewer wavefronts"
        if limit.endswith(" transactions"):
            return f"at {share} of the {limit} roof: memory-bound on transactions, fewer sectors per request"
        return f"at {share} of the {limit} roof: compute-bound, use a faster pipeline or precision"
    if sol_fraction < 0.1:
        return f"at {share} of every roof: latency/occupancy/launch-bound, not {limit}"
    what = BOUND_WORDS.get(limit, limit)
    return f"at {share} of the {limit} roof, its nearest: between {what}-bound and latency-bound"


def fix_for(limit: str, sol_fraction: float) -> str:
    """What to try on a launch that ``limit`` binds at ``sol_fraction`` of its speed of light."""
    if limit == FLOOR_LIMIT:
        if sol_fraction >= 0.5:
            return "fewer launches: fuse with its neighbours, batch it, or capture it in a CUDA graph"
        return (
            "more parallel work per launch, or find the stall in ncu's Occupancy, Launch Statistics "
            "and Warp State sections"
        )
    if sol_fraction < 0.1:
        return (
            "not a bandwidth or FLOP problem yet: find the latency or occupancy limit in ncu's "
            "Occupancy and Warp State sections"
        )
    if limit in ("L1", "L2"):
        return f"fewer {limit} passes over the same data: tiling, fusion, reuse in registers or shared memory"
    if limit == "HBM":
        return "move fewer bytes: fuse, use a narrower type, avoid re-reading"
    if limit == ISSUE_LIMIT:
        return (
            "fewer instructions per result: wider (vector) loads and stores, less index arithmetic, "
            "Tensor Cores for the math"
        )
    if limit == SHARED_LIMIT:
        return "fewer shared-memory wavefronts: remove bank conflicts (padding, swizzling), wider accesses"
    if limit.endswith(" transactions"):
        return "fewer sectors per request: coalesced, aligned accesses (explorer key i: the walls)"
    return "a faster pipeline (Tensor Cores, a narrower type) or less arithmetic"


def binding_share(binding: pd.Series, launches: int) -> str:
    """The part of a group its ``limit`` binds (``advise.group_limits``), as ", 7 of 9
    launches, 75% of the achievable time"; empty where it binds every launch."""
    if int(binding["limit_launches"]) == launches:
        return ""
    return (
        f", {int(binding['limit_launches'])} of {launches} launches, "
        f"{binding['limit_share']:.0%} of the achievable time"
    )


IDS_KEPT = 20  # launches a finding names, costliest first


def _ids(launches: pd.DataFrame, gain: pd.Series) -> tuple[int, ...]:
    order = gain.nlargest(IDS_KEPT, keep="first").index
    return tuple(int(i) for i in launches.loc[order, "id"])


def precision_gains(launches: pd.DataFrame, ceilings: CeilingSet, floor: LaunchFloor) -> pd.DataFrame:
    """Per GEMM/convolution launch on FP32 CUDA cores or TF32 Tensor Cores: its time at the
    best 16-bit Tensor roof (bytes halved), plus the casts mixed precision adds (its HBM
    bytes read as FP32 and written as 16-bit once, at the HBM roof). Columns new_s, cast_s, gain_s."""
    half = max(
        (c for c in (ceilings.compute("tensor_bf16"), ceilings.compute("tensor_fp16")) if c),
        key=lambda c: c.value,
        default=None,
    )
    hbm = ceilings.bandwidth("hbm")
    wide = launches["flops_fp32"].fillna(0) + launches["flops_tensor_tf32"].fillna(0)
    mask = (
        launches["operation_class"].isin(MATRIX_CLASSES)
        & launches["gain_s"].notna()
        & (wide > 0.5 * launches["flops"])
    )
    if half is None or hbm is None or not mask.any():
        return pd.DataFrame(columns=["new_s", "cast_s", "gain_s", "same_share_s"])
    chosen = launches[mask]
    terms = [chosen["flops"] / half.value]
    for level in BOUND_LEVELS:
        roof = ceilings.bandwidth(level)
        if roof is not None:
            terms.append(chosen[f"bytes_{level}"] / 2 / roof.value)
    new = pd.concat(terms, axis=1).max(axis=1)
    if floor.per_launch_s is not None:
        new = new.clip(lower=floor.per_launch_s)
    cast = CAST_TRAFFIC * chosen["bytes_hbm"] / hbm.value
    gain = (chosen["time_s"] - new - cast).clip(lower=0.0)
    # The same launch at the same share of its speed of light as now: what a kernel that
    # stays latency- or occupancy-bound would gain (closer to what AMP shows, docs/advise.md).
    # Both bounds on the same terms: bytes and FLOPs (the new kernel's instructions are unknown).
    same_share = chosen["time_s"] * new / chosen["flop_byte_achievable_s"]
    return pd.DataFrame(
        {
            "new_s": new,
            "cast_s": cast,
            "gain_s": gain,
            "same_share_s": same_share,
            "roof": half.label,
            "roof_source": source_text(half),
        }
    )


def _precision(
    launches: pd.DataFrame, ceilings: CeilingSet, floor: LaunchFloor, per_step: float
) -> list[Finding]:
    priced = precision_gains(launches, ceilings, floor)
    if priced.empty:
        return []
    chosen = launches.loc[priced.index]
    roof = ceilings.compute("tensor_bf16") or ceilings.compute("tensor_fp16")
    label = str(priced["roof"].iloc[0])
    by_class = priced.groupby(chosen["operation_class"])["gain_s"].sum() * per_step
    return [
        Finding(
            "precision",
            f"GEMM/convolution on FP32/TF32: at the {label} roof",
            float(priced["gain_s"].sum()) * per_step,
            f"{len(priced)} launches, {seconds(chosen['time_s'].sum() * per_step)} per step, "
            f"{si(chosen['flops'].sum() * per_step, 'FLOP')}; at {label} "
            f"({si(roof.value if roof else None, 'FLOP/s')}, {priced['roof_source'].iloc[0]}) "
            f"with bytes halved: {seconds(priced['new_s'].sum() * per_step)}; "
            f"casts added at HBM: {seconds(priced['cast_s'].sum() * per_step)}; at their present share "
            f"of the roof instead: {seconds(priced['same_share_s'].sum() * per_step)} plus the casts",
            "train in mixed precision (torch.autocast with bfloat16) or FP8",
            len(priced),
            ids=_ids(chosen, priced["gain_s"]),
            details={str(k): float(v) for k, v in by_class.items()},
        )
    ]


def _zero_ai(
    launches: pd.DataFrame, ceilings: CeilingSet, floor: LaunchFloor, per_step: float
) -> list[Finding]:
    hbm = ceilings.bandwidth("hbm")
    mask = (launches["operation_class"] == COPY_CAST_LAYOUT) | launches["zero_ai"].fillna(False).astype(bool)
    mask &= launches["bytes_hbm"].notna() & (launches["operation_class"] != "communication")
    if hbm is None or not mask.any():
        return []
    chosen = launches[mask]
    at_hbm = (chosen["bytes_hbm"] / hbm.value).clip(lower=floor.per_launch_s or 0.0)
    gain = (chosen["time_s"] - at_hbm).clip(lower=0.0)
    time = float(chosen["time_s"].sum()) * per_step
    return [
        Finding(
            "zero_ai",
            "copies, casts and layout changes: at the HBM roof",
            float(gain.sum()) * per_step,
            f"{len(chosen)} launches, {seconds(time)} per step moving "
            f"{si(chosen['bytes_hbm'].sum() * per_step, 'B')} "
            f"of HBM traffic; at the HBM roof ({si(hbm.value, 'B/s')}, {source_text(hbm)}) "
            f"{seconds(at_hbm.sum() * per_step)}; removing them saves all {seconds(time)}",
            "keep tensors in one layout and precision (channels_last throughout, no .float()/.half() round "
            "trips), or fuse the casts into their neighbours",
            len(chosen),
            ids=_ids(chosen, gain),
        )
    ]


def _clocks(launches: pd.DataFrame, ceilings: CeilingSet, per_step: float) -> list[Finding]:
    if "sm_clock_hz" not in launches or launches["sm_clock_hz"].isna().all():
        return []
    roof_clock = {}
    for ceiling in ceilings.ceilings:
        clock = ceiling.extra.get("clock_hz")
        if isinstance(clock, (int, float)) and clock > 0 and ceiling.level != "hbm":
            roof_clock[
                ceiling.label
                if ceiling.kind == "bandwidth"
                else PIPELINE_LABELS.get(ceiling.precision or "", "")
            ] = float(clock)
    for roof in ceilings.instruction_roofs:  # the issue rate measured at its kernel's clock
        clock = roof.extra.get("clock_hz")
        if roof.name == "issue" and isinstance(clock, (int, float)) and clock > 0:
            roof_clock[ISSUE_LIMIT] = float(clock)
    measured_at = launches["limit"].astype(str).map(roof_clock)  # float, not a category
    ran_at = launches["sm_clock_hz"]
    slow = (
        measured_at.notna()
        & ran_at.notna()
        & (ran_at < SLOW_CLOCK * measured_at)
        & launches["gain_s"].notna()
    )
    if not slow.any():
        return []
    chosen = launches[slow]
    clock_part = (chosen["roof_s"] * (measured_at[slow] / ran_at[slow] - 1)).clip(upper=chosen["gain_s"])
    gap = float(chosen["gain_s"].sum()) * per_step
    return [
        Finding(
            "clocks",
            "SM clock below the clock the roofs were measured at",
            float(clock_part.sum()) * per_step,
            f"{len(chosen)} launches ran at a median {np.median(ran_at[slow]) / 1e6:.0f} MHz "
            f"(sm__cycles_elapsed.avg.per_second) against {np.median(measured_at[slow]) / 1e6:.0f} MHz for "
            f"their roofs; of their {seconds(gap)} below the roofs, "
            f"{seconds(clock_part.sum() * per_step)} is the "
            f"clock (power/thermal) and {seconds(gap - clock_part.sum() * per_step)} the kernels",
            "check power and thermal limits (nvidia-smi -q -d PERFORMANCE); "
            "profile with --clock-control none",
            len(chosen),
            ids=_ids(chosen, clock_part),
        )
    ]


def _tiny(launches: pd.DataFrame, floor: LaunchFloor, kernel_s: float, per_step: float) -> list[Finding]:
    if floor.per_launch_s is None:
        return []
    near = launches["time_s"] < TINY_FLOOR_MULTIPLE * floor.per_launch_s
    if not near.any():
        return []
    chosen = launches[near]
    gain = (chosen["time_s"] - floor.per_launch_s).clip(lower=0.0)
    return [
        Finding(
            "tiny_kernels",
            f"launches within {TINY_FLOOR_MULTIPLE:g}× the launch floor",
            float(gain.sum()) * per_step,
            f"{len(chosen)} of {len(launches)} launches, "
            f"{seconds(chosen['time_s'].sum() * per_step)} per step "
            f"({chosen['time_s'].sum() / kernel_s:.0%} of kernel time); floor {seconds(floor.per_launch_s)} "
            f"({floor.source})",
            "fuse them (torch.compile), batch them (foreach/multi-tensor ops), "
            "or capture them in a CUDA graph",
            len(chosen),
            ids=_ids(chosen, gain),
        )
    ]


def fusion_runs(launches: pd.DataFrame) -> pd.Series:
    """A run number per launch for runs of two or more consecutive elementwise/copy
    launches on one stream of one report (in launch order); -1 for the others."""
    keys = [column for column in ("report", "stream") if column in launches]
    ordered = launches.sort_values([*keys, "id"], kind="stable")
    fusable = ordered["operation_class"].isin(FUSABLE).to_numpy()
    same_place = np.ones(len(ordered), dtype=bool)
    for column in keys:
        values = ordered[column].astype(str).to_numpy()
        same_place[1:] &= values[1:] == values[:-1]
    same_place[0] = False
    joins = fusable & np.concatenate([[False], fusable[:-1]]) & same_place
    run = np.cumsum(fusable & ~joins) - 1
    run = np.where(fusable, run, -1)
    sizes = np.bincount(run[run >= 0], minlength=1)
    run = np.where((run >= 0) & (sizes[np.maximum(run, 0)] >= 2), run, -1)
    return pd.Series(run, index=ordered.index).reindex(launches.index)


def _fusion(launches: pd.DataFrame, floor: LaunchFloor, per_step: float) -> list[Finding]:
    runs = fusion_runs(launches)
    chosen = launches[(runs >= 0) & launches["roof_s"].notna()]
    if chosen.empty:
        return []
    groups = chosen.groupby(runs[chosen.index])
    fused = groups["roof_s"].sum().clip(lower=floor.per_launch_s or 0.0)
    gain = (groups["time_s"].sum() - fused).clip(lower=0.0)
    return [
        Finding(
            "fusion",
            f"{len(gain)} runs of consecutive elementwise/copy kernels, each fused into one",
            float(gain.sum()) * per_step,
            f"{len(chosen)} launches in {len(gain)} runs on one stream, "
            f"{seconds(chosen['time_s'].sum() * per_step)} "
            f"per step; fused, each run costs at least its roof time summed and one floor: "
            f"{seconds(fused.sum() * per_step)}",
            "fuse them (torch.compile, or a hand-written fused kernel)",
            len(chosen),
            ids=_ids(chosen, chosen["time_s"]),
        )
    ]


def _memory_level(launches: pd.DataFrame, per_step: float) -> list[Finding]:
    cache = launches["limit"].isin(("L1", "L2"))
    little = launches["bytes_hbm"] < LITTLE_HBM * launches["bytes_l2"]
    chosen = launches[cache & little & launches["gain_s"].notna()]
    if chosen.empty:
        return []
    return [
        Finding(
            "memory_level",
            "bound at L1/L2 with little HBM traffic: reuse, not bandwidth",
            float(chosen["gain_s"].sum()) * per_step,
            f"{len(chosen)} launches whose nearest roof is L1 or L2 and whose HBM bytes are under "
            f"{LITTLE_HBM:.0%} of their L2 bytes; {seconds(chosen['time_s'].sum() * per_step)} per step",
            "the data already fits in cache: fewer passes over it (fusion, tiling, larger blocks), "
            "not faster memory",
            len(chosen),
            ids=_ids(chosen, chosen["gain_s"]),
        )
    ]


def _kernels(launches: pd.DataFrame, per_step: float) -> list[Finding]:
    known = launches[launches["gain_s"].notna()]
    if known.empty:
        return []
    by_name = roll_up(known, "name").head(KERNEL_FINDINGS)
    limits = group_limits(known[known["name"].isin(by_name.index)], ["name"])
    findings = []
    for name, row in by_name.iterrows():
        these = known[known["name"] == name]
        binding = limits.loc[name]
        limit = str(binding["limit"])
        sol = row["achievable_s"] / row["time_s"] if row["time_s"] > 0 else float("nan")
        findings.append(
            Finding(
                "kernel",
                verdict(limit, sol),
                float(row["gain_s"]) * per_step,
                f"{plural(int(row['launches']), 'launch')}, "
                f"{seconds(row['time_s'] * per_step)} per step against "
                f"{seconds(row['achievable_s'] * per_step)} achievable; binding: {limit}"
                f"{binding_share(binding, int(row['launches']))} ({binding['limit_source']})",
                fix_for(limit, sol),
                int(row["launches"]),
                subject=str(name),
                ids=_ids(these, these["gain_s"]),
            )
        )
    return findings


def findings(
    launches: pd.DataFrame, ceilings: CeilingSet, floor: LaunchFloor, steps_in_report: int = 1
) -> list[Finding]:
    """Every finding for one GPU's launches (``advise.with_advice``'s columns), largest gain first."""
    per_step = 1.0 / steps_in_report
    kernel_s = float(launches["time_s"].sum())
    found = [
        *_precision(launches, ceilings, floor, per_step),
        *_zero_ai(launches, ceilings, floor, per_step),
        *_clocks(launches, ceilings, per_step),
        *_tiny(launches, floor, kernel_s, per_step),
        *_fusion(launches, floor, per_step),
        *_memory_level(launches, per_step),
        *_kernels(launches, per_step),
    ]
    return sorted((f for f in found if f.gain_s > 0), key=lambda f: -f.gain_s)
