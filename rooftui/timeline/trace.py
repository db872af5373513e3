"""A profiler trace as a few columnar tables, whatever file it came from.

Readers (``rooftui.timeline.readers``) fill a :class:`Trace`; the analyses read
it and never see the file format. Every table is a set of NumPy columns of equal
length, so a trace of millions of events costs a few dozen bytes per event and no
Python object per event. Times are seconds from the trace's first event; names
are codes into ``Trace.names`` (a kernel name is stored once, however often it ran).

Tables
    gpu          kernels, memcpys and memsets as the GPU ran them
                 start, end, kind (GpuKind), name, device, stream, correlation, bytes
    host_calls   CUDA runtime/driver calls (cudaLaunchKernel, cudaMemcpyAsync, ...)
                 start, end, thread, name, correlation
    host_ranges  operators (``aten::item``) and user ranges (``record_function``,
                 NVTX, ``ProfilerStep#N``) on CPU threads
                 start, end, thread, name, is_annotation
A GPU activity and the host call that launched it share a ``correlation`` id.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np


class GpuKind(IntEnum):
    KERNEL = 0
    MEMCPY = 1
    MEMSET = 2


class Table:
    """Named NumPy columns of one length; ``table.start`` is a column."""

    def __init__(self, **columns: np.ndarray):
        lengths = {len(values) for values in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"columns of different lengths: {lengths}")
        self.columns = columns

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["columns"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __len__(self) -> int:
        return len(next(iter(self.columns.values()), ()))

    def take(self, index: np.ndarray) -> Table:
        """The rows at ``index`` (positions or a boolean mask), as a new table."""
        return Table(**{name: values[index] for name, values in self.columns.items()})

    def sorted_by(self, *keys: str) -> Table:
        """Rows ordered by the given columns, the first most significant; "-end" descends."""
        columns = [
            -self.columns[key[1:]] if key.startswith("-") else self.columns[key] for key in reversed(keys)
        ]
        return self.take(np.lexsort(tuple(columns)))


class TableBuilder:
    """Appends rows into typed ``array.array`` columns: 8 bytes a value, no objects."""

    def __init__(self, **typecodes: str):
        self._arrays = {name: array(code) for name, code in typecodes.items()}
        self.append = self._make_append()

    def _make_append(self):
        appenders = [values.append for values in self._arrays.values()]

        def append(*row) -> None:
            for add, value in zip(appenders, row, strict=True):
                add(value)

        return append

    def build(self) -> Table:
        return Table(
            **{
                name: np.frombuffer(values, dtype=values.typecode)
                if len(values)
                else np.array([], dtype=values.typecode)
                for name, values in self._arrays.items()
            }
        )


def gpu_builder() -> TableBuilder:
    return TableBuilder(
        start="d", end="d", kind="b", name="l", device="l", stream="q", correlation="q", bytes="q"
    )


def host_call_builder() -> TableBuilder:
    return TableBuilder(start="d", end="d", thread="q", name="l", correlation="q")


def host_range_builder() -> TableBuilder:
    return TableBuilder(start="d", end="d", thread="q", name="l", is_annotation="b")


@dataclass
class Trace:
    """One profiled run: GPU activities, host calls and host ranges (see module doc)."""

    source: str
    format: str  # "kineto-json"; an Nsight Systems reader would say "nsys-sqlite"
    names: list[str]
    gpu: Table
    host_calls: Table
    host_ranges: Table
    thread_names: dict[int, str] = field(default_factory=dict)
    device_names: dict[int, str] = field(default_factory=dict)
    skipped_events: int = 0  # events the reader could not use (no time, bad fields)

    def codes_where(self, predicate) -> np.ndarray:
        """Codes of all names for which ``predicate(name)`` holds, as an array for ``np.isin``."""
        return np.array([code for code, text in enumerate(self.names) if predicate(text)], dtype=np.int64)
