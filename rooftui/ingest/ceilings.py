"""Ceilings files: rooftui's own JSON (``rooftui.ceilings/1``) and ERT's roofline.json."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rooftui.errors import CeilingsError
from rooftui.ingest.files import check_readable, open_text
from rooftui.model.ceilings import KINDS, METHODS, SCHEMA, STAMP_KEYS, Ceiling, CeilingSet, Device

_HINT = "see the README's \"Ceilings file\" section, or write one with `rooftui measure`"
_LEVELS = ("l1", "smem", "l2", "hbm")
# ERT names its bandwidth ceilings after the level; its FLOP ceiling is "FP64 GFLOPs" etc.
_ERT_LEVELS = {"l1": "l1", "l2": "l2", "dram": "hbm", "hbm": "hbm", "shared": "smem", "smem": "smem"}


def load_ceilings(path: str | Path) -> CeilingSet:
    """Read a rooftui ceilings JSON or an ERT roofline.json."""
    path = Path(path)
    check_readable(path)
    try:
        with open_text(path) as handle:
            doc = json.load(handle)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CeilingsError(f"not valid JSON ({err.msg} at line {err.lineno})", path, _HINT) from None
    if not isinstance(doc, dict):
        raise CeilingsError("expected a JSON object", path, _HINT)
    if "empirical" in doc:
        return _from_ert(doc, path)
    return _from_rooftui(doc, path)


def _from_rooftui(doc: dict[str, Any], path: Path) -> CeilingSet:
    if doc.get("schema", SCHEMA) != SCHEMA:
        raise CeilingsError(f"unknown schema {doc.get('schema')!r}, expected {SCHEMA!r}", path, _HINT)
    device = doc.get("device") or {}
    entries = doc.get("ceilings")
    if not isinstance(entries, list) or not entries:
        raise CeilingsError("no \"ceilings\" list", path, _HINT)
    ceilings = []
    for i, entry in enumerate(entries):
        where = f"ceilings[{i}]"
        if not isinstance(entry, dict):
            raise CeilingsError(f"{where} is not an object", path, _HINT)
        kind, method = entry.get("kind"), entry.get("method", "empirical")
        value = entry.get("value")
        if kind not in KINDS:
            raise CeilingsError(f"{where}: \"kind\" must be one of {KINDS}", path, _HINT)
        if method not in METHODS:
            raise CeilingsError(f"{where}: \"method\" must be one of {METHODS}", path, _HINT)
        if not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
            raise CeilingsError(f"{where}: \"value\" must be a positive number", path, _HINT)
        precision = entry.get("precision") if kind == "compute" else None
        level = entry.get("level") if kind == "bandwidth" else None
        if kind == "compute" and not precision:
            raise CeilingsError(f"{where}: a compute ceiling needs \"precision\"", path, _HINT)
        if kind == "bandwidth" and level not in _LEVELS:
            raise CeilingsError(f"{where}: \"level\" must be one of {_LEVELS}", path, _HINT)
        known = {"name", "kind", "precision", "level", "value", "unit", "method", *STAMP_KEYS}
        extra = {k: v for k, v in entry.items() if k not in known}
        ceilings.append(Ceiling(str(entry.get("name") or precision or level), kind, float(value),
                                method, precision=precision, level=level, extra=extra))
    index = (doc.get("measurement") or {}).get("device_index")
    return CeilingSet(
        Device(str(device.get("name", "")), str(device.get("cc", "")), device.get("sm_count"),
               dict(device.get("clocks_hz") or {}), index if isinstance(index, int) else None),
        tuple(ceilings), source=str(doc.get("source") or path), measured_at=_measured_at(doc),
        origin=str(path))


def _measured_at(doc: dict[str, Any]) -> str | None:
    """``measured_at`` (ISO 8601), or for files written before it existed, the time of
    the first clock reading ``rooftui measure`` recorded (Unix seconds)."""
    if isinstance(doc.get("measured_at"), str):
        return doc["measured_at"]
    readings = (doc.get("measurement") or {}).get("clocks_reported") or [{}]
    stamp = readings[0].get("time") if isinstance(readings[0], dict) else None
    if isinstance(stamp, (int, float)) and math.isfinite(stamp):
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
        raise CeilingsError("ERT file without empirical.gbytes.data / empirical.gflops.data",
                            path, _HINT) from None
    ceilings = []
    for name, value in gbytes:
        level = _ERT_LEVELS.get(str(name).lower().split()[0], str(name).lower())
        if level in _LEVELS:
            ceilings.append(Ceiling(str(name), "bandwidth", float(value) * 1e9, "empirical",
                                    level=level))
    for name, value in gflops:
        precision = _ert_precision(str(name))
        ceilings.append(Ceiling(str(name), "compute", float(value) * 1e9, "empirical",
                                precision=precision))
    if not ceilings:
        raise CeilingsError("the ERT file lists no ceilings", path, _HINT)
    return CeilingSet(Device(str(doc.get("device", "")), ""), tuple(ceilings), source=f"ERT {path.name}",
                      origin=str(path))


def _ert_precision(name: str) -> str:
    """ERT ceiling names ("FP64 GFLOPs", "Tensor BF16", "INT8 Tensor") -> a pipeline."""
    lowered = name.lower().replace("-", " ")
    tensor = "tensor" in lowered or "mma" in lowered
    for key, precision in (("fp64", "fp64"), ("double", "fp64"), ("tf32", "tf32"), ("bf16", "bf16"),
                           ("fp16", "fp16"), ("half", "fp16"), ("fp8", "fp8"), ("int8", "int8"),
                           ("fp32", "fp32"), ("single", "fp32")):
        if key in lowered:
            if tensor or precision in ("tf32", "fp8", "int8"):
                return f"tensor_{precision}"
            return precision
    return "tensor_fp16" if tensor else "fp64"  # ERT's classic FLOP ceiling is double precision
