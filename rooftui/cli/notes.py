"""The notes a text command prints after its output, on stderr: at a terminal, wrapped
between words to its width (the terminal would break them mid-word); elsewhere one line
per note."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterable

import click

from rooftui.views.text import printable


def is_terminal() -> bool:
    """Whether stderr is a terminal someone reads (not a log, a pipe or a test's capture)."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def note_width() -> int | None:
    """The width to wrap notes at on a terminal: COLUMNS, else the terminal's own; None
    where stderr is no terminal, so that a log keeps one line per note (for grep)."""
    if not is_terminal():
        return None
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return None


def note_lines(note: str, width: int) -> list[str]:
    """``note: ...`` broken between words into lines of at most ``width`` characters (a
    word longer than a line, such as a path, stays whole on its own line); the lines
    after the first are indented under the note's text."""
    return textwrap.wrap(
        printable(note),
        max(width - 1, 20),
        initial_indent="note: ",
        subsequent_indent="      ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def echo_notes(notes: Iterable[str]) -> None:
    """Each of ``notes`` on stderr: wrapped to the terminal's width, or one line each."""
    width = note_width()
    for note in notes:
        lines = note_lines(str(note), width) if width else [f"note: {printable(note)}"]
        click.echo("\n".join(lines), err=True)
