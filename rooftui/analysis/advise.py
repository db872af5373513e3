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

Where the report has the instruction roofline's counters and the run has its roofs
(Ding & Williams, PMBS'19: ``analysis.instruction_roofline``), three more kinds of term
join the max: warp instructions at the issue rate, each level's transactions at its
transaction rate, and shared-memory wavefronts at the shared-memory roof ÷ 128 B per
wavefront (one pass of the data pipe each; shared traffic of the LSU only, so a bank
conflict costs what it costs). Shared-memory *bytes* are not a term: they include wgmma
operand reads and TMA copies, which ran past the measured (LDS) roof, 1.15× on a GEMM of
the H200 GPT step (docs/shared-memory.md), so they would bound nothing. These terms are
optional: a report without the counters keeps the bound of the others.

A launch with a quantity not collected (NaN bytes or FLOPs) or moving bytes at a level
(doing FLOPs on a pipeline) that has no roof gets no achievable time and no gain; its
``advise_reason`` says why. ``sol_fraction`` = achievable / time: how close the launch
runs to its speed of light (1 = at the roof or the floor).
"""

from __future__ import annotations

import re
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
ISSUE_LIMIT = "instruction issue"
SHARED_LIMIT = "shared memory"
TIE = 1e-9  # terms within this share of the largest tie; the first named (bytes, FLOPs) binds


@dataclass(frozen=True)
class Term:
    """One term of the bound: a kernel-table amount at a rate (its roof)."""

    column: str  # the amount, a kernel-table column
    label: str  # the ``limit`` it names when it binds
    rate: float | None  # amount per second; None: no roof
    source: str  # where the roof came from
    what: str  # "bytes", "FLOPs", ... for the reason a blank amount gives
    required: bool = True  # a blank amount leaves the launch without a bound (else: left out)


def transactions_limit(level: str) -> str:
    """The ``limit`` a level's transaction term names: "L1 transactions", ..."""
    return f"{LEVEL_LABELS[level]} transactions"


def bound_terms(kernels: pd.DataFrame, ceilings: CeilingSet) -> list[Term]:
    """Every term of one device's bound: bytes per memory level and FLOPs per pipeline
    (required), then the instruction roofline's (optional: warp instructions at the issue
    rate, shared wavefronts at the shared-memory roof, transactions per level)."""
    from rooftui.analysis.instruction_roofline import instruction_ceilings

    terms = []
    for level in BOUND_LEVELS:
        roof = ceilings.bandwidth(level)
        terms.append(
            Term(
                f"bytes_{level}",
                LEVEL_LABELS[level],
                roof.value if roof else None,
                source_text(roof) if roof else "",
                "bytes",
            )
        )
    for pipeline in PIPELINES:
        roof = ceilings.compute(pipeline)
        terms.append(
            Term(
                flop_column(pipeline),
                PIPELINE_LABELS[pipeline],
                roof.value if roof else None,
                source_text(roof) if roof else "",
                "OPs" if pipeline == "tensor_int8" else "FLOPs",
            )
        )
    roofs = instruction_ceilings(kernels, ceilings)
    optional = [
        ("warp_instructions", ISSUE_LIMIT, roofs.issue, "warp instructions"),
        ("shared_wavefronts", SHARED_LIMIT, roofs.shared, "wavefronts"),
        *(
            (f"transactions_{level}", transactions_limit(level), roofs.levels.get(level), "transactions")
            for level in ("l1", "l2", "hbm")
        ),
    ]
    for column, label, instruction_roof, what in optional:
        if instruction_roof is not None:
            source = FOLDERS.sub("", instruction_roof.source)  # the file's name, as source_text gives it
            terms.append(Term(column, label, instruction_roof.value, source, what, False))
    return terms


FOLDERS = re.compile(r"(?:/?[^/\s():]+/)+(?=[^/\s()]+\.json\b)")  # "/a/b/c.json" -> "c.json"


def achievable_times(kernels: pd.DataFrame, ceilings: CeilingSet, floor: LaunchFloor) -> pd.DataFrame:
    """Per launch: roof_s (t_roof, before the floor), achievable_s, flop_byte_achievable_s
    (the same from bytes and FLOPs alone), gain_s, sol_fraction, limit (the binding term),
    limit_source and advise_reason ("" when the gain is known). Same index as ``kernels``."""
    terms = bound_terms(kernels, ceilings)
    times = np.zeros((len(kernels), len(terms)))
    reason = np.full(len(kernels), "", dtype=object)  # the first reason that applies
    for j, term in enumerate(terms):
        if term.column in kernels:
            amount = kernels[term.column].to_numpy(dtype=float)
        else:
            amount = np.full(len(kernels), np.nan)
        missing = np.isnan(amount)
        if term.required:
            reason[missing & (reason == "")] = f"{term.label} {term.what} not collected"
        if term.rate is None:
            reason[(amount > 0) & (reason == "")] = f"no {term.label} roof"
            continue
        times[:, j] = np.where(missing, 0.0, amount) / term.rate
    longest = times.max(axis=1)
    # The FLOP roofline's own bound (bytes and FLOPs only), for estimates that price a new
    # kernel on those terms alone (advise_findings.precision_gains: "at the same share").
    flop_byte = times[:, [j for j, term in enumerate(terms) if term.required]].max(axis=1)
    binding = (times >= longest[:, None] * (1 - TIE)).argmax(axis=1)  # the first of a tie
    t_roof = longest
    labels = np.array([t.label for t in terms], dtype=object)[binding]
    sources = np.array([t.source for t in terms], dtype=object)[binding]
    if floor.per_launch_s is not None:
        floored = t_roof < floor.per_launch_s
        t_roof = np.maximum(t_roof, floor.per_launch_s)
        flop_byte = np.maximum(flop_byte, floor.per_launch_s)
        labels = np.where(floored, FLOOR_LIMIT, labels)
        sources = np.where(floored, floor.source, sources)
    time = kernels["time_s"].to_numpy(dtype=float)
    known = (reason == "") & np.isfinite(time)
    reason[~np.isfinite(time)] = "no duration"
    achievable = np.where(known, t_roof, np.nan)
    return pd.DataFrame(
        {
            "roof_s": np.where(known, longest, np.nan),
            "achievable_s": achievable,
            "flop_byte_achievable_s": np.where(known, flop_byte, np.nan),
            "gain_s": np.where(known, np.maximum(time - t_roof, 0.0), np.nan),
            "sol_fraction": np.where(known, np.minimum(t_roof / time, 1.0), np.nan),
            "limit": np.where(known, labels, ""),
            "limit_source": np.where(known, sources, ""),
            "advise_reason": pd.Series(reason, index=kernels.index, dtype=object),
        },
        index=kernels.index,
    )


def group_limits(launches: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """What bounds each group's speed of light (groups by the ``keys`` columns): every
    launch's achievable time counted to the term that binds it (its ``limit``), summed per
    group and term. Per group, the term with the most (``limit``), its share of the group's
    achievable time (``limit_share``), its launches (``limit_launches``) and its roof's
    source (``limit_source``). A group whose time at its speed of light is mostly launch
    floors is bound by the floor, whatever roof is nearest."""
    frame = launches.loc[launches["achievable_s"].notna(), [*keys, "achievable_s", "limit", "limit_source"]]
    frame = frame.assign(limit=frame["limit"].astype(str), limit_source=frame["limit_source"].astype(str))
    by_term = frame.groupby([*keys, "limit"], sort=False, observed=True, dropna=False)
    per_term = (
        pd.DataFrame(  # .agg(seconds=..., launches=..., source=...) without its ~3 ms of machinery
            {
                "seconds": by_term["achievable_s"].sum(),
                "launches": by_term["achievable_s"].size(),
                "source": by_term["limit_source"].first(),
            }
        )
        .reset_index()
        .sort_values("seconds", ascending=False, kind="stable")
    )
    totals = per_term.groupby(keys, sort=False, dropna=False)["seconds"].sum()
    top = per_term.drop_duplicates(keys).set_index(keys)
    return pd.DataFrame(
        {
            "limit": top["limit"],
            "limit_share": top["seconds"] / totals.reindex(top.index),
            "limit_launches": top["launches"],
            "limit_source": top["source"],
        }
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
    "warp_instructions",
    "shared_wavefronts",
    "transactions_l1",
    "transactions_l2",
    "transactions_hbm",
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
        for column in ("roof_s", "achievable_s", "flop_byte_achievable_s", "gain_s", "sol_fraction"):
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
