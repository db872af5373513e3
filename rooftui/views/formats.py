"""Scaling base units for display: the only place numbers get prefixes."""

from __future__ import annotations

import math

_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float | None, unit: str = "", digits: int = 3) -> str:
    """1.2345e12, "FLOP/s" -> "1.23 TFLOP/s"; blank for missing values."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}".strip()
    return f"{value:.{digits}g} {unit}".strip()


def seconds(value: float | None) -> str:
    """Seconds with a unit that keeps three digits: 4.68 ms, 91.4 µs."""
    if value is None or not math.isfinite(value):
        return ""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value * 1e9:.3g} ns"


def percent(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return ""
    return f"{100 * value:.1f}%"


def number(value: float | None, digits: int = 3) -> str:
    if value is None or not math.isfinite(value):
        return ""
    return f"{value:.{digits}g}"


def intensity(value: float | None) -> str:
    """Arithmetic intensity in at most 5 characters: 0.083, 1.5, 22, 1290."""
    if value is None or not math.isfinite(value):
        return ""
    if value >= 10:
        return f"{value:.0f}"
    if value >= 1:
        return f"{value:.1f}"
    if value >= 0.001:
        return f"{value:.3f}".rstrip("0")
    return "<.001" if value > 0 else "0"
