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

# Each column is read once as a NumPy array and each result written once: the same float64
# operations as on pandas Series, without pandas' ~50 µs per operation, which was most of
# this module's time on a few hundred launches (benchmarks/results/2026-12-02-load-w26load.md).


def _floats(table: pd.DataFrame, column: str) -> np.ndarray:
    return table[column].to_numpy(dtype=float, na_value=np.nan)


def _flags(table: pd.DataFrame, column: str) -> np.ndarray:
    """A True/False/NA column as booleans, NA as False (``fillna(False).astype(bool)``)."""
    return table[column].fillna(False).to_numpy(dtype=bool)


def _peak(table: pd.DataFrame, ceilings: CeilingSet) -> np.ndarray:
    """``compute_roof`` as an array."""
    seconds_at_peak = np.zeros(len(table))
    covered = np.zeros(len(table))
    for pipeline in FLOAT_PIPELINES:
        ceiling = ceilings.compute(pipeline)
        if ceiling is not None:
            flops = _floats(table, flop_column(pipeline))
            flops = np.where(np.isnan(flops), 0.0, flops)
            seconds_at_peak = seconds_at_peak + flops / ceiling.value
            covered = covered + flops
    total = _floats(table, "flops")
    with np.errstate(invalid="ignore", divide="ignore"):
        roof = covered / seconds_at_peak
    keep = (seconds_at_peak > 0) & (covered >= 0.999 * np.where(np.isnan(total), 0.0, total))
    return np.where(keep, roof, np.nan)


def compute_roof(table: pd.DataFrame, ceilings: CeilingSet) -> pd.Series:
    """Each kernel's compute roof in FLOP/s (NaN when no pipeline it uses has a ceiling)."""
    return pd.Series(_peak(table, ceilings), index=table.index)


def add_bounds(table: pd.DataFrame, ceilings: CeilingSet) -> pd.DataFrame:
    """Add bound_*, roof_*, roof_fraction_*, bound and roof_fraction columns."""
    rows = len(table)
    peak = _peak(table, ceilings)
    rate = _floats(table, "flop_rate")
    ai = {level: _floats(table, f"ai_{level}") for level in LEVELS}
    attainable, sides = {}, {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for level in LEVELS:
            bandwidth = ceilings.bandwidth(level)
            if bandwidth is None:
                roof = np.full(rows, np.nan)
            else:
                roof = np.where(
                    ~np.isnan(ai[level]) & ~np.isnan(peak), np.fmin(peak, ai[level] * bandwidth.value), np.nan
                )
            attainable[level] = roof
            memory_side = ai[level] * (bandwidth.value if bandwidth else np.nan) < peak
            sides[level] = np.where(np.isnan(roof), "", np.where(memory_side, "memory", "compute"))
            table[f"bound_{level}"] = sides[level]
            table[f"roof_{level}"] = roof
            table[f"roof_fraction_{level}"] = rate / roof

        roofs = np.column_stack([attainable[level] for level in BOUND_LEVELS])
        has = ~np.isnan(roofs).all(axis=1)
        lowest = np.where(has, np.nanmin(np.where(np.isnan(roofs), np.inf, roofs), axis=1), np.nan)
        binding = np.nanargmin(np.where(np.isnan(roofs), np.inf, roofs), axis=1)
        bound = np.full(rows, "", dtype=object)
        fraction = rate / lowest
    memory = np.column_stack([sides[lvl] for lvl in BOUND_LEVELS])[np.arange(rows), binding] == "memory"
    pipelines = table["pipeline"].map(lambda p: PIPELINE_LABELS.get(p, p)).to_numpy(dtype=object)
    level_labels = np.array([LEVEL_LABELS[lvl] for lvl in BOUND_LEVELS], dtype=object)[binding]
    labels = np.where(memory, level_labels, pipelines)
    bound[has] = labels[has]
    # A level without a roof might be the binding one: then the bound is unknown,
    # never the lowest of the levels that do have a roof.
    unroofed = [level for level in BOUND_LEVELS if ceilings.bandwidth(level) is None]
    for level in unroofed:
        unknown = ~np.isnan(ai[level])
        bound[unknown] = ""
        fraction[unknown] = np.nan

    # Zero-AI kernels: the level whose bandwidth they use most.
    time_s = _floats(table, "time_s")
    zero = _flags(table, "zero_ai") & (time_s > 0)
    if zero.any():
        use = []
        for level in BOUND_LEVELS:
            bandwidth = ceilings.bandwidth(level)
            if bandwidth is not None:
                with np.errstate(invalid="ignore", divide="ignore"):
                    use.append(
                        (level, _floats(table, f"bytes_{level}")[zero] / time_s[zero] / bandwidth.value)
                    )
        if use:
            usage = np.column_stack([values for _, values in use])
            valid = ~np.isnan(usage).all(axis=1)
            usage = usage[valid]
            best = np.argmax(np.where(np.isnan(usage), -np.inf, usage), axis=1)
            rows_used = np.flatnonzero(zero)[valid]
            bound[rows_used] = np.array([LEVEL_LABELS[level] for level, _ in use], dtype=object)[best]
            fraction[rows_used] = np.nanmax(usage, axis=1)
        # Bytes at a level without a roof: that level might be the one used most.
        for level in unroofed:
            unknown = zero & (_floats(table, f"bytes_{level}") > 0)
            bound[unknown] = ""
            fraction[unknown] = np.nan
    # Tensor work seen but not counted: the kernel's FLOPs and AI are lower bounds and its
    # compute roof is unknown, so which roof binds it is unknown too.
    uncounted = table["pipeline"].to_numpy(dtype=object) == "tensor_uncounted"
    bound[uncounted] = ""
    fraction[uncounted] = np.nan
    # A partial FLOP total: the true AI is higher by an unknown amount at every level,
    # so "this memory roof binds" is unknown. Compute-bound on its known FLOPs alone at
    # every level with bytes is compute-bound whatever the rest (more FLOPs only take
    # longer): that bound stands, named by the pipeline with the most known FLOPs, and its
    # % of roof is blank (the roof of the full mix is unknown).
    all_partial = _partial_array(table)
    partial = all_partial & ~zero
    compute_anyway = partial & ~uncounted & has
    for level in BOUND_LEVELS:
        compute_anyway &= np.isnan(ai[level]) | (sides[level] == "compute")
    bound[partial & ~compute_anyway] = ""
    fraction[partial] = np.nan
    named = bound != ""
    basis = np.where(named, COMPLETE, "").astype(object)
    basis[partial & named] = KNOWN_PART
    basis[all_partial & zero & named] = ZERO_AI_PARTIAL  # never "complete"
    # The uncounted work capped by its pipes' busy cycles: a memory roof may bind anyway.
    decidable = partial & ~named & ~np.isnan(peak)  # as a complete total would be
    if decidable.any():  # (the caps are a third of this function's time: only where they may decide)
        level, capped_fraction = capped_memory_bounds(
            table, ceilings, pd.Series(decidable, index=table.index)
        )
        won = (level != "").to_numpy()
        bound[won] = level[won].map(LEVEL_LABELS).to_numpy(dtype=object)
        fraction[won] = capped_fraction[won].to_numpy(dtype=float)
        basis[won] = CAPPED
    table["bound"] = _text(bound, table)
    table["bound_basis"] = _text(basis, table)
    table["roof_fraction"] = fraction
    table["bound_reason"] = _text(_bound_reasons(table, ceilings, peak), table)
    return table


def _text(values: np.ndarray, table: pd.DataFrame) -> pd.Series:
    """A column of text kept as Python strings (dtype object), as it always was."""
    return pd.Series(values, index=table.index, dtype=object)


def bound_reasons(table: pd.DataFrame, ceilings: CeilingSet, peak: pd.Series) -> pd.Series:
    """Why each blank ``bound`` is blank, in a few words naming what is missing ("" where
    a bound is given); the first reason that applies, in the order a user would fix them."""
    return _text(_bound_reasons(table, ceilings, peak.to_numpy(dtype=float, na_value=np.nan)), table)


def _bound_reasons(table: pd.DataFrame, ceilings: CeilingSet, peak: np.ndarray) -> np.ndarray:
    """``bound_reasons`` as an array."""
    reasons = np.full(len(table), "", dtype=object)
    blank = table["bound"].fillna("").to_numpy(dtype=object) == ""
    if not blank.any():
        return reasons
    zero = _flags(table, "zero_ai")
    zero_ai_unknown = table["zero_ai"].isna().to_numpy()
    flops = _floats(table, "flops")
    has_bytes = np.zeros(len(table), dtype=bool)
    for level in LEVELS:
        has_bytes |= ~np.isnan(_floats(table, f"bytes_{level}"))
    partial = _partial_array(table)

    def give(mask: np.ndarray, reason: np.ndarray | str) -> None:
        todo = blank & mask & (reasons == "")
        reasons[todo] = reason[todo] if isinstance(reason, np.ndarray) else reason

    give(~(_floats(table, "time_s") > 0), "no time for this launch")
    give(~has_bytes, "no bytes at any memory level in the report")
    give(
        table["pipeline"].to_numpy(dtype=object) == "tensor_uncounted",
        "Tensor work present but not countable (FLOPs per instruction depend on the MMA shape): "
        "compute roof and AI unknown",
    )
    give(~zero & np.isnan(flops) & zero_ai_unknown, "no FLOP counters in the report: AI unknown")
    if (blank & ~zero & partial).any():  # (why_not_capped is slow: only where it is said)
        missing = pd.Series([[] for _ in table.index], index=table.index, dtype=object)
        for pipeline in (*FLOAT_PIPELINES, "tensor_int8"):
            states = state_column(flop_column(pipeline))
            if states in table:
                for row in table.index[table[states] == NOT_COLLECTED]:
                    missing[row].append(PIPELINE_LABELS[pipeline])
        named = missing.map(lambda labels: ", ".join(labels) or "some terms")
        uncapped = why_not_capped(table, ceilings).map(lambda why: f"; not capped: {why}" if why else "")
        give(
            ~zero & partial,
            (
                "FLOP total partial (" + named + " not collected): the true AI is "
                "at least the shown one, so whether a memory roof binds is unknown" + uncapped
            ).to_numpy(dtype=object),
        )
    give(~zero & (flops > 0) & np.isnan(peak), "no compute roof for the pipelines it uses")
    for level in BOUND_LEVELS:
        if ceilings.bandwidth(level) is None:
            give(
                _floats(table, f"bytes_{level}") > 0,
                f"no {LEVEL_LABELS[level]} roof, and it moved bytes there: that level might bind",
            )
    give(
        ~zero & (flops == 0) & zero_ai_unknown,
        "known FLOPs are 0 but other counters were not collected: zero-AI or not is unknown",
    )
    give(blank, "no roof meets its bytes or FLOPs")
    return reasons


def _partial_array(table: pd.DataFrame) -> np.ndarray:
    if "flops_partial" not in table:
        return np.zeros(len(table), dtype=bool)
    return _flags(table, "flops_partial")
