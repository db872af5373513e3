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
    """What a report lacked: metrics derived from rates or other spellings, metrics
    missing outright, how time was obtained, and whether the architecture was unknown."""

    derived: set[str] = field(default_factory=set)
    respelled: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)
    time_sources: set[str] = field(default_factory=set)
    unknown_arch: bool = False


def _column(raw: pd.DataFrame, name: str) -> pd.Series | None:
    return raw[name].astype(float) if name in raw else None


def metric_values(raw: pd.DataFrame, metric: str, time_ns: pd.Series, log: Derivation) -> pd.Series:
    """A count metric, read directly or derived; NaN where nothing gives it.

    Tried per launch, first that gives a value: the metric under each of its
    spellings (``metrics.SPELLINGS``), then from the rates ncu's sections store
    [NCU]: ``X.sum.per_cycle_elapsed`` × the unit's ``cycles_elapsed.avg`` (the SM's
    for smsp__/l1tex__ counters: one clock, equal cycle counts on every known-answer
    launch), or × clock × duration;
    ``X.sum.per_second`` × duration.
    """
    value = pd.Series(np.nan, index=raw.index)
    names = m.spellings(metric)
    candidates: list[tuple[str, pd.Series | None]] = [(name, _column(raw, name)) for name in names]
    seconds = time_ns * 1e-9
    for name in names:
        unit = name.split("__", 1)[0]
        per_cycle = _column(raw, f"{name}.per_cycle_elapsed")
        if per_cycle is not None:
            for cycles_name in dict.fromkeys((f"{unit}__cycles_elapsed.avg", m.SM_CYCLES
                                              if unit in ("sm", "smsp", "l1tex") else "")):
                cycles = _column(raw, cycles_name) if cycles_name else None
                if cycles is not None:
                    candidates.append((f"{name}.per_cycle_elapsed × {cycles_name}", per_cycle * cycles))
            clock = _column(raw, m.UNIT_CLOCKS.get(unit, f"{unit}__cycles_elapsed.avg.per_second"))
            if clock is not None:
                candidates.append((f"{name}.per_cycle_elapsed × clock × duration",
                                   per_cycle * clock * seconds))
        per_second = _column(raw, f"{name}.per_second")
        if per_second is not None:
            candidates.append((f"{name}.per_second × duration", per_second * seconds))
    value, used = _fill_gaps(value, candidates)
    for how, _ in used:
        if how in names[1:]:
            log.respelled.add(f"{metric} = {how}")
        elif how != metric:
            log.derived.add(f"{metric} = {how}")
    if value.isna().all():
        log.missing.add(metric)
    return value


def _fill_gaps(value: pd.Series, candidates: list[tuple[str, pd.Series | None]]
               ) -> tuple[pd.Series, list[tuple[str, pd.Series]]]:
    """``value`` with each missing entry taken from the first candidate that has it,
    and the candidates that filled any, in order, each with the entries it filled."""
    used = []
    for how, candidate in candidates:
        if candidate is None:
            continue
        fills = value.isna() & candidate.notna()
        if fills.any():
            value = value.where(~fills, candidate)
            used.append((how, fills))
    return value, used


def bytes_values(raw: pd.DataFrame, level: str, metric: str, time_ns: pd.Series,
                 log: Derivation) -> pd.Series:
    """Bytes at one level: the bytes metric, else sector counts × 32 (``metrics.BYTES_FROM_SECTORS``)."""
    quiet = Derivation()
    value = metric_values(raw, metric, time_ns, quiet)
    for terms in m.BYTES_FROM_SECTORS[level]:
        if not value.isna().any() or not all(term in raw for term in terms):
            continue
        sectors = sum(raw[term].astype(float) for term in terms)
        fills = value.isna() & sectors.notna()
        if fills.any():
            value = value.where(~fills, sectors * m.SECTOR_BYTES)
            log.derived.add(f"{metric} = {m.SECTOR_BYTES} × " + " + ".join(terms))
    log.derived |= quiet.derived
    log.respelled |= quiet.respelled
    if value.isna().all():
        log.missing.add(metric)
    return value


def time_values(raw: pd.DataFrame, log: Derivation) -> tuple[pd.Series, pd.Series]:
    """Each launch's duration in ns and where it came from (``metrics.TIME`` first,
    then elapsed cycles / clock, then gpu__time_active)."""
    value = pd.Series(np.nan, index=raw.index)
    source = pd.Series("", index=raw.index, dtype=object)
    candidates: list[tuple[str, pd.Series | None]] = [(m.TIME, _column(raw, m.TIME))]
    for cycles, clock in m.TIME_FROM_CYCLES:
        c, f = _column(raw, cycles), _column(raw, clock)
        if c is not None and f is not None:
            candidates.append((f"derived: {cycles} / {clock}", c / f.where(f > 0) * 1e9))
    candidates += [(f"derived: {name}", _column(raw, name)) for name in m.TIME_ACTIVE]
    value, used = _fill_gaps(value, candidates)
    for how, fills in used:
        source = source.where(~fills, how)
        log.time_sources.add(how)
    if value.isna().all():
        log.missing.add(m.TIME)
    return value, source


def kernel_rows(raw: pd.DataFrame, cc: str, log: Derivation,
                fp16_rule: str = m.DEFAULT_FP16_RULE) -> pd.DataFrame:
    """The kernel-table columns for launches of one architecture ("" when unknown:
    its Tensor Core FLOPs are left blank, never guessed)."""
    arch = m.architecture_for(cc) if cc else None
    if arch is None:
        log.unknown_arch = True
    out = pd.DataFrame(index=raw.index)
    time_ns, out["time_source"] = time_values(raw, log)
    out["time_s"] = time_ns * 1e-9

    for precision, terms in m.cuda_core_terms(fp16_rule).items():
        total = pd.Series(0.0, index=raw.index)
        for metric, factor in terms:
            total = total + factor * metric_values(raw, metric, time_ns, log)
        out[f"flops_{precision}"] = total
    hfma_metric, hfma_factor = m.cuda_core_terms(fp16_rule)["fp16"][-1]
    hfma = metric_values(raw, hfma_metric, time_ns, log)
    out["register_moves"], out["flops_fp16"] = without_register_moves(raw, out["flops_fp16"], hfma,
                                                                       hfma_factor)
    tensor_by_pipeline: dict[str, pd.Series] = {}
    for term in arch.tensor if arch else ():
        value = term.factor * metric_values(raw, term.metric, time_ns, log)
        previous = tensor_by_pipeline.get(term.pipeline)
        tensor_by_pipeline[term.pipeline] = value if previous is None else previous + value
    unknown: float | pd.Series = 0.0
    if arch is None:
        # Without an architecture the FLOPs per Tensor instruction are unknown, but a
        # launch that issued no instruction to the Tensor pipe did no Tensor work on
        # any GPU [NCU: inst_executed_pipe_tensor]: its Tensor FLOPs are known to be 0.
        issued = metric_values(raw, m.TENSOR_PIPE_INSTRUCTIONS, time_ns, Derivation())
        unknown = pd.Series(np.where(issued == 0, 0.0, np.nan), index=raw.index)
    for pipeline in FLOAT_PIPELINES:
        if pipeline.startswith("tensor_"):
            out[flop_column(pipeline)] = tensor_by_pipeline.get(pipeline, unknown)
    out["ops_tensor_int8"] = tensor_by_pipeline.get("tensor_int8", unknown)
    for level, metric in m.BYTES.items():
        out[f"bytes_{level}"] = bytes_values(raw, level, metric, time_ns, log)
    out["sm_clock_hz"] = raw[m.SM_CLOCK].astype(float) if m.SM_CLOCK in raw else np.nan
    return out


def without_register_moves(raw: pd.DataFrame, flops_fp16: pd.Series, hfma: pd.Series,
                           hfma_factor: float) -> tuple[pd.Series, pd.Series]:
    """HFMA2 register moves discarded, and the FP16 FLOPs without them.

    Each move was counted by ncu's hfma counter, so it carries ``hfma_factor``, the
    hfma weight of the FP16 rule in use (``metrics.FP16_RULES``). Moves are capped at
    ``hfma``, that counter (they come from another replay pass); launches without
    instruction-level data keep their FP16 FLOPs and NaN moves.
    """
    if m.REGISTER_MOVES not in raw:
        return pd.Series(np.nan, index=raw.index), flops_fp16
    moves = np.minimum(raw[m.REGISTER_MOVES].astype(float), hfma)
    return moves, flops_fp16 - (hfma_factor * moves).fillna(0.0)


def register_move_notes(kernels: pd.DataFrame) -> list[str]:
    """What the loaded run says about HFMA2 register moves, for the notes."""
    moves = kernels["register_moves"]
    known = moves.notna()
    notes = []
    if known.any():
        notes.append(
            f"register moves: {moves.sum():,.0f} HFMA2 register moves (HFMA2 with a zero "
            f"multiplicand, found in the report's SASS with ncu's SourceCounters counts) were "
            f"taken out of the FP16 FLOPs of {int((moves > 0).sum())} of {int(known.sum())} "
            "launches with instruction-level data")
    unknown_fp16 = ~known & (kernels["flops_fp16"].fillna(0.0) > 0)
    if unknown_fp16.any():
        notes.append(
            f"{int(unknown_fp16.sum())} launches with FP16 CUDA-core FLOPs have no instruction-level "
            "data, so their HFMA2 register moves are still counted as FP16 FMAs: profile with "
            "ncu's SourceCounters section (--section SourceCounters) to take them out")
    return notes


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
    # Zero-AI when both the CUDA-core counts and the Tensor Core counts were collected
    # and none shows work; any known work makes it False. A launch whose Tensor Core
    # (or CUDA-core) counters are all missing is unknown, never guessed: a Tensor Core
    # kernel profiled without Tensor counters is not zero-AI.
    tensor = [c for c in flop_columns if "tensor" in c] + ["ops_tensor_int8"]
    cores = [c for c in flop_columns if c not in tensor]
    work = table[cores + tensor]
    did_work = (work.fillna(0.0) > 0).any(axis=1)
    both_known = table[cores].notna().any(axis=1) & table[tensor].notna().any(axis=1)
    zero = np.where(did_work, False, np.where(both_known, True, pd.NA))
    table["zero_ai"] = pd.Series(zero, index=table.index, dtype="boolean")
    table["fp16_approximate"] = table["flops_fp16"].fillna(0.0) > 0
    return table


def build_kernel_table(raw: pd.DataFrame, fp16_rule: str = m.DEFAULT_FP16_RULE
                       ) -> tuple[pd.DataFrame, Derivation]:
    """The kernel table for the launches in ``raw`` (one or more reports' rows,
    with the identity columns of ``rooftui.ingest.report`` plus ``report`` and ``id``)."""
    log = Derivation()
    parts = [kernel_rows(group, "" if pd.isna(cc) else str(cc), log, fp16_rule)
             for cc, group in raw.groupby("cc", sort=False, dropna=False)]
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
        "launches": pd.to_numeric(raw.get("launches", pd.Series(1, index=raw.index)),
                                  errors="coerce").fillna(1).astype(int),
        "time_source": work.pop("time_source") if "time_source" in work else "",
    })
    table = add_derived(pd.concat([identity, work], axis=1))
    # Without an architecture the Tensor FLOPs are unknown, so a launch with no
    # CUDA-core work may still have done Tensor work: neither zero-AI nor "none".
    undecided = (table["cc"] == "") & (table["pipeline"] == "none") & table["flops_tensor"].isna()
    table.loc[undecided, "zero_ai"] = pd.NA
    table.loc[undecided, "pipeline"] = "unknown"
    return table.reset_index(drop=True), log
