"""Base units to short text, for titles and views."""

from __future__ import annotations


def format_seconds(seconds: float) -> str:
    """A duration in the unit that keeps 3 significant digits readable: 12.3 ms, 850 µs."""
    magnitude = abs(seconds)
    if magnitude >= 1:
        return f"{seconds:.3g} s"
    if magnitude >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    if magnitude >= 1e-6:
        return f"{seconds * 1e6:.3g} µs"
    if magnitude == 0:
        return "0"
    return f"{seconds * 1e9:.3g} ns"
