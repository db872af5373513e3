"""The few exception types rooftui raises for problems a user can fix.

Each carries a one-line, user-facing message; the CLI prints it and exits with
code 2 (see ``rooftui.cli``). Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from pathlib import Path


class RooftuiError(Exception):
    """A problem the user can fix; ``str(err)`` is the whole message."""

    exit_code = 2

    def __init__(self, message: str, path: str | Path | None = None, fix: str | None = None):
        self.path = None if path is None else str(path)
        self.fix = fix
        parts = [f"{self.path}: {message}" if self.path else message]
        if fix:
            parts.append(fix)
        super().__init__(" — ".join(parts))


class InputError(RooftuiError):
    """An input file is missing, unreadable, truncated or of the wrong kind."""


class MissingMetricsError(RooftuiError):
    """A report lacks metrics that nothing else can stand in for."""


class CeilingsError(RooftuiError):
    """A ceilings file is malformed."""


class GpuUnavailableError(RooftuiError):
    """A command that needs a GPU, CUDA or ncu found none."""
