"""Text for the explorer's screens: fitting parts into a width, names from files shown
literally, ASCII stand-ins. Numbers are formatted by ``rooftui.views.formats`` (the one
place), with ``missing=MISSING``: the explorer shows a missing value as a dash."""

from __future__ import annotations

from rich.text import Text

from rooftui.views.text import printable

# What the explorer shows for a value that is missing: formats' ``missing=`` argument.
MISSING = "–"


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
