"""Scaling base units for display: the only place numbers get prefixes, durations get
units, and values are made JSON-safe. Imports nothing from rooftui, so every layer may
use it (the import contract in pyproject.toml allows exactly that).

A missing value (None, NaN, ±inf) is shown as ``missing``: "" by default (tables and
text that leave a blank), the explorer passes its dash (``rooftui.views.tui.format.MISSING``)."""

from __future__ import annotations

import math
from typing import Any

_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float | None, unit: str = "", digits: int = 3, *, missing: str = "") -> str:
    """1.2345e12, "FLOP/s" -> "1.23 TFLOP/s"."""
    if value is None or not math.isfinite(value):
        return missing
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}".strip()
    return f"{value:.{digits}g} {unit}".strip()


def seconds(value: float | None, *, missing: str = "") -> str:
    """Seconds with a unit that keeps three digits: 4.68 ms, 91.4 µs; "0 s" for zero."""
    if value is None or not math.isfinite(value):
        return missing
    if value == 0:
        return "0 s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value * 1e9:.3g} ns"


def percent(value: float | None, *, missing: str = "") -> str:
    """A fraction (0.42) as "42.0%"."""
    if value is None or not math.isfinite(value):
        return missing
    return f"{100 * value:.1f}%"


def number(value: float | None, digits: int = 3, *, missing: str = "") -> str:
    if value is None or not math.isfinite(value):
        return missing
    return f"{value:.{digits}g}"


def intensity(value: float | None, *, missing: str = "") -> str:
    """Arithmetic intensity in at most 5 characters: 0.083, 1.5, 22, 1290 (the CLI's tables)."""
    if value is None or not math.isfinite(value):
        return missing
    if value >= 10:
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.1f}"
    if value >= 0.001:
        return f"{value:.3f}".rstrip("0")
    return "<.001" if value > 0 else "0"


def intensity_with_magnitude(value: float | None, *, missing: str = "") -> str:
    """Arithmetic intensity in FLOP/byte, three digits, tiny and huge values keeping their
    magnitude (1.53e-04, 1.06e+06), so a column sorted by AI reads right (the explorer)."""
    if value is None or not math.isfinite(value):
        return missing
    if value == 0:
        return "0"
    if abs(value) >= 1e4 or abs(value) < 1e-3:
        return f"{value:.2e}"
    return f"{value:.3g}"


def decade(exponent: int, unit: str = "") -> str:
    """A tick label for 10**exponent: 1e-5, 0.001, 0.1, 1, 1k, 10G..."""
    if exponent < -3:
        return f"1e{exponent}{unit}"
    if exponent < 0:
        return f"{10.0**exponent:.{-exponent}f}{unit}"
    return si(10.0**exponent, unit, digits=3).replace(" ", "")


def json_safe(value: Any) -> Any:
    """``value`` ready for ``json.dumps``: NaN, ±inf and pandas' NA become null (JSON has no
    NaN), numpy scalars become Python ones, tuples become lists, keys become strings."""
    kind = type(value)
    if kind is str or kind is int or kind is bool:  # most leaves: as they are (said first: fast)
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if value is None or type(value).__name__ == "NAType":  # pandas.NA, without importing pandas
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def approximate_mark(pipeline: str, fp16_approximate: bool) -> str:
    """ "~" after a pipeline whose FLOPs ncu counts approximately (FP16 on CUDA cores,
    ``rooftui.model.metrics.FP16_NOTE``), in every table that names the pipeline; else ""."""
    return "~" if fp16_approximate and pipeline == "fp16" else ""


def counted(count: int, noun: str) -> str:
    """A whole count and its noun, with thousands separators: "1 launch", "1,234 launches",
    "73 kernels"."""
    plural = noun + ("es" if noun.endswith(("h", "s")) else "s")
    return f"{count:,} {noun if count == 1 else plural}"
