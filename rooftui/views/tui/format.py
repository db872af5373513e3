"""Turning base units into short, human text — only at the edge, for display."""

from __future__ import annotations

import math

from rich.text import Text

from rooftui.views import formats
from rooftui.views.text import printable

# Prefixes and units come from the one place that scales numbers
# (rooftui.views.formats); the explorer shows a missing value as a dash.
MISSING = "–"


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def si(value: float | None, unit: str = "", digits: int = 3) -> str:
    """``value`` with an SI prefix: 4.8e12, "B/s" -> "4.8 TB/s"."""
    return formats.si(value, unit, digits) or MISSING


def duration(seconds: float | None) -> str:
    """A duration in the unit that keeps it short: 0.00123 -> "1.23 ms"."""
    return formats.seconds(seconds) or MISSING


def intensity(value: float | None) -> str:
    """Arithmetic intensity in FLOP/byte, without a unit. Unlike the CLI's compact
    form, tiny and huge values keep their magnitude (1.53e-04), so sorting by AI
    in the table reads right."""
    if value is None or _missing(value):
        return MISSING
    if value == 0:
        return "0"
    if abs(value) >= 1e4 or abs(value) < 1e-3:
        return f"{value:.2e}"
    return f"{value:.3g}"


def percent(fraction: float | None) -> str:
    """A fraction (0.42) as "42.0%"."""
    return formats.percent(fraction) or MISSING


def decade(exponent: int, unit: str = "") -> str:
    """A tick label for 10**exponent: 0.01, 1, 10, 1k, 10G..."""
    if exponent < -3:
        return f"1e{exponent}{unit}"
    if exponent < 0:
        return f"{10.0**exponent:.{-exponent}f}{unit}"
    return si(10.0**exponent, unit, digits=3).replace(" ", "")


def fit_parts(parts: list[tuple[int, str]], width: int, separator: str = " · ") -> str:
    """Join the ``(rank, text)`` parts, in order, leaving out the least important
    (highest rank) until the line fits ``width``; rank 0 parts always stay."""
    kept = list(parts)
    while len(separator.join(text for _, text in kept)) > width:
        least = max(rank for rank, _ in kept)
        if least == 0:
            break
        drop = max(i for i, (rank, _) in enumerate(kept) if rank == least)
        del kept[drop]
    return separator.join(text for _, text in kept)


def fit_items(lead: str, items: list[str], width: int, separator: str = ", ") -> str:
    """``lead`` and as many of ``items`` as fit ``width``, the rest counted ("+2");
    "" when there are none. Items are never cut inside."""
    if not items:
        return ""
    for kept in range(len(items), 0, -1):
        more = len(items) - kept
        text = lead + separator.join(items[:kept]) + (f" +{more}" if more else "")
        if len(text) <= width:
            return text
    return f"{lead.rstrip(': ')} +{len(items)}"


def literal(text: object, ascii_mode: bool = False) -> Text:
    """Text from a file (a kernel, report or trace name) as Textual shows it: control
    characters escaped, never read as markup (``[bold]`` stays ``[bold]``)."""
    shown = printable(text)
    return Text(ascii_safe(shown) if ascii_mode else shown)


def ascii_safe(text: str) -> str:
    """``text`` with the few non-ASCII characters rooftui prints replaced."""
    return text.translate(_ASCII)


_ASCII = str.maketrans(
    {
        "µ": "u",
        "–": "-",
        "—": "-",
        "·": "|",
        "×": "x",
        "…": "...",
        "▲": "^",
        "▼": "v",
        "→": "->",
        "Δ": "d",
        "○": "o",
        "●": "*",
    }
)
