"""Trace readers: each turns one file format into a :class:`~rooftui.timeline.trace.Trace`.

A reader is any object with ``format`` (a short name), ``can_read(path)`` and
``read(path) -> Trace`` that raises :class:`~rooftui.errors.InputError` for a file
it cannot use. Only PyTorch profiler (Kineto) JSON is read today. An Nsight
Systems reader would take ``nsys export --type sqlite`` output (the
CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _RUNTIME and NVTX_EVENTS tables map onto
the same three tables, correlated by ``correlationId``) and be added to
``READERS``; it is not built, because nsys cannot produce reports on the GPU
machines this project has, so there is no real export to test it on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from rooftui.errors import InputError
from rooftui.ingest.files import check_readable, path_error
from rooftui.timeline.readers.kineto import KinetoJsonReader
from rooftui.timeline.trace import Trace


class TraceReader(Protocol):
    format: str

    def can_read(self, path: Path) -> bool: ...

    def read(self, path: Path) -> Trace: ...


READERS: list[TraceReader] = [KinetoJsonReader()]


def read_trace(path: str | Path) -> Trace:
    """Read a trace file with the first reader that takes it; InputError if none can."""
    path = Path(path)
    try:
        is_folder = path.is_dir()
    except OSError as err:  # a name too long, a folder without permission
        raise path_error(err, path) from None
    if is_folder:
        raise InputError("is a folder, not a trace file", path=path)
    check_readable(path, empty_fix="pass the trace file torch.profiler wrote")
    for reader in READERS:
        if reader.can_read(path):
            return reader.read(path)
    known = ", ".join(suffix for reader in READERS for suffix in getattr(reader, "suffixes", ()))
    raise InputError(f"not a trace file rooftui can read (expected {known})", path=path)
