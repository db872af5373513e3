"""The CLI's tables of kernels: one row per kernel, the name first and fitted to the width
left over by the other columns (``rooftui summary``'s kernel and instruction tables)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rooftui.views.text import short_names

MIN_NAME_WIDTH = 9  # the fewest columns a kernel's name is cut to


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
    shortened to it by the one shortener. Where the console is too narrow for every column
    whole, the last columns are left out, whole, and a line under the table names them
    (rich would narrow them instead, cutting numbers to "1…"). Columns in ``left`` are
    left-aligned. Returns ``{name: shown}``."""
    widths = [max([len(heading)] + [len(line[i]) for line in lines]) for i, heading in enumerate(titles)]
    kept = len(titles)
    while kept > 2 and MIN_NAME_WIDTH + sum(width + 1 for width in widths[1:kept]) > console.width:
        kept -= 1
    left_out = list(titles[kept:])
    titles, widths, lines = titles[:kept], widths[:kept], [line[:kept] for line in lines]
    shown = _print_whole_columns(console, titles, lines, names, widths, left, title)
    if left_out:
        console.print(
            Text(
                f"left out at {console.width} columns, too few for them whole: {', '.join(left_out)}"
                " (--width 0: no limit; --format csv: every column)",
                style="dim",
            )
        )
    return shown


def _print_whole_columns(
    console: Console,
    titles: Sequence[str],
    lines: Sequence[Sequence[Text | str]],
    names: pd.Series,
    widths: Sequence[int],
    left: Iterable[str],
    title: str | None,
) -> dict[str, str]:
    """``print_name_table``'s table of the columns that fit (``widths``: each one's longest cell)."""
    others = sum(width + 1 for width in widths[1:])
    name_width = max(MIN_NAME_WIDTH, min(widths[0], console.width - others - 1))
    shown = short_names(names, name_width)  # the operator, types and tile, told apart
    rows = [[Text(shown[name]), *line[1:]] for line, name in zip(lines, names)]
    column_widths = [name_width, *widths[1:]]
    width = max(console.width, name_width + others + 1)
    left = set(left)
    # Wider than the console only where even the name and one column do not fit (below
    # ~15 columns: print_name_table left the rest out); rich narrows the columns there.
    fits = name_width + others <= console.width
    plain_text = _plain_table(console, titles, rows, column_widths, [t in left for t in titles[1:]])
    if fits and plain_text is not None and title is not None:
        plain_text = _plain_title(console, title, name_width + others, plain_text)
    if fits and plain_text is not None:
        console.print(Text(plain_text), width=width, crop=False, no_wrap=True)
        return shown
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
    for heading, column_width in zip(titles[1:], widths[1:]):
        table.add_column(
            heading, justify="left" if heading in left else "right", no_wrap=True, width=column_width
        )
    for row in rows:
        table.add_row(*row)
    console.print(table, width=width, crop=False)
    return shown


def _plain_table(
    console: Console,
    titles: Sequence[str],
    rows: Sequence[Sequence[Text | str]],
    widths: Sequence[int],
    left: Sequence[bool],
) -> str | None:
    """The table's lines as rich draws them on a console that writes no styles (a pipe, a
    file, NO_COLOR's plain text: ``summary`` in tests and scripts), without rich's ~0.1 ms
    per cell; None where rich must draw it: a console that writes or records styles, or a
    cell that is not plain text of one column per character within its column's width
    (rich would wrap, cut or read markup there). The name is left-justified, each other
    column right-justified (a right-justified cell loses its trailing spaces, as rich's
    justify does) unless ``left`` says so; one space between columns, none after the last."""
    if console.color_system is not None or console.record:
        return None
    cells: list[list[str]] = []
    for row in [list(titles), *rows]:
        texts = []
        for cell in row:
            text = cell.plain if isinstance(cell, Text) else cell
            if not isinstance(cell, Text) and ("[" in text or ":" in text):  # markup, emoji
                return None
            texts.append(text)
        cells.append(texts)
    lines = []
    for texts in cells:
        parts = []
        for i, (text, width) in enumerate(zip(texts, widths)):
            if i and not left[i - 1]:
                text = text.rstrip()
            if len(text) > width or not _one_column_each(text):
                return None
            parts.append(text.ljust(width) if i == 0 or left[i - 1] else text.rjust(width))
        lines.append(" ".join(parts))
    return "\n".join(lines)


def _plain_title(console: Console, title: str, width: int, table: str) -> str | None:
    """``table`` under ``title`` as rich draws a table's title: left-justified, padded to
    the table's ``width`` (not where the console soft-wraps); None where rich would wrap
    it or read markup in it."""
    if len(title) > width or "[" in title or ":" in title or not _one_column_each(title):
        return None
    return (title if console.soft_wrap else title.ljust(width)) + "\n" + table


def _one_column_each(text: str) -> bool:
    """Whether every character of ``text`` is printable and one terminal column wide."""
    return text.isascii() and text.isprintable() or (text.isprintable() and cell_len(text) == len(text))
