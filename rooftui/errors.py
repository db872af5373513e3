"""The few exception types rooftui raises for problems a user can fix.

Each carries a one-line, user-facing message; the CLI prints it and exits with
code 2 (see ``rooftui.cli``). ``reading(path)`` turns what a damaged input makes the
libraries raise (decompression, decoding, CSV, recursion, OS errors) into them. Anything
else is a bug: the CLI's last-resort handler (``rooftui.cli.errors``) prints one line and
asks for a report.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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


# What a damaged or hostile input can make the standard library and pandas raise
# while a reader works on it; ``reading`` turns each into one InputError line.
def _input_failures() -> tuple[type[BaseException], ...]:
    import csv
    import lzma
    import zlib

    failures: list[type[BaseException]] = [
        OSError,
        EOFError,
        lzma.LZMAError,
        zlib.error,
        UnicodeError,
        csv.Error,
        RecursionError,
        OverflowError,
        MemoryError,
    ]
    try:
        from pandas.errors import ParserError

        failures.append(ParserError)
    except ImportError:  # pandas is a dependency; this only keeps errors.py import-light
        pass
    return tuple(failures)


@contextmanager
def reading(
    path: str | Path,
    error: type[RooftuiError] | None = None,
    fix: str = "check the file is the one you meant and was copied whole",
) -> Iterator[None]:
    """Turn what a damaged input can raise inside the block into one ``error`` line naming ``path``.

    RooftuiErrors pass through. Anything else (a ValueError from our own code, say)
    is a bug and is left to the CLI's last-resort handler.
    """
    kind = error or InputError
    try:
        yield
    except RooftuiError:
        raise
    except RecursionError:
        raise kind("nested too deeply to read", path, fix) from None
    except MemoryError:
        raise kind("too large to read in the memory available", path, fix) from None
    except OSError as err:
        raise kind(f"cannot read it ({err.strerror or one_line(err)})", path, fix) from None
    except _input_failures() as err:
        raise kind(f"cannot read it ({one_line(err)})", path, fix) from None


def one_line(err: BaseException) -> str:
    """The first line of an exception's message, or its type name; at most 200 characters."""
    text = str(err).strip()
    line = text.splitlines()[0] if text else type(err).__name__
    return line if len(line) <= 200 else line[:199] + "…"


class OutputError(RooftuiError):
    """An output file cannot be written where asked (missing folder, no room, an input)."""
