"""Ceilings files: rooftui's own JSON (``rooftui.ceilings/1``) and ERT's roofline.json."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rooftui.errors import CeilingsError, reading
from rooftui.ingest.files import check_readable, open_text
from rooftui.model.ceilings import KINDS, METHODS, SCHEMA, STAMP_KEYS, Ceiling, CeilingSet, Device
from rooftui.model.instructions import ROOF_LABELS, ROOF_UNITS, InstructionRoof

_HINT = 'see "Ceilings file" in rooftui\'s docs/output.md, or write one with `rooftui measure`'
_LEVELS = ("l1", "smem", "l2", "hbm")
# ERT names its bandwidth ceilings after the level; its FLOP ceiling is "FP64 GFLOPs" etc.
# A ceilings file is a few KB; a larger one is not a ceilings file (or a bomb).
MAX_CEILINGS_BYTES = 16 << 20
_ERT_LEVELS = {"l1": "l1", "l2": "l2", "dram": "hbm", "hbm": "hbm", "shared": "smem", "smem": "smem"}


def load_ceilings(path: str | Path) -> CeilingSet:
    """Read a rooftui ceilings JSON or an ERT roofline.json."""
    path = Path(path)
    doc = read_json_object(path)
    with reading(path, CeilingsError, _HINT):
        if "empirical" in doc:
            return _from_ert(doc, path)
        return _from_rooftui(doc, path)


def read_json_object(path: Path) -> dict[str, Any]:
    """A ceilings file's JSON object: at most MAX_CEILINGS_BYTES, one-line errors."""
    check_readable(path, empty_fix=_HINT)
    with reading(path, CeilingsError, _HINT):
        try:
            with open_text(path, limit=MAX_CEILINGS_BYTES) as handle:
                doc = json.load(handle)
        except json.JSONDecodeError as err:
            raise CeilingsError(f"not valid JSON ({err.msg} at line {err.lineno})", path, _HINT) from None
        except ValueError as err:  # e.g. an integer of more than 4,300 digits
            raise CeilingsError(f"not valid JSON ({err})", path, _HINT) from None
    if not isinstance(doc, dict):
        raise CeilingsError("expected a JSON object", path, _HINT)
    return doc


def positive_number(value: Any, where: str, path: Path) -> float:
    """A ceiling value: a finite number > 0 (not a boolean, not a string), as float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CeilingsError(f"{where} must be a number, not {json.dumps(value)[:40]}", path, _HINT)
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not (math.isfinite(number) and number > 0):
        raise CeilingsError(f"{where} must be a positive, finite number (got {number:g})", path, _HINT)
    return number


def _text(value: Any, where: str, path: Path) -> str:
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise CeilingsError(f"{where} must be a string", path, _HINT)
    return str(value)


def _from_rooftui(doc: dict[str, Any], path: Path) -> CeilingSet:
    if doc.get("schema", SCHEMA) != SCHEMA:
        raise CeilingsError(f"unknown schema {doc.get('schema')!r}, expected {SCHEMA!r}", path, _HINT)
    device = doc.get("device") or {}
    if not isinstance(device, dict):
        raise CeilingsError('"device" must be an object', path, _HINT)
    clocks = device.get("clocks_hz") or {}
    if not isinstance(clocks, dict):
        raise CeilingsError('"device.clocks_hz" must be an object', path, _HINT)
    sm_count = device.get("sm_count")
    if sm_count is not None and (
        isinstance(sm_count, bool) or not isinstance(sm_count, int) or not 0 < sm_count < 1_000_000
    ):
        raise CeilingsError('"device.sm_count" must be a positive whole number', path, _HINT)
    entries = doc.get("ceilings")
    if not isinstance(entries, list) or not entries:
        raise CeilingsError('no "ceilings" list', path, _HINT)
    ceilings = []
    for i, entry in enumerate(entries):
        where = f"ceilings[{i}]"
        if not isinstance(entry, dict):
            raise CeilingsError(f"{where} is not an object", path, _HINT)
        kind, method = entry.get("kind"), entry.get("method", "empirical")
        if kind not in KINDS:
            raise CeilingsError(f'{where}: "kind" must be one of {KINDS}', path, _HINT)
        if method not in METHODS:
            raise CeilingsError(f'{where}: "method" must be one of {METHODS}', path, _HINT)
        value = positive_number(entry.get("value"), f"{where}.value", path)
        precision = entry.get("precision") if kind == "compute" else None
        level = entry.get("level") if kind == "bandwidth" else None
        if kind == "compute" and (not precision or not isinstance(precision, str)):
            raise CeilingsError(f'{where}: a compute ceiling needs "precision"', path, _HINT)
        if kind == "bandwidth" and level not in _LEVELS:
            raise CeilingsError(f'{where}: "level" must be one of {_LEVELS}', path, _HINT)
        known = {"name", "kind", "precision", "level", "value", "unit", "method", *STAMP_KEYS}
        extra = {k: v for k, v in entry.items() if k not in known}
        name = _text(entry.get("name"), f"{where}.name", path)
        ceilings.append(
            Ceiling(
                name or str(precision or level),
                kind,
                value,
                method,
                precision=precision,
                level=level,
                extra=extra,
            )
        )
    measurement = doc.get("measurement")
    index = measurement.get("device_index") if isinstance(measurement, dict) else None
    return CeilingSet(
        Device(
            _text(device.get("name"), "device.name", path),
            _text(device.get("cc"), "device.cc", path),
            sm_count,
            dict(clocks),
            index if isinstance(index, int) and not isinstance(index, bool) else None,
        ),
        tuple(ceilings),
        source=_text(doc.get("source"), "source", path) or str(path),
        measured_at=_measured_at(doc),
        origin=str(path),
        instruction_roofs=instruction_roofs(doc.get("instruction_ceilings"), path),
    )


def instruction_roofs(entries: Any, path: Path) -> tuple[InstructionRoof, ...]:
    """The optional top-level ``instruction_ceilings`` list (``rooftui measure`` writes it):
    the issue rate in warp inst/s and per-level transaction rates in transactions/s, each
    with the sentence that says where it came from. A file without it has none."""
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise CeilingsError('"instruction_ceilings" must be a list', path, _HINT)
    roofs: list[InstructionRoof] = []
    for i, entry in enumerate(entries):
        where = f"instruction_ceilings[{i}]"
        if not isinstance(entry, dict):
            raise CeilingsError(f"{where} is not an object", path, _HINT)
        name = entry.get("name")
        if name not in ROOF_LABELS:
            raise CeilingsError(f'{where}: "name" must be one of {tuple(ROOF_LABELS)}', path, _HINT)
        if entry.get("unit") != ROOF_UNITS[name]:
            raise CeilingsError(f'{where}: "unit" must be "{ROOF_UNITS[name]}" for {name}', path, _HINT)
        value = positive_number(entry.get("value"), f"{where}.value", path)
        source = _text(entry.get("source"), f"{where}.source", path)
        if not source:
            raise CeilingsError(f'{where}: "source" must say where the value came from', path, _HINT)
        derived = entry.get("derived_from")
        if derived is not None:
            if not isinstance(derived, dict):
                raise CeilingsError(f'{where}: "derived_from" must be an object', path, _HINT)
            positive_number(derived.get("bytes_per_s"), f"{where}.derived_from.bytes_per_s", path)
        if any(roof.name == name for roof in roofs):
            raise CeilingsError(f"{where}: a second {name} roof", path, _HINT)
        extra = {k: v for k, v in entry.items() if k not in ("name", "label", "value", "unit", "source")}
        roofs.append(InstructionRoof(name, ROOF_LABELS[name], value, ROOF_UNITS[name], source, extra))
    return tuple(roofs)


def _measured_at(doc: dict[str, Any]) -> str | None:
    """``measured_at`` (ISO 8601), or for files written before it existed, the time of
    the first clock reading ``rooftui measure`` recorded (Unix seconds)."""
    if isinstance(doc.get("measured_at"), str):
        return doc["measured_at"]
    measurement = doc.get("measurement")
    readings = measurement.get("clocks_reported") if isinstance(measurement, dict) else None
    first = readings[0] if isinstance(readings, list) and readings else None
    stamp = first.get("time") if isinstance(first, dict) else None
    if (
        isinstance(stamp, (int, float))
        and not isinstance(stamp, bool)
        and math.isfinite(stamp)
        and 0 < stamp < 1e11
    ):
        return datetime.fromtimestamp(stamp, timezone.utc).isoformat(timespec="seconds")
    return None


def _from_ert(doc: dict[str, Any], path: Path) -> CeilingSet:
    """ERT's roofline.json: ``empirical.gbytes.data`` and ``empirical.gflops.data`` lists
    of ``[name, value]`` in GB/s and GFLOP/s (Empirical Roofline Toolkit)."""
    empirical = doc.get("empirical") or {}
    try:
        gbytes = empirical["gbytes"]["data"]
        gflops = empirical["gflops"]["data"]
    except (KeyError, TypeError):
        raise CeilingsError(
            "ERT file without empirical.gbytes.data / empirical.gflops.data", path, _HINT
        ) from None
    ceilings = []
    for name, value in _ert_pairs(gbytes, "empirical.gbytes.data", path):
        level = _ERT_LEVELS.get((name.lower().split() or [""])[0], name.lower())
        if level in _LEVELS:
            ceilings.append(Ceiling(name, "bandwidth", value * 1e9, "empirical", level=level))
    for name, value in _ert_pairs(gflops, "empirical.gflops.data", path):
        precision = _ert_precision(name)
        ceilings.append(Ceiling(name, "compute", value * 1e9, "empirical", precision=precision))
    if not ceilings:
        raise CeilingsError("the ERT file lists no ceilings", path, _HINT)
    return CeilingSet(
        Device(str(doc.get("device", "")), ""), tuple(ceilings), source=f"ERT {path.name}", origin=str(path)
    )


def _ert_pairs(data: Any, where: str, path: Path) -> list[tuple[str, float]]:
    """ERT's ``[[name, value], ...]`` lists, each value a positive number (GB/s, GFLOP/s)."""
    if not isinstance(data, list):
        raise CeilingsError(f"{where} must be a list of [name, value] pairs", path, _HINT)
    pairs = []
    for i, pair in enumerate(data):
        if not isinstance(pair, list) or len(pair) != 2:
            raise CeilingsError(f"{where}[{i}] must be a [name, value] pair", path, _HINT)
        name = _text(pair[0], f"{where}[{i}][0]", path)
        value = positive_number(pair[1], f"{where}[{i}][1]", path)
        if not math.isfinite(value * 1e9):
            raise CeilingsError(f"{where}[{i}][1] is too large", path, _HINT)
        pairs.append((name, value))
    return pairs


def _ert_precision(name: str) -> str:
    """ERT ceiling names ("FP64 GFLOPs", "Tensor BF16", "INT8 Tensor") -> a pipeline."""
    lowered = name.lower().replace("-", " ")
    tensor = "tensor" in lowered or "mma" in lowered
    for key, precision in (
        ("fp64", "fp64"),
        ("double", "fp64"),
        ("tf32", "tf32"),
        ("bf16", "bf16"),
        ("fp16", "fp16"),
        ("half", "fp16"),
        ("fp8", "fp8"),
        ("int8", "int8"),
        ("fp32", "fp32"),
        ("single", "fp32"),
    ):
        if key in lowered:
            if tensor or precision in ("tf32", "fp8", "int8"):
                return f"tensor_{precision}"
            return precision
    return "tensor_fp16" if tensor else "fp64"  # ERT's classic FLOP ceiling is double precision
