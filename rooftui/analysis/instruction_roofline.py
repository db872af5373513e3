"""The instruction roofline (Ding & Williams, PMBS'19): its ceilings, which one binds
each kernel, and where a kernel stands against the memory walls.

Performance is warp instructions per second; intensity is warp instructions per
transaction at each level (``rooftui.model.instructions`` has the formulas). A level
can deliver at most its transaction rate × the kernel's intensity there; the issue
rate caps every level. The roof that gives the least is the one that binds, as in the
FLOP roofline (``rooftui.analysis.roofline``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rooftui.ingest.measured_ceilings import find_bundled
from rooftui.model import instructions as ins
from rooftui.model.ceilings import SOURCE_LABELS, CeilingSet
from rooftui.model.columns import LEVEL_LABELS

if TYPE_CHECKING:
    from rooftui.analysis import Run

SHARED_WAVEFRONT_BYTES = ins.SHARED_WAVEFRONT_BYTES
ISSUE = ins.ISSUE  # the name of the issue-rate roof in ``instruction_bound``
InstructionRoof = ins.InstructionRoof


@dataclass(frozen=True)
class InstructionCeilings:
    """The instruction roofline's roofs for one device; a roof that cannot be had is absent
    and ``missing`` says why."""

    issue: InstructionRoof | None
    levels: dict[str, InstructionRoof]  # "l1", "l2", "hbm"
    shared: InstructionRoof | None
    missing: tuple[str, ...] = field(default=())

    def roofs(self) -> list[InstructionRoof]:
        found = [self.issue, *self.levels.values(), self.shared]
        return [roof for roof in found if roof is not None]


def _transaction_roof(level: str, ceilings: CeilingSet) -> InstructionRoof | None:
    """The level's transaction rate the ceilings file saved, else derived at load from the
    run's bandwidth ceiling for that level."""
    saved = next((roof for roof in ceilings.instruction_roofs if roof.name == level), None)
    if saved is not None:
        return saved
    ceiling = ceilings.bandwidth(level)
    if ceiling is None:
        return None
    where = SOURCE_LABELS.get(ceiling.source, ceiling.source or ceiling.method)
    roof = ins.transaction_roof(level, ceiling.value, f"{ceiling.name} bandwidth ({where})", {})
    return replace(roof, source=f"{roof.source}; derived at load (the ceilings saved none)")


def issue_roof(kernels: pd.DataFrame, ceilings: CeilingSet) -> tuple[InstructionRoof | None, str]:
    """The warp-instruction issue rate: the one the ceilings file saved (measured by
    ``rooftui measure``), else the report's own peak per cycle
    (``smsp__inst_executed.sum.peak_sustained``) × the SM clock the kernels ran at, else
    SMs × 4 schedulers × that clock (one warp instruction per scheduler per cycle [DING]).
    The clock is the median of the launches' ``sm_clock_hz`` (the ceilings' SM clock
    without one). Returns the roof, or None and why not."""
    saved = next((roof for roof in ceilings.instruction_roofs if roof.name == ISSUE), None)
    if saved is not None:
        return saved, ""
    clocks = kernels["sm_clock_hz"].dropna() if "sm_clock_hz" in kernels else pd.Series(dtype=float)
    clock = float(clocks.median()) if len(clocks) else ceilings.device.clocks_hz.get("sm", math.nan)
    clock_from = "the kernels' median SM clock" if len(clocks) else "the ceilings' SM clock"
    if not clock > 0:
        return None, "no SM clock (sm__cycles_elapsed.avg.per_second) in the report or the ceilings"
    peaks = (
        kernels["issue_peak_per_cycle"].dropna()
        if "issue_peak_per_cycle" in kernels
        else pd.Series(dtype=float)
    )
    if len(peaks):
        per_cycle = float(peaks.median())
        source = f"report peak: {ins.ISSUE_PEAK} ({per_cycle:g}/cycle) × {clock_from} ({clock / 1e9:.3g} GHz)"
    elif sm_count := _sm_count(ceilings):
        per_cycle = float(sm_count * ins.SCHEDULERS_PER_SM)
        source = (
            f"architecture: {sm_count} SMs × {ins.SCHEDULERS_PER_SM} schedulers × "
            f"{clock_from} ({clock / 1e9:.3g} GHz)"
        )
    else:
        return None, f"neither {ins.ISSUE_PEAK} in the report nor the SM count in the ceilings"
    return InstructionRoof(ISSUE, "Warp issue", per_cycle * clock, "warp inst/s", source), ""


def _sm_count(ceilings: CeilingSet) -> int | None:
    """The SM count of the ceilings' GPU, else of the ceilings bundled for that GPU model."""
    if ceilings.device.sm_count:
        return ceilings.device.sm_count
    bundled = find_bundled(ceilings.device.name, ceilings.device.cc) if ceilings.device.name else None
    return bundled.device.sm_count if bundled else None


def instruction_ceilings(kernels: pd.DataFrame, ceilings: CeilingSet) -> InstructionCeilings:
    """Every roof of the instruction roofline for one device's ``kernels``: the issue rate
    (``issue_roof``) and each level's transaction rate, its bandwidth ÷ 32 B sectors [DING]
    (shared memory: ÷ 128 B wavefronts), as the ceilings file saved them or else derived
    at load."""
    issue, why = issue_roof(kernels, ceilings)
    missing = [f"warp issue: {why}"] if issue is None else []
    levels = {}
    for level in ins.LEVELS:
        roof = _transaction_roof(level, ceilings)
        if roof is None:
            missing.append(f"{LEVEL_LABELS[level]}: no bandwidth ceiling")
        else:
            levels[level] = roof
    return InstructionCeilings(issue, levels, _transaction_roof("smem", ceilings), tuple(missing))


def add_instruction_bounds(table: pd.DataFrame, roofs: InstructionCeilings) -> pd.DataFrame:
    """Per kernel, in place: ``instruction_roof_<level>`` (warp inst/s a level allows at the
    kernel's intensity, capped by the issue rate), ``instruction_bound`` (the roof that
    gives least: a level, or "issue"; "" where no level has an intensity),
    ``instruction_level`` (the level whose roof is lowest, which binds unless the issue
    rate is lower still) and ``instruction_roof_fraction`` (achieved / the binding roof)."""
    issue = roofs.issue.value if roofs.issue else np.inf
    attainable = []
    for level in ins.LEVELS:
        roof = roofs.levels.get(level)
        intensity = table[f"instruction_intensity_{level}"].to_numpy(dtype=float, na_value=np.nan)
        value = intensity * roof.value if roof else np.full(len(table), np.nan)
        attainable.append(value)
        table[f"instruction_roof_{level}"] = np.minimum(value, issue)  # clip(upper=): NaN stays
    frame = np.column_stack(attainable)
    known = ~np.isnan(frame).all(axis=1)
    filled = np.where(np.isnan(frame), np.inf, frame)
    lowest = np.where(known, filled.min(axis=1, initial=np.inf), np.nan)
    names = np.array(list(ins.LEVELS), dtype=object)
    lowest_level = np.where(known, names[filled.argmin(axis=1)], "")
    bound = np.where(known & (lowest >= issue), ISSUE, lowest_level)
    binding = np.where(bound == ISSUE, issue, lowest)
    rate = table["warp_instruction_rate"].to_numpy(dtype=float, na_value=np.nan)
    table["instruction_bound"] = np.where(known, bound, "")
    table["instruction_level"] = lowest_level  # the lowest memory roof (it binds unless the issue rate does)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["instruction_roof_fraction"] = np.where(known, rate / binding, np.nan)
    return table


def bound_label(bound: str) -> str:
    """``instruction_bound`` as a user reads it: "Warp issue", "L1", "L2", "HBM"."""
    return "Warp issue" if bound == ISSUE else LEVEL_LABELS.get(bound, "")


def _nearest(value: float, walls: dict[str, float]) -> str:
    """The wall nearest ``value`` on a log scale."""
    return min(walls, key=lambda name: abs(math.log(value / walls[name])))


def wall_verdicts(row: pd.Series | dict[str, object]) -> list[str]:
    """Where one kernel stands against the memory walls [DING], one line each: global
    sectors per request (1 stride-0, 4 unit stride of 4 B words, 32 one sector per lane)
    and shared wavefronts per request (1 without bank conflicts, 32 with 32-way ones)."""
    lines = []
    sectors = _number(row.get("sectors_per_request"))
    if sectors is not None:
        lines.append(
            f"global: {sectors:.3g} sectors per request, nearest wall {_nearest(sectors, ins.GLOBAL_WALLS)}"
        )
    wavefronts = _number(row.get("wavefronts_per_request"))
    if wavefronts is not None:
        lines.append(
            f"shared: {wavefronts:.3g} wavefronts per request, nearest wall "
            f"{_nearest(wavefronts, ins.SHARED_WALLS)}"
        )
    return lines


def _number(value: object) -> float | None:
    if value is None or isinstance(value, str):
        return None
    number = float(value)  # type: ignore[arg-type]
    return number if number > 0 and math.isfinite(number) else None


def ceilings_for(run: Run, device: str) -> InstructionCeilings:
    """The instruction roofline's roofs for ``device`` of ``run`` (its launches give the
    issue peak and the SM clock; its ceilings the bandwidths)."""
    kernels = run.kernels[run.kernels["device"].astype(str) == device]
    return instruction_ceilings(kernels, run.ceilings_for(device))


def with_bounds(run: Run, rows: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``rows`` (launches or groups of ``run``) with ``add_instruction_bounds``
    against each row's device's roofs."""
    out = rows.copy()
    if out.empty:
        return add_instruction_bounds(out, InstructionCeilings(None, {}, None))
    devices = out["device"].astype(str)
    if (devices == devices.iloc[0]).all():  # one GPU (most runs): no groups to join again
        return add_instruction_bounds(out, ceilings_for(run, devices.iloc[0]))
    parts = [
        add_instruction_bounds(part, ceilings_for(run, str(device)))
        for device, part in out.groupby(devices, sort=False)
    ]
    return pd.concat(parts).reindex(out.index)


def _value(row: dict[str, Any], column: str) -> float | None:
    value = row.get(column)
    return None if value is None or pd.isna(value) else float(value)


def kernel_json(row: dict[str, Any]) -> dict[str, Any]:
    """One row's instruction-roofline quantities for the JSON (``None``: not collected, or
    no divisor; ``state`` says which of the counts the report held)."""
    collected = {level: _value(row, f"transactions_{level}") is not None for level in ins.LEVELS}
    return {
        "state": "measured" if _value(row, "warp_instructions") is not None else "not_collected",
        "warp_instructions": _value(row, "warp_instructions"),
        "thread_instructions": _value(row, "thread_instructions"),
        "thread_instructions_pred_on": _value(row, "thread_instructions_pred_on"),
        "warp_efficiency": _value(row, "warp_efficiency"),
        "warp_efficiency_pred_on": _value(row, "warp_efficiency_pred_on"),
        "warp_instruction_rate": _value(row, "warp_instruction_rate"),
        "transactions": {level: _value(row, f"transactions_{level}") for level in ins.LEVELS},
        "transactions_state": {
            level: "measured" if known else "not_collected" for level, known in collected.items()
        },
        "intensity": {level: _value(row, f"instruction_intensity_{level}") for level in ins.LEVELS},
        "global": {
            "requests": _value(row, "global_requests"),
            "sectors": _value(row, "global_sectors"),
            "sectors_per_request": _value(row, "sectors_per_request"),
        },
        "shared": {
            "requests": _value(row, "shared_requests"),
            "wavefronts": _value(row, "shared_wavefronts"),
            "wavefronts_per_request": _value(row, "wavefronts_per_request"),
        },
        "bound": bound_label(str(row.get("instruction_bound") or "")) or None,
        "level": bound_label(str(row.get("instruction_level") or "")) or None,  # lowest memory roof
        "roof_fraction": _value(row, "instruction_roof_fraction"),
        "walls": wall_verdicts(row),
    }


def ceilings_json(run: Run) -> dict[str, Any]:
    """Per device: the instruction roofline's roofs with their sources, what is missing,
    and the walls [DING]."""
    out = {}
    for device in run.devices:
        roofs = ceilings_for(run, device)
        out[device] = {
            "roofs": [roof.to_dict() for roof in roofs.roofs()],
            "missing": list(roofs.missing),
            "walls": {
                "global_sectors_per_request": dict(ins.GLOBAL_WALLS),
                "shared_wavefronts_per_request": dict(ins.SHARED_WALLS),
            },
        }
    return out
