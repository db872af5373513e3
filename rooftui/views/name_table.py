"""The CLI's tables of kernels: one row per kernel, the name first and fitted to the width
left over by the other columns (``rooftui summary``'s kernel and instruction tables)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rooftui.views.text import short_names


def print_name_table(
    console: Console,
    titles: Sequence[str],
    lines: Sequence[Sequence[Text | str]],
    names: pd.Series,
    left: Iterable[str] = (),
    title: str | None = None,
) -> dict[str, str]:
    """Print ``lines`` under ``titles``; each line's first cell is its kernel's whole name.
    Every other column is as wide as its longest cell, so no number is ever cut; the name
    gets the rest of the console's width (no more than its longest, no less than 9) and is
    shortened to it by the one shortener. Columns in ``left`` are left-aligned. Returns
    ``{name: shown}``."""
    widths = [max([len(heading)] + [len(line[i]) for line in lines]) for i, heading in enumerate(titles)]
    others = sum(width + 1 for width in widths[1:])
    name_width = max(9, min(widths[0], console.width - others - 1))
    shown = short_names(names, name_width)  # the operator, types and tile, told apart
    table = Table(
        title=title,
        title_justify="left",
        box=None,
        pad_edge=False,
        header_style="bold",
        show_edge=False,
        collapse_padding=True,
        padding=(0, 1, 0, 0),
    )
    table.add_column(titles[0], overflow="ellipsis", no_wrap=True, width=name_width)
    left = set(left)
    for heading, width in zip(titles[1:], widths[1:]):
        table.add_column(heading, justify="left" if heading in left else "right", no_wrap=True, width=width)
    for line, name in zip(lines, names):
        table.add_row(Text(shown[name]), *line[1:])
    console.print(table, width=max(console.width, name_width + others + 1), crop=False)
    return shown
