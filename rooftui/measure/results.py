"""Measured results -> the ceilings file (``rooftui.ceilings/1``) and ERT's ``roofline.json``."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from statistics import median
from typing import Any

from rooftui import __version__
from rooftui.errors import CeilingsError
from rooftui.measure import kernels as K
from rooftui.measure.bandwidth import SMEM_SOURCE, SharedMemoryResult, Sweep
from rooftui.measure.compute import ComputeResult
from rooftui.measure.plateaus import Plateau, first_plateau, last_plateau
from rooftui.model.ceilings import SCHEMA, Ceiling, CeilingSet, Device
from rooftui.model.instructions import TRANSACTION_BYTES, InstructionRoof, transaction_roof

SOURCE = f"rooftui measure {__version__}"


def compute_ceiling(results: list[ComputeResult]) -> Ceiling:
    """The ceiling of one pipeline: the fastest of the kernels that measured it."""
    best = max(results, key=lambda r: r.ops_per_s)
    spec = best.kernel
    extra: dict[str, Any] = {
        "clock_hz": best.clock_hz,
        "instruction": spec.instruction,
        "kernel": f"rooftui/measure/cuda/{spec.source}:{spec.function}",
        "launch": {"grid": best.grid, "block": best.block, "trips": best.trips},
        "ops_per_launch": best.ops_per_launch,
        "seconds": best.seconds,
        "check": best.check,
    }
    if len(results) > 1:
        extra["variants"] = {r.kernel.instruction: r.ops_per_s for r in results}
    return Ceiling(
        name=spec.name,
        kind="compute",
        value=best.ops_per_s,
        method="empirical",
        precision=spec.precision,
        extra=extra,
    )


def with_theoretical(ceiling: Ceiling, arch: int, sm_count: int) -> Ceiling:
    """Add SMs x FMA units x 2 x the clock measured during the kernel, and the fraction reached."""
    units = K.FMA_UNITS_PER_SM.get(ceiling.precision or "", {}).get(arch)
    extra = dict(ceiling.extra)
    if units is not None:
        peak = sm_count * units * 2 * ceiling.extra["clock_hz"]
        extra.update(
            fma_units_per_sm=units,
            theoretical_at_clock=peak,
            fraction_of_theoretical=ceiling.value / peak,
        )
    return Ceiling(
        ceiling.name,
        ceiling.kind,
        ceiling.value,
        ceiling.method,
        ceiling.precision,
        ceiling.level,
        extra,
    )


def instruction_roofs(issue: InstructionRoof | None, bandwidth: list[Ceiling]) -> tuple[InstructionRoof, ...]:
    """What the ceilings file saves under ``instruction_ceilings``: the measured issue rate
    and each measured level's transaction rate, derived from its bandwidth [DING]."""
    roofs = [issue] if issue is not None else []
    for ceiling in bandwidth:
        if ceiling.level in TRANSACTION_BYTES:
            derived_from = {
                "ceiling": ceiling.name,
                "bytes_per_s": ceiling.value,
                "bytes_per_transaction": TRANSACTION_BYTES[ceiling.level],
            }
            bandwidth_text = (
                f"derived from measured {ceiling.name} bandwidth ({ceiling.value / 1e12:.4g} TB/s)"
            )
            roofs.append(
                transaction_roof(ceiling.level, ceiling.value, bandwidth_text, {"derived_from": derived_from})
            )
    return tuple(roofs)


def with_issue_rate(
    document: dict[str, Any], ceiling_set: CeilingSet, issue: InstructionRoof, record: dict[str, Any]
) -> dict[str, Any]:
    """A copy of the ceilings ``document`` (read as ``ceiling_set``) with its
    ``instruction_ceilings`` replaced: the ``issue`` rate just measured on the same GPU
    model, and each level's transaction rate derived from the document's own bandwidths
    (``instruction_roofs``), so a run using those bandwidths reads the rates back. Its
    bandwidth and FLOP roofs are left as they are. ``record`` (``measure_issue_only``'s)
    is kept under ``instruction_ceilings_measurement``."""
    measured_on = str(record.get("device", ""))
    if measured_on != ceiling_set.device.name:
        raise CeilingsError(
            f"the issue rate was measured on {measured_on or 'an unnamed GPU'}, but the file holds the "
            f"roofs of {ceiling_set.device.name}: add it to a ceilings file of the GPU it was measured on"
        )
    when = measured_at(record)
    stamped = replace(
        issue,
        source=f"{issue.source}; measured {when[:10]} with rooftui measure --add-issue-rate",
        extra={**issue.extra, "measured_at": when},
    )
    bandwidth = [c for c in ceiling_set.ceilings if c.kind == "bandwidth"]
    out = dict(document)
    out["instruction_ceilings"] = [roof.to_dict() for roof in instruction_roofs(stamped, bandwidth)]
    out["instruction_ceilings_measurement"] = record
    return out


def _plateau_extra(sweep: Sweep, plateau: Plateau) -> dict[str, Any]:
    points = sweep.points[plateau.first : plateau.last + 1]
    return {
        "clock_hz": float(median(p.clock_hz for p in points)),
        "loads": sweep.loads,
        "plateau": {
            "working_set_bytes": [plateau.working_set_lo, plateau.working_set_hi],
            "points": plateau.points,
        },
        "curve": sweep.curve(),
        "curve_clock_hz": [p.clock_hz for p in sweep.points],
    }


def bandwidth_ceilings(
    l1_sweep: Sweep, l2_sweep: Sweep, smem: SharedMemoryResult | None
) -> tuple[list[Ceiling], list[str]]:
    """L1 from the L1-cached sweep, L2 and HBM from the L2-only sweep; plus shared memory.

    Returns the ceilings and a warning for each level no plateau was found for.
    """
    ceilings, warnings = [], []
    found = [
        ("l1", "L1", l1_sweep, first_plateau(l1_sweep.curve())),
        ("l2", "L2", l2_sweep, first_plateau(l2_sweep.curve())),
        ("hbm", "HBM", l2_sweep, last_plateau(l2_sweep.curve())),
    ]
    l2_plateau = found[1][3]
    hbm_plateau = found[2][3]
    if l2_plateau is not None and hbm_plateau is not None and l2_plateau.first == hbm_plateau.first:
        found[1] = ("l2", "L2", l2_sweep, None)  # one plateau only: it is device memory
    for level, name, sweep, plateau in found:
        if plateau is None:
            warnings.append(f"no {name} plateau found in the {sweep.loads} sweep; no {name} ceiling written")
            continue
        ceilings.append(
            Ceiling(
                name=name,
                kind="bandwidth",
                value=plateau.value,
                method="empirical",
                level=level,
                extra=_plateau_extra(sweep, plateau),
            )
        )
        if level == "l1" and smem is not None:
            ceilings.append(
                Ceiling(
                    name="Shared memory",
                    kind="bandwidth",
                    value=smem.bytes_per_s,
                    method="empirical",
                    level="smem",
                    extra={
                        "clock_hz": smem.clock_hz,
                        "kernel": f"rooftui/measure/cuda/{SMEM_SOURCE}:smem_read",
                        "launch": {"grid": smem.grid, "block": smem.block, "passes": smem.passes},
                        "bytes_per_launch": smem.bytes_per_launch,
                        "seconds": smem.seconds,
                        "check": smem.check,
                    },
                )
            )
    return ceilings, warnings


def ceilings_document(ceiling_set: CeilingSet, measurement: dict[str, Any]) -> dict[str, Any]:
    """The JSON document: the shared schema, plus how the run went under ``measurement``.

    The launch floor (``rooftui.measure.launch_floor``) goes to the top level, beside
    the ceilings it bounds.
    """
    doc = ceiling_set.to_dict()
    doc["measured_at"] = measured_at(measurement)
    if "launch_floor" in measurement:
        doc["launch_floor"] = measurement["launch_floor"]
        measurement = {k: v for k, v in measurement.items() if k != "launch_floor"}
    doc["measurement"] = measurement
    return doc


def measured_at(measurement: dict[str, Any]) -> str:
    """When the run started (ISO 8601, UTC): the first clock reading's time, else now."""
    readings = measurement.get("clocks_reported") or [{}]
    stamp = readings[0].get("time")
    when = datetime.fromtimestamp(stamp, timezone.utc) if isinstance(stamp, (int, float)) else None
    return (when or datetime.now(timezone.utc)).isoformat(timespec="seconds")


def ert_document(ceiling_set: CeilingSet) -> dict[str, Any]:
    """ERT's roofline.json: GB/s and GFLOP/s under empirical.gbytes / empirical.gflops."""
    ert_level = {"l1": "L1", "smem": "SMEM", "l2": "L2", "hbm": "DRAM"}
    gbytes = [
        [ert_level[c.level], c.value / 1e9]
        for c in ceiling_set.ceilings
        if c.kind == "bandwidth" and c.level is not None
    ]
    gflops = [
        [f"{c.name} G{'OP' if c.unit == 'OP/s' else 'FLOP'}s", c.value / 1e9]
        for c in ceiling_set.ceilings
        if c.kind == "compute"
    ]
    meta = {
        "device": ceiling_set.device.name,
        "cc": ceiling_set.device.cc,
        "source": ceiling_set.source,
    }
    return {
        "empirical": {
            "metadata": meta,
            "gbytes": {"data": gbytes, "metadata": {"units": "GB/s"}},
            "gflops": {"data": gflops, "metadata": {"units": "GFLOP/s"}},
        }
    }


def write_json(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n")


def read_ceilings(path: Path) -> CeilingSet:
    """Read a ceilings file back (what ``--show`` draws); one-line errors for bad files."""
    from rooftui.ingest.ceilings import instruction_roofs, read_json_object

    path = Path(path)
    doc = read_json_object(path)
    if doc.get("schema") != SCHEMA:
        raise CeilingsError(f"not a {SCHEMA} file", path=path)
    try:
        d = doc["device"]
        device = Device(str(d["name"]), str(d["cc"]), d.get("sm_count"), dict(d.get("clocks_hz", {})))
        base = {"name", "kind", "precision", "level", "value", "unit", "method"}
        ceilings = tuple(
            Ceiling(
                name=str(c["name"]),
                kind=c["kind"],
                value=_positive(c["value"], f"ceilings[{i}].value", path),
                method=c["method"],
                precision=c.get("precision"),
                level=c.get("level"),
                extra=_checked_extra({k: v for k, v in c.items() if k not in base}, i, path),
            )
            for i, c in enumerate(doc["ceilings"])
        )
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CeilingsError(f"malformed ceilings file ({type(err).__name__}: {err})", path=path) from None
    return CeilingSet(
        device=device,
        ceilings=ceilings,
        source=str(doc.get("source", "")),
        instruction_roofs=instruction_roofs(doc.get("instruction_ceilings"), path),
    )


def _positive(value: object, where: str, path: Path) -> float:
    from rooftui.ingest.ceilings import positive_number

    return positive_number(value, where, path)


def _checked_extra(extra: dict, index: int, path: Path) -> dict:
    """What ``--show`` draws from: labels are strings, curves and plateaus positive numbers."""
    for key in ("loads", "instruction", "kernel"):
        if key in extra and not isinstance(extra[key], str):
            raise CeilingsError(f"ceilings[{index}].{key} must be a string", path=path)
    plateau = extra.get("plateau")
    if plateau is not None:
        span = plateau.get("working_set_bytes") if isinstance(plateau, dict) else None
        if not isinstance(span, list) or len(span) != 2:
            raise CeilingsError(f"ceilings[{index}].plateau.working_set_bytes must be a pair", path=path)
        for k in (0, 1):
            _positive(span[k], f"ceilings[{index}].plateau.working_set_bytes[{k}]", path)
    curve = extra.get("curve")
    if curve is not None:
        if not isinstance(curve, list):
            raise CeilingsError(f"ceilings[{index}].curve must be a list of pairs", path=path)
        for j, point in enumerate(curve):
            if not isinstance(point, list) or len(point) != 2:
                raise CeilingsError(f"ceilings[{index}].curve[{j}] must be a pair", path=path)
            for k in (0, 1):
                _positive(point[k], f"ceilings[{index}].curve[{j}][{k}]", path)
    return extra
