"""Raw ncu metrics -> the kernel table (columns in ``rooftui.model.columns``).

Every formula comes from ``rooftui.model.metrics``; this module only applies them,
derives counts a report stores as rates, and says what it could not compute.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rooftui.model import instruction_columns
from rooftui.model import metrics as m
from rooftui.model.byte_sources import L2_COUNTED_TWICE, PREFERRED_BYTE_SOURCES, TWO_L2_PARTITIONS
from rooftui.model.columns import (
    CUDA_CORE_PIPELINES,
    FLOAT_PIPELINES,
    KNOWN_ZERO,
    LEVEL_LABELS,
    LEVELS,
    MEASURED,
    NOT_APPLICABLE,
    NOT_COLLECTED,
    OPTIONAL_LEVELS,
    PIPELINE_LABELS,
    STATE_ORDER,
    TENSOR_PIPELINES,
    UNCOUNTED,
    WORK_COLUMNS,
    byte_source_column,
    flop_column,
    state_column,
)
from rooftui.model.flop_caps import CAPPED, cap_column, flop_caps
from rooftui.model.frames import map_unique
from rooftui.model.names import short_name
from rooftui.model.shared_memory import TMA_LOADS, l1_bypassed


@dataclass
class Derivation:
    """What a report lacked: metrics derived from rates or other spellings, metrics
    missing outright, how time was obtained, and whether the architecture was unknown."""

    derived: set[str] = field(default_factory=set)
    respelled: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)
    time_sources: set[str] = field(default_factory=set)
    byte_sources: set[str] = field(default_factory=set)  # levels' bytes not from their first source
    # launches on a GPU with two L2 partitions whose L2 bytes count far-partition lookups twice
    l2_counted_twice: int = 0
    # launches (sm_80 on) whose Tensor FLOPs are blank though pipe_tensor issued instructions
    tensor_issued_uncounted: int = 0
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
        unit = m.unit_of(name)
        per_cycle = _column(raw, f"{name}.per_cycle_elapsed")
        if per_cycle is not None:
            for cycles_name in dict.fromkeys(
                (f"{unit}__cycles_elapsed.avg", m.SM_CYCLES if unit in ("sm", "smsp", "l1tex") else "")
            ):
                cycles = _column(raw, cycles_name) if cycles_name else None
                if cycles is not None:
                    candidates.append((f"{name}.per_cycle_elapsed × {cycles_name}", per_cycle * cycles))
            clock = _column(raw, m.UNIT_CLOCKS.get(unit, f"{unit}__cycles_elapsed.avg.per_second"))
            if clock is not None:
                candidates.append(
                    (f"{name}.per_cycle_elapsed × clock × duration", per_cycle * clock * seconds)
                )
        per_second = _column(raw, f"{name}.per_second")
        if per_second is not None:
            candidates.append((f"{name}.per_second × duration", per_second * seconds))
    value, used = _fill_gaps(value, candidates)
    for how, fills in used:
        if how not in names:  # from a rate: a count again, so a whole number (not 1048575.9999)
            value = value.where(~fills, value.round())
    for how, _ in used:
        if how in names[1:]:
            log.respelled.add(f"{metric} = {how}")
        elif how != metric:
            log.derived.add(f"{metric} = {how}")
    if value.isna().all():
        log.missing.add(metric)
    return value


def _fill_gaps(
    value: pd.Series, candidates: list[tuple[str, pd.Series | None]]
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


def bytes_values(
    raw: pd.DataFrame, level: str, time_ns: pd.Series, log: Derivation
) -> tuple[pd.Series, pd.Series]:
    """Bytes at one level and what they count, per launch: the first source of
    ``byte_sources.PREFERRED_BYTE_SOURCES[level]`` then ``metrics.BYTE_SOURCES[level]`` that
    gives the launch a value (its terms read or derived from rates like any count); ""
    where none does."""
    value = pd.Series(np.nan, index=raw.index)
    what = pd.Series("", index=raw.index, dtype=object)
    preferred = PREFERRED_BYTE_SOURCES.get(level, ())
    for i, source in enumerate(preferred + m.BYTE_SOURCES[level], start=-len(preferred)):
        if not value.isna().any():
            break
        quiet = Derivation()
        terms = [metric_values(raw, term, time_ns, quiet) for term in source.terms]
        found = source.scale * sum(terms[1:], terms[0])
        fills = value.isna() & found.notna()
        if not fills.any():
            continue
        value = value.where(~fills, found)
        what = what.where(~fills, source.what)
        log.derived |= quiet.derived
        log.respelled |= quiet.respelled
        if i > 0 and source.same:
            scale = f"{source.scale:g} × " if source.scale != 1 else ""
            log.derived.add(f"{m.BYTE_SOURCES[level][0].terms[0]} = {scale}" + " + ".join(source.terms))
        elif i > 0:
            log.byte_sources.add(f"{LEVEL_LABELS[level]}: {source.what}")
    if value.isna().all() and level not in OPTIONAL_LEVELS:
        log.missing.add(m.BYTE_SOURCES[level][0].terms[0])
    return value, what


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


def _any(raw: pd.DataFrame, names: tuple[str, ...] | list[str], test: str) -> pd.Series:
    """Per launch: one of the counters ``names`` is in the report and is 0 (``test``
    "zero") or above 0 ("positive")."""
    found = pd.Series(False, index=raw.index)
    for name in names:
        if name in raw:
            values = raw[name].astype(float)
            found |= (values == 0) if test == "zero" else (values > 0)
    return found


def kernel_rows(
    raw: pd.DataFrame, cc: str, log: Derivation, fp16_rule: str = m.DEFAULT_FP16_RULE
) -> pd.DataFrame:
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
    out["register_moves"], out["flops_fp16"] = without_register_moves(
        raw, out["flops_fp16"], hfma, hfma_factor
    )
    for precision in CUDA_CORE_PIPELINES:
        column = flop_column(precision)
        zero = _any(raw, m.WORK_EVIDENCE[precision], "zero")
        known_zero = out[column].isna() & zero
        out[column] = out[column].where(~known_zero, 0.0)
        out[state_column(column)] = np.where(
            known_zero, KNOWN_ZERO, np.where(out[column].notna(), MEASURED, NOT_COLLECTED)
        )

    tensor_by_pipeline: dict[str, pd.Series] = {}
    for term in arch.tensor if arch else ():
        value = term.factor * metric_values(raw, term.metric, time_ns, log)
        previous = tensor_by_pipeline.get(term.pipeline)
        tensor_by_pipeline[term.pipeline] = value if previous is None else previous + value
    # A launch that issued no instruction to the Tensor pipe did no Tensor work on any GPU
    # [NCU: inst_executed_pipe_tensor]: where its Tensor FLOPs were not counted they are
    # known to be 0. One that did (or kept a Tensor pipe busy) did Tensor work, whatever
    # the counters that would count it say by their absence.
    issued = metric_values(raw, m.TENSOR_PIPE_INSTRUCTIONS, time_ns, Derivation())
    pipe_busy = _any(raw, m.TENSOR_PIPE_ACTIVITY, "positive") | (issued > 0)
    hmma, hfma2 = (_column(raw, name) for name in m.TENSOR_HMMA_LESS_HFMA2)
    active = _any(raw, m.TENSOR_MMA_ACTIVITY, "positive")
    if hmma is not None and hfma2 is not None:
        active |= (hmma - hfma2) > 0
    if arch is not None and arch.name in ("Volta", "Turing"):
        active |= pipe_busy  # no HFMA2 on the Tensor pipe there (metrics.TENSOR_ACTIVITY)
    # Zero proved by counts only (a percentage printed 0.000000 may be rounded).
    no_tensor = ((issued == 0) | _any(raw, m.TENSOR_PIPE_ZERO_PROOF, "zero")) & ~active
    # Tensor work some counter did count explains the activity: the pipelines left blank
    # beside it are not collected, not "uncounted".
    counted = sum((v.fillna(0.0) for v in tensor_by_pipeline.values()), pd.Series(0.0, index=raw.index)) > 0
    active &= ~counted
    applicable = set(tensor_by_pipeline) if arch else {*TENSOR_PIPELINES, "tensor_int8"}
    for pipeline in (*TENSOR_PIPELINES, "tensor_int8"):
        column = flop_column(pipeline)
        if pipeline not in applicable:
            out[column] = np.nan
            out[state_column(column)] = NOT_APPLICABLE
            continue
        value = tensor_by_pipeline.get(pipeline, pd.Series(np.nan, index=raw.index))
        known_zero = value.isna() & no_tensor
        out[column] = value.where(~known_zero, 0.0)
        out[state_column(column)] = np.where(
            known_zero,
            KNOWN_ZERO,
            np.where(value.notna(), MEASURED, np.where(active, UNCOUNTED, NOT_COLLECTED)),
        )
    blank = (
        pd.concat(
            [
                pd.Series(out[state_column(flop_column(p))] == NOT_COLLECTED, index=raw.index)
                for p in applicable
            ],
            axis=1,
        ).any(axis=1)
        if applicable
        else False
    )
    log.tensor_issued_uncounted += int((pipe_busy & ~active & ~counted & blank).sum())
    for column, cap in flop_caps(raw, out, arch, fp16_rule, cc).items():
        if cap.notna().any():  # only where the report caps something: no all-blank columns
            out[column] = cap
    for level in LEVELS:
        out[f"bytes_{level}"], out[byte_source_column(level)] = bytes_values(raw, level, time_ns, log)
    if cc in TWO_L2_PARTITIONS:
        log.l2_counted_twice += int(out[byte_source_column("l2")].isin(L2_COUNTED_TWICE).sum())
    out["bytes_tma"] = metric_values(raw, TMA_LOADS, time_ns, Derivation())
    out["sm_clock_hz"] = raw[m.SM_CLOCK].astype(float) if m.SM_CLOCK in raw else np.nan
    quiet = Derivation()  # the instruction roofline's counters are optional: none is "missing"
    counts = instruction_columns.count_columns(raw, lambda name: metric_values(raw, name, time_ns, quiet))
    out = out.join(counts)
    log.derived |= quiet.derived
    return out


def without_register_moves(
    raw: pd.DataFrame, flops_fp16: pd.Series, hfma: pd.Series, hfma_factor: float
) -> tuple[pd.Series, pd.Series]:
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
            "launches with instruction-level data"
        )
    unknown_fp16 = ~known & (kernels["flops_fp16"].fillna(0.0) > 0)
    if unknown_fp16.any():
        notes.append(
            f"{int(unknown_fp16.sum())} launches with FP16 CUDA-core FLOPs have no instruction-level "
            "data, so their HFMA2 register moves are still counted as FP16 FMAs: profile with "
            "ncu's SourceCounters section (--section SourceCounters) to take them out"
        )
    return notes


def dominant_pipeline(table: pd.DataFrame) -> pd.Series:
    """The pipeline with the most FLOPs (INT8 Tensor OPs count too); "tensor_uncounted"
    when Tensor work was seen but not counted (which pipeline leads is then unknown);
    "none" without any work, known in full; "unknown" when the report has none of the
    counters, or the known ones are 0 but others were not collected."""
    work = table[list(WORK_COLUMNS)]
    known = work.notna().any(axis=1)
    filled = work.fillna(0.0)
    names = np.array([*FLOAT_PIPELINES, "tensor_int8"], dtype=object)
    partial = flops_partial(table)
    did_work = filled.sum(axis=1) > 0
    pipeline = np.where(
        did_work, names[filled.to_numpy().argmax(axis=1)], np.where(partial, "unknown", "none")
    )
    pipeline = np.where(known, pipeline, "unknown")
    return pd.Series(np.where(uncounted_tensor(table), "tensor_uncounted", pipeline), index=table.index)


def _states(table: pd.DataFrame, column: str) -> pd.Series:
    name = state_column(column)
    if name in table:
        return table[name]
    # A table built before states existed (or by hand): NaN is not collected.
    return pd.Series(np.where(table[column].isna(), NOT_COLLECTED, MEASURED), index=table.index)


def uncounted_tensor(table: pd.DataFrame) -> pd.Series:
    """Per row: Tensor work present, amount unknown."""
    tensor = [flop_column(p) for p in (*TENSOR_PIPELINES, "tensor_int8")]
    return pd.concat([_states(table, c) == UNCOUNTED for c in tensor], axis=1).any(axis=1)


def flops_partial(table: pd.DataFrame) -> pd.Series:
    """Per row: the FLOP total adds only some of the applicable terms (others not collected,
    or Tensor work not countable), while at least one is known."""
    missing = pd.concat(
        [_states(table, c).isin((NOT_COLLECTED, UNCOUNTED)) for c in WORK_COLUMNS], axis=1
    ).any(axis=1)
    return missing & table[list(WORK_COLUMNS)].notna().any(axis=1)


def combine_states(states: pd.Series) -> str:
    """The state of a sum over launches: the least-known of theirs (``STATE_ORDER``)."""
    present = set(states)
    return next((state for state in STATE_ORDER if state in present), NOT_COLLECTED)


def add_derived(table: pd.DataFrame) -> pd.DataFrame:
    """Totals, intensities, rate, pipeline and zero-AI from the per-pipeline columns.

    A total adds the known terms (measured or known 0); not-applicable terms are no part
    of it; ``flops_partial`` says some applicable term is missing (``partial_note`` says
    which and how to collect it)."""
    flop_columns = [flop_column(p) for p in FLOAT_PIPELINES]
    table["flops_tensor"] = table[[c for c in flop_columns if "tensor" in c]].sum(axis=1, min_count=1)
    flops = table[flop_columns].sum(axis=1, min_count=1)
    table["flops"] = flops
    table["flops_partial"] = flops_partial(table) & flops.notna()
    for level in LEVELS:
        moved = table[f"bytes_{level}"]
        table[f"ai_{level}"] = (flops / moved).where(moved > 0)
    table["flop_rate"] = (flops / table["time_s"]).where(table["time_s"] > 0)
    instruction_columns.add_ratios(table)
    nan = pd.Series(np.nan, index=table.index)
    table["l1_bypassed"] = l1_bypassed(
        table["bytes_l1"], table["bytes_l2"], table.get("bytes_tma", nan), table["flops_tensor"]
    )

    # Zero-AI when both the CUDA-core counts and the Tensor Core counts were collected
    # (or proved 0) and none shows work; any known work, or Tensor work seen but not
    # counted, makes it False. A launch whose Tensor Core (or CUDA-core) counters are all
    # missing is unknown, never guessed: a Tensor Core kernel profiled without Tensor
    # counters is not zero-AI. A pipeline the GPU lacks is no evidence either way.
    tensor = [c for c in flop_columns if "tensor" in c] + ["ops_tensor_int8"]
    cores = [c for c in flop_columns if c not in tensor]
    work = table[cores + tensor]
    did_work = (work.fillna(0.0) > 0).any(axis=1) | uncounted_tensor(table)
    both_known = table[cores].notna().any(axis=1) & table[tensor].notna().any(axis=1)
    zero = np.where(did_work, False, np.where(both_known, True, pd.NA))
    table["zero_ai"] = pd.Series(zero, index=table.index, dtype="boolean")
    table["pipeline"] = dominant_pipeline(table)
    table.loc[table["zero_ai"].fillna(False).astype(bool), "pipeline"] = "none"
    table["fp16_approximate"] = table["flops_fp16"].fillna(0.0) > 0
    return table


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
        states = _states(kernels, column)[partial]
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


def build_kernel_table(
    raw: pd.DataFrame, fp16_rule: str = m.DEFAULT_FP16_RULE
) -> tuple[pd.DataFrame, Derivation]:
    """The kernel table for the launches in ``raw`` (one or more reports' rows,
    with the identity columns of ``rooftui.ingest.report`` plus ``report`` and ``id``)."""
    log = Derivation()
    parts = [
        kernel_rows(group, "" if pd.isna(cc) else str(cc), log, fp16_rule)
        for cc, group in raw.groupby("cc", sort=False, dropna=False)
    ]
    work = pd.concat(parts).reindex(raw.index) if parts else pd.DataFrame(index=raw.index)
    identity = pd.DataFrame(
        {
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
            "launches": pd.to_numeric(raw.get("launches", pd.Series(1, index=raw.index)), errors="coerce")
            .fillna(1)
            .astype(int),
            "time_source": work.pop("time_source") if "time_source" in work else "",
        }
    )
    table = add_derived(pd.concat([identity, work], axis=1))
    return table.reset_index(drop=True), log
