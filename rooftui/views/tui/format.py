"""Turning base units into short, human text — only at the edge, for display."""

from __future__ import annotations

import math

_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def si(value: float | None, unit: str = "", digits: int = 3) -> str:
    """``value`` with an SI prefix: 4.8e12, "B/s" -> "4.80 TB/s"."""
    if _missing(value):
        return "–"
    if value == 0:
        return f"0 {unit}".rstrip()
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            scaled = value / scale
            # Never "1.3e+02": keep at least the integer digits.
            shown = max(digits, len(str(int(abs(scaled)))))
            return f"{scaled:.{shown}g} {prefix}{unit}".rstrip()
    return f"{value:.{digits}g} {unit}".rstrip()


def duration(seconds: float | None) -> str:
    """A duration in the unit that keeps it short: 0.00123 -> "1.23 ms"."""
    if _missing(seconds):
        return "–"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def intensity(value: float | None) -> str:
    """Arithmetic intensity in FLOP/byte, without a unit."""
    if _missing(value):
        return "–"
    if value == 0:
        return "0"
    if abs(value) >= 1e4 or abs(value) < 1e-3:
        return f"{value:.2e}"
    return f"{value:.3g}"


def percent(fraction: float | None) -> str:
    """A fraction (0.42) as "42.0%"."""
    if _missing(fraction):
        return "–"
    return f"{fraction * 100:.1f}%"


def decade(exponent: int, unit: str = "") -> str:
    """A tick label for 10**exponent: 0.01, 1, 10, 1k, 10G..."""
    if exponent < -3:
        return f"1e{exponent}{unit}"
    if exponent < 0:
        return f"{10.0**exponent:.{-exponent}f}{unit}"
    return si(10.0**exponent, unit, digits=3).replace(" ", "")


def ascii_safe(text: str) -> str:
    """``text`` with the few non-ASCII characters rooftui prints replaced."""
    return text.translate(_ASCII)


_ASCII = str.maketrans({"µ": "u", "–": "-", "—": "-", "·": "|", "×": "x", "…": "~", "▲": "^", "▼": "v"})
