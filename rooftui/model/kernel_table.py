"""Raw ncu metrics -> the kernel table (columns in ``rooftui.model.columns``).

Every formula comes from ``rooftui.model.metrics``; this module only applies them,
derives counts a report stores as rates, and says what it could not compute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from rooftui.model import instruction_columns, pipe_activity
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
    TENSOR_PIPELINES,
    UNCOUNTED,
    byte_source_column,
    flop_column,
    state_column,
)
from rooftui.model.flop_caps import flop_caps
from rooftui.model.flop_states import dominant_pipeline, flops_partial, uncounted_tensor
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


class Numbers:
    """A report's columns as float64 arrays (``astype(float)``), each converted once and
    read-only: a load reads some columns a dozen times (every metric's spellings and
    rates, the caps, the evidence of work), and each conversion of a column of a wide
    frame cost ~0.1 ms of pandas."""

    def __init__(self, raw: pd.DataFrame) -> None:
        self.frame = raw
        self._arrays: dict[str, np.ndarray] = {}

    def __contains__(self, name: object) -> bool:
        return name in self.frame

    def __len__(self) -> int:
        return len(self.frame)

    def __getitem__(self, name: str) -> np.ndarray:
        array = self._arrays.get(name)
        if array is None:
            array = self.frame[name].astype(float).to_numpy()
            array.flags.writeable = False  # shared by every reader of the column
            self._arrays[name] = array
        return array


def _numbers(raw: pd.DataFrame | Numbers) -> Numbers:
    return raw if isinstance(raw, Numbers) else Numbers(raw)


def _column(raw: Numbers, name: str) -> np.ndarray | None:
    return raw[name] if name in raw else None


# The kernel table is built from NumPy arrays, one per column, made into a DataFrame
# once: the same float64 arithmetic as on pandas Series, without pandas' ~50 µs per
# operation, which on the few launches of most reports was most of a load's time
# (benchmarks/results/2026-12-02-load-path.md; `benchmarks/load_path.py compare` checks
# that the tables are equal, value for value).


def metric_values(raw: pd.DataFrame, metric: str, time_ns: pd.Series, log: Derivation) -> pd.Series:
    """A count metric, read directly or derived; NaN where nothing gives it.

    Tried per launch, first that gives a value: the metric under each of its
    spellings (``metrics.SPELLINGS``), then from the rates ncu's sections store
    [NCU]: ``X.sum.per_cycle_elapsed`` × the unit's ``cycles_elapsed.avg`` (the SM's
    for smsp__/l1tex__ counters: one clock, equal cycle counts on every known-answer
    launch), or × clock × duration;
    ``X.sum.per_second`` × duration.
    """
    return pd.Series(_metric_array(Numbers(raw), metric, time_ns.to_numpy(), log), index=raw.index)


def _metric_array(raw: Numbers, metric: str, time_ns: np.ndarray, log: Derivation) -> np.ndarray:
    """``metric_values`` as an array."""
    names = m.spellings(metric)
    value, used = _fill_gaps(np.full(len(raw), np.nan), _metric_candidates(raw, names, time_ns))
    for how, fills in used:
        if how not in names:  # from a rate: a count again, so a whole number (not 1048575.9999)
            value[fills] = np.round(value[fills])
    for how, _ in used:
        if how in names[1:]:
            log.respelled.add(f"{metric} = {how}")
        elif how != metric:
            log.derived.add(f"{metric} = {how}")
    if np.isnan(value).all():
        log.missing.add(metric)
    return value


def _metric_candidates(
    raw: Numbers, names: tuple[str, ...], time_ns: np.ndarray
) -> Iterator[tuple[str, Callable[[], np.ndarray | None]]]:
    """What may give ``names``' count, in the order tried (``metric_values``), each
    computed only when asked for (most reports hold the count itself)."""
    for name in names:
        yield name, partial(_column, raw, name)
    seconds = time_ns * 1e-9
    for name in names:
        unit = m.unit_of(name)
        rate = f"{name}.per_cycle_elapsed"
        if rate in raw:
            for cycles_name in dict.fromkeys(
                (f"{unit}__cycles_elapsed.avg", m.SM_CYCLES if unit in ("sm", "smsp", "l1tex") else "")
            ):
                if cycles_name and cycles_name in raw:
                    yield f"{rate} × {cycles_name}", partial(_product, raw, rate, cycles_name)
            clock = m.UNIT_CLOCKS.get(unit, f"{unit}__cycles_elapsed.avg.per_second")
            if clock in raw:
                yield f"{rate} × clock × duration", partial(_product, raw, rate, clock, seconds)
        if f"{name}.per_second" in raw:
            yield f"{name}.per_second × duration", partial(_product, raw, f"{name}.per_second", None, seconds)


def _product(raw: Numbers, first: str, second: str | None, seconds: np.ndarray | None = None) -> np.ndarray:
    """Column ``first`` × column ``second`` (if any) × ``seconds`` (if given), in that order."""
    value = raw[first]
    if second is not None:
        value = value * raw[second]
    return value if seconds is None else value * seconds


def _fill_gaps(
    value: np.ndarray, candidates: Iterable[tuple[str, Callable[[], np.ndarray | None]]]
) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """``value`` with each missing entry taken from the first candidate that has it,
    and the candidates that filled any, in order, each with the entries it filled. A
    candidate is computed only while entries are missing."""
    used = []
    for how, make in candidates:
        gaps = np.isnan(value)
        if not gaps.any():
            break
        candidate = make()
        if candidate is None:
            continue
        fills = gaps & ~np.isnan(candidate)
        if fills.any():
            value = np.where(fills, candidate, value)
            used.append((how, fills))
    return value, used


def bytes_values(
    raw: pd.DataFrame, level: str, time_ns: pd.Series, log: Derivation
) -> tuple[pd.Series, pd.Series]:
    """Bytes at one level and what they count, per launch: the first source of
    ``byte_sources.PREFERRED_BYTE_SOURCES[level]`` then ``metrics.BYTE_SOURCES[level]`` that
    gives the launch a value (its terms read or derived from rates like any count); ""
    where none does."""
    value, what = _bytes_arrays(Numbers(raw), level, time_ns.to_numpy(), log)
    return pd.Series(value, index=raw.index), pd.Series(what, index=raw.index, dtype=object)


def _bytes_arrays(
    raw: Numbers, level: str, time_ns: np.ndarray, log: Derivation
) -> tuple[np.ndarray, np.ndarray]:
    """``bytes_values`` as arrays."""
    value = np.full(len(raw), np.nan)
    what = np.full(len(raw), "", dtype=object)
    preferred = PREFERRED_BYTE_SOURCES.get(level, ())
    for i, source in enumerate(preferred + m.BYTE_SOURCES[level], start=-len(preferred)):
        if not np.isnan(value).any():
            break
        quiet = Derivation()
        terms = [_metric_array(raw, term, time_ns, quiet) for term in source.terms]
        found = source.scale * sum(terms[1:], terms[0])
        fills = np.isnan(value) & ~np.isnan(found)
        if not fills.any():
            continue
        value = np.where(fills, found, value)
        what[fills] = source.what
        log.derived |= quiet.derived
        log.respelled |= quiet.respelled
        if i > 0 and source.same:
            scale = f"{source.scale:g} × " if source.scale != 1 else ""
            log.derived.add(f"{m.BYTE_SOURCES[level][0].terms[0]} = {scale}" + " + ".join(source.terms))
        elif i > 0:
            log.byte_sources.add(f"{LEVEL_LABELS[level]}: {source.what}")
    if np.isnan(value).all() and level not in OPTIONAL_LEVELS:
        log.missing.add(m.BYTE_SOURCES[level][0].terms[0])
    return value, what


def time_values(raw: pd.DataFrame, log: Derivation) -> tuple[pd.Series, pd.Series]:
    """Each launch's duration in ns and where it came from (``metrics.TIME`` first,
    then elapsed cycles / clock, then gpu__time_active)."""
    value, source = _time_arrays(Numbers(raw), log)
    return pd.Series(value, index=raw.index), pd.Series(source, index=raw.index, dtype=object)


def _time_arrays(raw: Numbers, log: Derivation) -> tuple[np.ndarray, np.ndarray]:
    """``time_values`` as arrays."""
    source = np.full(len(raw), "", dtype=object)
    candidates: list[tuple[str, Callable[[], np.ndarray | None]]] = [(m.TIME, partial(_column, raw, m.TIME))]
    for cycles, clock in m.TIME_FROM_CYCLES:
        if cycles in raw and clock in raw:
            how = f"derived: {cycles} / {clock}"
            candidates.append((how, partial(_cycles_over_clock, raw, cycles, clock)))
    candidates += [(f"derived: {name}", partial(_column, raw, name)) for name in m.TIME_ACTIVE]
    value, used = _fill_gaps(np.full(len(raw), np.nan), candidates)
    for how, fills in used:
        source[fills] = how
        log.time_sources.add(how)
    if np.isnan(value).all():
        log.missing.add(m.TIME)
    return value, source


def _cycles_over_clock(raw: Numbers, cycles: str, clock: str) -> np.ndarray:
    """Elapsed cycles / clock in ns; NaN where the clock is not above 0."""
    per_second = raw[clock]
    return raw[cycles] / np.where(per_second > 0, per_second, np.nan) * 1e9


def _any(raw: Numbers, names: tuple[str, ...] | list[str], test: str) -> np.ndarray:
    """Per launch: one of the counters ``names`` is in the report and is 0 (``test``
    "zero") or above 0 ("positive")."""
    found = np.zeros(len(raw), dtype=bool)
    for name in names:
        if name in raw:
            values = raw[name]
            found |= (values == 0) if test == "zero" else (values > 0)
    return found


def _text(values: np.ndarray, raw: Numbers) -> pd.Series:
    """A column of text kept as Python strings (dtype object), as it always was."""
    return pd.Series(values, index=raw.frame.index, dtype=object)


def _nan_as_0(value: np.ndarray) -> np.ndarray:
    """``fillna(0.0)``: NaN becomes 0, infinities stay."""
    return np.where(np.isnan(value), 0.0, value)


def _known_where(value: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``value`` with 0 where ``known`` says the count is known to be 0."""
    return np.where(known, 0.0, value)


def kernel_rows(
    raw: pd.DataFrame, cc: str, log: Derivation, fp16_rule: str = m.DEFAULT_FP16_RULE
) -> pd.DataFrame:
    """The kernel-table columns for launches of one architecture ("" when unknown:
    its Tensor Core FLOPs are left blank, never guessed)."""
    columns = Numbers(raw)  # each column converted once
    arch = m.architecture_for(cc) if cc else None
    if arch is None:
        log.unknown_arch = True
    rows = len(raw)
    out: dict[str, Any] = {}
    time_ns, time_source = _time_arrays(columns, log)
    out["time_source"] = _text(time_source, columns)
    out["time_s"] = time_ns * 1e-9

    for precision, terms in m.cuda_core_terms(fp16_rule).items():
        total = np.zeros(rows)
        for metric, factor in terms:
            total = total + factor * _metric_array(columns, metric, time_ns, log)
        out[f"flops_{precision}"] = total
    hfma_metric, hfma_factor = m.cuda_core_terms(fp16_rule)["fp16"][-1]
    hfma = _metric_array(columns, hfma_metric, time_ns, log)
    out["register_moves"], out["flops_fp16"] = _without_register_moves(
        columns, out["flops_fp16"], hfma, hfma_factor
    )
    for precision in CUDA_CORE_PIPELINES:
        column = flop_column(precision)
        zero = _any(columns, m.WORK_EVIDENCE[precision], "zero")
        known_zero = np.isnan(out[column]) & zero
        out[column] = _known_where(out[column], known_zero)
        out[state_column(column)] = np.where(
            known_zero, KNOWN_ZERO, np.where(~np.isnan(out[column]), MEASURED, NOT_COLLECTED)
        )

    tensor_by_pipeline: dict[str, np.ndarray] = {}
    for term in arch.tensor if arch else ():
        value = term.factor * _metric_array(columns, term.metric, time_ns, log)
        previous = tensor_by_pipeline.get(term.pipeline)
        tensor_by_pipeline[term.pipeline] = value if previous is None else previous + value
    # A launch that issued no instruction to the Tensor pipe did no Tensor work on any GPU
    # [NCU: inst_executed_pipe_tensor]: where its Tensor FLOPs were not counted they are
    # known to be 0. One that did (or kept a Tensor pipe busy) did Tensor work, whatever
    # the counters that would count it say by their absence.
    issued = _metric_array(columns, m.TENSOR_PIPE_INSTRUCTIONS, time_ns, Derivation())
    pipe_busy = _any(columns, pipe_activity.TENSOR_PIPE_ACTIVITY, "positive") | (issued > 0)
    hmma, hfma2 = (_column(columns, name) for name in pipe_activity.TENSOR_HMMA_LESS_HFMA2)
    active = _any(columns, pipe_activity.TENSOR_MMA_ACTIVITY, "positive")
    if hmma is not None and hfma2 is not None:
        active |= (hmma - hfma2) > 0
    if arch is not None and arch.name in ("Volta", "Turing"):
        active |= pipe_busy  # no HFMA2 on the Tensor pipe there (pipe_activity.TENSOR_ACTIVITY)
    # Zero proved by counts only (a percentage printed 0.000000 may be rounded).
    no_tensor = ((issued == 0) | _any(columns, pipe_activity.TENSOR_PIPE_ZERO_PROOF, "zero")) & ~active
    # Tensor work some counter did count explains the activity: the pipelines left blank
    # beside it are not collected, not "uncounted".
    counted = sum((_nan_as_0(v) for v in tensor_by_pipeline.values()), np.zeros(rows)) > 0
    active &= ~counted
    applicable = set(tensor_by_pipeline) if arch else {*TENSOR_PIPELINES, "tensor_int8"}
    for pipeline in (*TENSOR_PIPELINES, "tensor_int8"):
        column = flop_column(pipeline)
        if pipeline not in applicable:
            out[column] = np.nan
            out[state_column(column)] = NOT_APPLICABLE
            continue
        value = tensor_by_pipeline.get(pipeline, np.full(rows, np.nan))
        known_zero = np.isnan(value) & no_tensor
        out[column] = _known_where(value, known_zero)
        out[state_column(column)] = np.where(
            known_zero,
            KNOWN_ZERO,
            np.where(~np.isnan(value), MEASURED, np.where(active, UNCOUNTED, NOT_COLLECTED)),
        )
    blank = np.zeros(rows, dtype=bool)
    for pipeline in applicable:
        blank |= out[state_column(flop_column(pipeline))] == NOT_COLLECTED
    log.tensor_issued_uncounted += int((pipe_busy & ~active & ~counted & blank).sum())
    for column, cap in flop_caps(columns, out, arch, fp16_rule, cc).items():
        if not np.isnan(cap).all():  # only where the report caps something: no all-blank columns
            out[column] = cap
    for level in LEVELS:
        out[f"bytes_{level}"], what = _bytes_arrays(columns, level, time_ns, log)
        out[byte_source_column(level)] = _text(what, columns)
    if cc in TWO_L2_PARTITIONS:
        log.l2_counted_twice += int(np.isin(out[byte_source_column("l2")], list(L2_COUNTED_TWICE)).sum())
    out["bytes_tma"] = _metric_array(columns, TMA_LOADS, time_ns, Derivation())
    out["sm_clock_hz"] = columns[m.SM_CLOCK].copy() if m.SM_CLOCK in columns else np.nan
    quiet = Derivation()  # the instruction roofline's counters are optional: none is "missing"
    out.update(
        instruction_columns.count_columns(columns, lambda name: _metric_array(columns, name, time_ns, quiet))
    )
    log.derived |= quiet.derived
    return pd.DataFrame(out, index=raw.index)


def without_register_moves(
    raw: pd.DataFrame, flops_fp16: pd.Series, hfma: pd.Series, hfma_factor: float
) -> tuple[pd.Series, pd.Series]:
    """HFMA2 register moves discarded, and the FP16 FLOPs without them.

    Each move was counted by ncu's hfma counter, so it carries ``hfma_factor``, the
    hfma weight of the FP16 rule in use (``metrics.FP16_RULES``). Moves are capped at
    ``hfma``, that counter (they come from another replay pass); launches without
    instruction-level data keep their FP16 FLOPs and NaN moves.
    """
    moves, flops = _without_register_moves(raw, flops_fp16.to_numpy(), hfma.to_numpy(), hfma_factor)
    return pd.Series(moves, index=raw.index), pd.Series(flops, index=raw.index)


def _without_register_moves(
    raw: pd.DataFrame | Numbers, flops_fp16: np.ndarray, hfma: np.ndarray, hfma_factor: float
) -> tuple[np.ndarray, np.ndarray]:
    """``without_register_moves`` on arrays."""
    if m.REGISTER_MOVES not in raw:
        return np.full(len(raw), np.nan), flops_fp16
    moves = np.minimum(_numbers(raw)[m.REGISTER_MOVES], hfma)
    return moves, flops_fp16 - _nan_as_0(hfma_factor * moves)


def register_move_notes(kernels: pd.DataFrame) -> list[str]:
    """What the loaded run says about HFMA2 register moves, for the notes."""
    moves = kernels["register_moves"]
    known = moves.notna()
    notes = []
    if known.any():
        notes.append(
            f"register moves: {moves.sum():,.0f} HFMA2 register moves (HFMA2 with a zero "
            f"multiplicand, found in the report's SASS with ncu's per-instruction counts) were "
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


def add_derived(table: pd.DataFrame) -> pd.DataFrame:
    """Totals, intensities, rate, pipeline and zero-AI from the per-pipeline columns.

    A total adds the known terms (measured or known 0); not-applicable terms are no part
    of it; ``flops_partial`` says some applicable term is missing (``partial_note`` says
    which and how to collect it)."""
    flop_columns = [flop_column(p) for p in FLOAT_PIPELINES]
    table["flops_tensor"] = table[[c for c in flop_columns if "tensor" in c]].sum(axis=1, min_count=1)
    flops = table[flop_columns].sum(axis=1, min_count=1)
    table["flops"] = flops
    total = flops.to_numpy(dtype=float, na_value=np.nan)
    table["flops_partial"] = flops_partial(table).to_numpy() & ~np.isnan(total)
    with np.errstate(invalid="ignore", divide="ignore"):
        for level in LEVELS:
            moved = _floats(table, f"bytes_{level}")
            table[f"ai_{level}"] = np.where(moved > 0, total / moved, np.nan)
        time_s = _floats(table, "time_s")
        table["flop_rate"] = np.where(time_s > 0, total / time_s, np.nan)
    instruction_columns.add_ratios(table)
    bytes_tma = _floats(table, "bytes_tma") if "bytes_tma" in table else np.full(len(table), np.nan)
    table["l1_bypassed"] = l1_bypassed(
        _floats(table, "bytes_l1"), _floats(table, "bytes_l2"), bytes_tma, _floats(table, "flops_tensor")
    )

    # Zero-AI when both the CUDA-core counts and the Tensor Core counts were collected
    # (or proved 0) and none shows work; any known work, or Tensor work seen but not
    # counted, makes it False. A launch whose Tensor Core (or CUDA-core) counters are all
    # missing is unknown, never guessed: a Tensor Core kernel profiled without Tensor
    # counters is not zero-AI. A pipeline the GPU lacks is no evidence either way.
    tensor = [c for c in flop_columns if "tensor" in c] + ["ops_tensor_int8"]
    cores = [c for c in flop_columns if c not in tensor]
    did_work = uncounted_tensor(table).to_numpy(copy=True)
    core_known = np.zeros(len(table), dtype=bool)
    tensor_known = np.zeros(len(table), dtype=bool)
    for column in cores + tensor:
        values = _floats(table, column)
        did_work |= values > 0  # NaN: no work known
        if column in cores:
            core_known |= ~np.isnan(values)
        else:
            tensor_known |= ~np.isnan(values)
    zero = np.where(did_work, False, np.where(core_known & tensor_known, True, pd.NA))
    table["zero_ai"] = pd.Series(zero, index=table.index, dtype="boolean")
    table["pipeline"] = dominant_pipeline(table)
    table.loc[table["zero_ai"].fillna(False).astype(bool), "pipeline"] = "none"
    table["fp16_approximate"] = _floats(table, "flops_fp16") > 0  # NaN: not approximate
    return table


def _floats(table: pd.DataFrame, column: str) -> np.ndarray:
    return table[column].to_numpy(dtype=float, na_value=np.nan)


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
