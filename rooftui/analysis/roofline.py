"""Which roof binds each kernel, at each memory level, and how close it gets.

At level L with intensity AI_L and bandwidth B_L the attainable rate is
min(P, AI_L·B_L) (Williams et al., "Roofline", CACM 2009; hierarchical form as
in Yang et al.). P is the kernel's compute roof: for a kernel that mixes
pipelines, the rate at which its FLOP mix would run with every pipeline at its
peak, flops / Σ_p(flops_p / P_p). The binding roof is the lowest attainable
rate over the levels. Only the paper's levels decide (``columns.BOUND_LEVELS``): SMEM gets
its per-level columns but no say. Zero-AI kernels have no compute roof: their bound is the
level whose bandwidth they use most, and their fraction is that utilisation.
A kernel whose AI (or, zero-AI, whose traffic) at some level has no roof to meet
has an unknown bound (""): that level might bind it. So has a kernel whose FLOP
total is partial (some applicable counter not collected, or Tensor work seen but not
countable): its true AI is at least the known part's at every level, so a memory roof
that seems to bind might not, and its compute roof is the unknown mix's; only one
compute-bound on its known FLOPs alone stays compute-bound, and one whose missing work
the report caps may still be memory-bound (``capped_bounds``). Each blank bound says why
in ``bound_reason`` (``bound_reasons``); each bound says what it rests on in
``bound_basis`` (``capped_bounds.BASES``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.analysis.capped_bounds import (
    CAPPED,
    COMPLETE,
    KNOWN_PART,
    ZERO_AI_PARTIAL,
    capped_memory_bounds,
    why_not_capped,
)
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import (
    BOUND_LEVELS,
    FLOAT_PIPELINES,
    LEVEL_LABELS,
    LEVELS,
    NOT_COLLECTED,
    PIPELINE_LABELS,
    flop_column,
    state_column,
)


def compute_roof(table: pd.DataFrame, ceilings: CeilingSet) -> pd.Series:
    """Each kernel's compute roof in FLOP/s (NaN when no pipeline it uses has a ceiling)."""
    seconds_at_peak = pd.Series(0.0, index=table.index)
    covered = pd.Series(0.0, index=table.index)
    for pipeline in FLOAT_PIPELINES:
        ceiling = ceilings.compute(pipeline)
        flops = table[flop_column(pipeline)].fillna(0.0)
        if ceiling is not None:
            seconds_at_peak += flops / ceiling.value
            covered += flops
    roof = covered / seconds_at_peak
    return roof.where((seconds_at_peak > 0) & (covered >= 0.999 * table["flops"].fillna(0.0)))


def add_bounds(table: pd.DataFrame, ceilings: CeilingSet) -> pd.DataFrame:
    """Add bound_*, roof_*, roof_fraction_*, bound and roof_fraction columns."""
    peak = compute_roof(table, ceilings)
    attainable = {}
    for level in LEVELS:
        bandwidth = ceilings.bandwidth(level)
        ai = table[f"ai_{level}"]
        if bandwidth is None:
            roof = pd.Series(np.nan, index=table.index)
        else:
            roof = np.fmin(peak, ai * bandwidth.value).where(ai.notna() & peak.notna())
        attainable[level] = roof
        memory_side = ai * (bandwidth.value if bandwidth else np.nan) < peak
        table[f"bound_{level}"] = np.where(roof.isna(), "", np.where(memory_side, "memory", "compute"))
        table[f"roof_{level}"] = roof
        table[f"roof_fraction_{level}"] = table["flop_rate"] / roof

    roofs = pd.DataFrame({level: attainable[level] for level in BOUND_LEVELS}).to_numpy(dtype=float)
    has = ~np.isnan(roofs).all(axis=1)
    lowest = np.where(has, np.nanmin(np.where(np.isnan(roofs), np.inf, roofs), axis=1), np.nan)
    binding = np.nanargmin(np.where(np.isnan(roofs), np.inf, roofs), axis=1)
    bound = pd.Series("", index=table.index, dtype=object)
    fraction = table["flop_rate"] / pd.Series(lowest, index=table.index)
    sides = np.column_stack([table[f"bound_{lvl}"].to_numpy(dtype=object) for lvl in BOUND_LEVELS])
    memory = np.take_along_axis(sides, binding[:, None], axis=1)[:, 0] == "memory"
    pipelines = table["pipeline"].map(lambda p: PIPELINE_LABELS.get(p, p)).to_numpy(dtype=object)
    level_labels = np.array([LEVEL_LABELS[lvl] for lvl in BOUND_LEVELS], dtype=object)[binding]
    labels = np.where(memory, level_labels, pipelines)
    bound[has] = labels[has]
    # A level without a roof might be the binding one: then the bound is unknown,
    # never the lowest of the levels that do have a roof.
    unroofed = [level for level in BOUND_LEVELS if ceilings.bandwidth(level) is None]
    for level in unroofed:
        unknown = table[f"ai_{level}"].notna()
        bound[unknown] = ""
        fraction[unknown] = np.nan

    # Zero-AI kernels: the level whose bandwidth they use most.
    zero = table["zero_ai"].fillna(False).astype(bool) & (table["time_s"] > 0)
    if zero.any():
        use = {}
        for level in BOUND_LEVELS:
            bandwidth = ceilings.bandwidth(level)
            if bandwidth is not None:
                use[level] = table.loc[zero, f"bytes_{level}"] / table.loc[zero, "time_s"] / bandwidth.value
        if use:
            usage = pd.DataFrame(use)
            valid = usage.notna().any(axis=1)
            usage = usage[valid]
            best = usage.fillna(-np.inf).idxmax(axis=1)
            bound[best.index] = best.map(LEVEL_LABELS)
            fraction[best.index] = usage.max(axis=1)
        # Bytes at a level without a roof: that level might be the one used most.
        for level in unroofed:
            unknown = zero & (table[f"bytes_{level}"] > 0)
            bound[unknown] = ""
            fraction[unknown] = np.nan
    # Tensor work seen but not counted: the kernel's FLOPs and AI are lower bounds and its
    # compute roof is unknown, so which roof binds it is unknown too.
    uncounted = table["pipeline"] == "tensor_uncounted"
    bound[uncounted] = ""
    fraction[uncounted] = np.nan
    # A partial FLOP total: the true AI is higher by an unknown amount at every level,
    # so "this memory roof binds" is unknown. Compute-bound on its known FLOPs alone at
    # every level with bytes is compute-bound whatever the rest (more FLOPs only take
    # longer): that bound stands, named by the pipeline with the most known FLOPs, and its
    # % of roof is blank (the roof of the full mix is unknown).
    partial = _partial(table) & ~zero
    compute_anyway = partial & ~uncounted & pd.Series(has, index=table.index)
    for level in BOUND_LEVELS:
        measured = table[f"ai_{level}"].notna()
        compute_anyway &= ~measured | (table[f"bound_{level}"] == "compute")
    bound[partial & ~compute_anyway] = ""
    fraction[partial] = np.nan
    basis = pd.Series(np.where(bound != "", COMPLETE, ""), index=table.index, dtype=object)
    basis[partial & (bound != "")] = KNOWN_PART
    basis[_partial(table) & zero & (bound != "")] = ZERO_AI_PARTIAL  # never "complete"
    # The uncounted work capped by its pipes' busy cycles: a memory roof may bind anyway.
    decidable = partial & (bound == "") & peak.notna()  # as a complete total would be
    if decidable.any():  # (the caps are a third of this function's time: only where they may decide)
        level, capped_fraction = capped_memory_bounds(table, ceilings, decidable)
        won = level != ""
        bound[won] = level[won].map(LEVEL_LABELS)
        fraction[won] = capped_fraction[won]
        basis[won] = CAPPED
    table["bound"] = bound
    table["bound_basis"] = basis
    table["roof_fraction"] = fraction
    table["bound_reason"] = bound_reasons(table, ceilings, peak)
    return table


def bound_reasons(table: pd.DataFrame, ceilings: CeilingSet, peak: pd.Series) -> pd.Series:
    """Why each blank ``bound`` is blank, in a few words naming what is missing ("" where
    a bound is given); the first reason that applies, in the order a user would fix them."""
    reasons = pd.Series("", index=table.index, dtype=object)
    blank = table["bound"].fillna("") == ""
    zero = table["zero_ai"].fillna(False).astype(bool)
    has_bytes = table[[f"bytes_{level}" for level in LEVELS]].notna().any(axis=1)

    def give(mask: pd.Series, reason: pd.Series | str) -> None:
        todo = blank & mask.fillna(False).astype(bool) & (reasons == "")
        reasons[todo] = reason[todo] if isinstance(reason, pd.Series) else reason

    give(~(table["time_s"] > 0), "no time for this launch")
    give(~has_bytes, "no bytes at any memory level in the report")
    give(
        table["pipeline"] == "tensor_uncounted",
        "Tensor work present but not countable (FLOPs per instruction depend on the MMA shape): "
        "compute roof and AI unknown",
    )
    give(
        ~zero & table["flops"].isna() & table["zero_ai"].isna(), "no FLOP counters in the report: AI unknown"
    )
    if (blank & ~zero & _partial(table)).any():  # (why_not_capped is slow: only where it is said)
        missing = pd.Series([[] for _ in table.index], index=table.index, dtype=object)
        for pipeline in (*FLOAT_PIPELINES, "tensor_int8"):
            states = state_column(flop_column(pipeline))
            if states in table:
                for row in table.index[table[states] == NOT_COLLECTED]:
                    missing[row].append(PIPELINE_LABELS[pipeline])
        named = missing.map(lambda labels: ", ".join(labels) or "some terms")
        uncapped = why_not_capped(table, ceilings).map(lambda why: f"; not capped: {why}" if why else "")
        give(
            ~zero & _partial(table),
            "FLOP total partial (" + named + " not collected): the true AI is "
            "at least the shown one, so whether a memory roof binds is unknown" + uncapped,
        )
    give(~zero & (table["flops"] > 0) & peak.isna(), "no compute roof for the pipelines it uses")
    for level in BOUND_LEVELS:
        if ceilings.bandwidth(level) is None:
            give(
                table[f"bytes_{level}"] > 0,
                f"no {LEVEL_LABELS[level]} roof, and it moved bytes there: that level might bind",
            )
    give(
        ~zero & (table["flops"] == 0) & table["zero_ai"].isna(),
        "known FLOPs are 0 but other counters were not collected: zero-AI or not is unknown",
    )
    give(blank, "no roof meets its bytes or FLOPs")
    return reasons


def _partial(table: pd.DataFrame) -> pd.Series:
    if "flops_partial" not in table:
        return pd.Series(False, index=table.index)
    return table["flops_partial"].fillna(False).astype(bool)
