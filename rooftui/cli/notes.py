"""The notes a text command prints after its output, on stderr, wrapped at word boundaries."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterable

import click

from rooftui.views.text import printable

# Where stderr is no terminal and COLUMNS is unset: as wide as `summary`'s piped table.
PIPED_NOTE_WIDTH = 120


def note_width() -> int:
    """COLUMNS, else the width of the terminal stderr writes to, else ``PIPED_NOTE_WIDTH``."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return PIPED_NOTE_WIDTH


def note_lines(note: str, width: int) -> list[str]:
    """``note: ...`` broken between words into lines of at most ``width`` characters (a
    word longer than a line, such as a path, stays whole on its own line); the lines
    after the first are indented under the note's text."""
    return textwrap.wrap(printable(note), max(width - 1, 20), initial_indent="note: ",
                         subsequent_indent="      ", break_long_words=False, break_on_hyphens=False)


def echo_notes(notes: Iterable[str]) -> None:
    """Each of ``notes`` on stderr, wrapped to ``note_width``."""
    width = note_width()
    for note in notes:
        click.echo("\n".join(note_lines(str(note), width)), err=True)
