"""Whether a full-screen app can run: Textual reads keys from stdin and draws on stderr.

Without a terminal (a pipe, a batch job, cron) an app would write its screen into the
pipe and wait for keys that never come; rooftui says so in one line instead.
"""

from __future__ import annotations

import os
from typing import Any

from rooftui.errors import RooftuiError


def has_terminal() -> bool:
    """stdin and stderr are both a terminal (file descriptors 0 and 2)."""
    return os.isatty(0) and os.isatty(2)


def require_terminal(what: str, instead: str) -> None:
    """Refuse to start ``what`` without a terminal: it would draw into a pipe or a file and
    wait for keys that never come."""
    if not has_terminal():
        raise RooftuiError(
            f"{what} needs a terminal (stdin and stderr are not one)",
            fix=f"run it in a terminal, or use {instead} for text output",
        )


def run_full_screen(app: Any, what: str, instead: str) -> None:
    """``app.run()`` for a Textual app, refused without a terminal (checked after the
    command's own arguments and files, so their errors come first)."""
    from textual.app import App

    if isinstance(app, App):
        require_terminal(what, instead)
    app.run()
