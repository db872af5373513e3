"""Read a PyTorch profiler (Kineto) chrome trace, ``.json`` or ``.json.gz``, streamed.

Written by ``torch.profiler.profile(...).export_chrome_trace`` and
``tensorboard_trace_handler``. The events this reader keeps (``ph: "X"``):

============================  =======================================================
``cat``                       becomes
============================  =======================================================
kernel, gpu_memcpy,           GPU activities; ``pid`` is the device, ``args.stream``
gpu_memset                    the stream, ``args.correlation`` links the host call;
                              a memcpy's name says its direction and host memory,
                              "Memcpy DtoH (Device -> Pageable)"
cuda_runtime, cuda_driver     host calls (cudaLaunchKernel, cudaMemcpyAsync,
                              cudaStreamSynchronize, ...) with ``args.correlation``
cpu_op, user_annotation       host ranges: operators and ``record_function``/NVTX
                              ranges, ``ProfilerStep#N`` among them
============================  =======================================================

Older traces (PyTorch 1.8–1.10) say Kernel/Memcpy/Memset/Runtime/Operator; they
are read the same way. Flow events (``ph: "s"/"f"``, cat ``ac2g``) repeat the
correlation ids and are not needed. ``gpu_user_annotation`` (ranges projected
onto GPU streams), ``python_function`` and the rest are skipped.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from rooftui.errors import InputError, reading
from rooftui.ingest.files import check_readable, limit_from_env, open_binary
from rooftui.timeline.readers.json_stream import JsonStreamError, iter_array_items
from rooftui.timeline.trace import (
    GpuKind,
    Trace,
    gpu_builder,
    host_call_builder,
    host_range_builder,
)

_GPU_CATEGORIES = {
    "kernel": GpuKind.KERNEL,
    "gpu_memcpy": GpuKind.MEMCPY,
    "gpu_memset": GpuKind.MEMSET,
    "Kernel": GpuKind.KERNEL,
    "Memcpy": GpuKind.MEMCPY,
    "Memset": GpuKind.MEMSET,
}
_HOST_CALL_CATEGORIES = {"cuda_runtime", "cuda_driver", "Runtime"}
_OPERATOR_CATEGORIES = {"cpu_op", "Operator"}
_ANNOTATION_CATEGORIES = {"user_annotation"}
_TRAILING_NUMBER = re.compile(r"\d+$")


class KinetoJsonReader:
    """Reads Kineto chrome-trace JSON; see the module docstring for what it keeps."""

    format = "kineto-json"
    suffixes = (".json", ".json.gz")

    def can_read(self, path: Path) -> bool:
        return path.name.endswith(self.suffixes)

    def read(self, path: Path) -> Trace:
        check_readable(path, empty_fix=_FIX)
        with reading(path, fix=_FIX):
            try:
                with _open_text(path) as stream:
                    return _read_events(stream, str(path))
            except JsonStreamError as err:
                what = "the trace is truncated" if err.truncated else "not a Kineto JSON trace"
                raise InputError(f"{what}: {err}", path, _FIX) from None
            except _TraceTooLarge as err:
                raise InputError(
                    str(err),
                    path,
                    f"set {MAX_EVENTS_VARIABLE} to a larger number if "
                    "the trace is genuine (about 120 bytes of memory per event)",
                ) from None
            except UnicodeDecodeError:
                raise InputError("not a Kineto JSON trace: not UTF-8 text", path, _FIX) from None


_FIX = "pass the .json or .json.gz that torch.profiler wrote, copied whole"

# Memory is what bounds a trace: each event kept costs about 100-120 bytes at the peak
# (its row in the columns, the sorted copy and the sort index: a valid trace of 4.9
# million kernel events peaks at 602 MiB, README), so 5 million events stay under 1 GB. PyTorch's
# traces hold about 330 bytes of JSON per kept event (sample_data/timeline), so the
# default takes traces up to about 1.6 GB of JSON.
DEFAULT_MAX_EVENTS = 5_000_000
MAX_EVENTS_VARIABLE = "ROOFTUI_MAX_TRACE_EVENTS"
# Distinct event names are kept whole, once each (~100 bytes each besides the text): a
# trace has a few thousand (kernels, operators, ranges), a few MB in all.
MAX_NAMES = 1_000_000
MAX_NAME_CHARS = 64 << 20


def max_trace_events() -> int:
    """The most events (rows and metadata) read from one trace: ``ROOFTUI_MAX_TRACE_EVENTS``."""
    return limit_from_env(MAX_EVENTS_VARIABLE, DEFAULT_MAX_EVENTS)


class _TraceTooLarge(Exception):
    """More events or name text than the limits above; ``read`` names the file."""


def _open_text(path: Path) -> TextIO:
    """The trace as text, gzip'd or not by its content; streamed and capped (``ingest.files``)."""
    with open_binary(path, compressed_as="") as probe:
        magic = probe.read(2)
    raw = open_binary(path, compressed_as=".gz" if magic == b"\x1f\x8b" else "")
    return io.TextIOWrapper(raw, encoding="utf-8-sig")  # a BOM, if an editor added one


def _read_events(stream: TextIO, source: str) -> Trace:
    names: dict[str, int] = {}
    name_chars = 0
    kept, limit = 0, max_trace_events()

    def keep_text(text: str) -> str:
        """Count text kept for the whole read (names, thread ids and names) against the limits."""
        nonlocal name_chars
        name_chars += len(text)
        if name_chars > MAX_NAME_CHARS or len(names) >= MAX_NAMES:
            raise _TraceTooLarge(
                f"it has more than {MAX_NAMES:,} distinct event names or "
                f"{MAX_NAME_CHARS:,} characters of names, rooftui's limit (a "
                "damaged or generated trace)"
            )
        return text

    def intern(name: str) -> int:
        code = names.get(name)
        if code is None:
            code = names[keep_text(name)] = len(names)
        return code

    thread_codes: dict[Any, int] = {}
    gpu, calls, ranges = gpu_builder(), host_call_builder(), host_range_builder()
    add_gpu, add_call, add_range = gpu.append, calls.append, ranges.append
    thread_names: dict[int, str] = {}
    device_names: dict[int, str] = {}
    skipped = 0

    def thread_id(tid: Any) -> int:
        # Kineto's tids are ints; some exporters write strings ("stream 7").
        if isinstance(tid, int) and not isinstance(tid, bool):
            return _int64(tid)
        code = thread_codes.get(tid)
        if code is None:
            keep_text(str(tid))
            code = thread_codes[tid] = -1 - len(thread_codes)
        return code

    other_keys: dict[str, Any] = {}
    for event in iter_array_items(stream, "traceEvents", other_keys):
        try:
            phase = event.get("ph")
            if phase != "X" and phase != "M":
                continue  # flows, instants, counters: nothing is kept of them
            kept += 1  # events that may take memory: rows, and metadata (thread/device names)
            if kept > limit:
                raise _TraceTooLarge(f"holds more than {limit:,} trace events, rooftui's limit for one trace")
            if phase == "M":
                _note_metadata(event, thread_id, thread_names, device_names, keep_text)
                continue
            category = event.get("cat")
            start, end = _span(event)
            gpu_kind = _GPU_CATEGORIES.get(category)
            if gpu_kind is not None:
                args = event.get("args", {})
                add_gpu(
                    start,
                    end,
                    gpu_kind,
                    intern(_name(event)),
                    _number(args.get("device", event.get("pid", 0))),
                    _number(args.get("stream", event.get("tid", 0))),
                    _int64(args.get("correlation", -1)),
                    _int64(args.get("bytes", -1)),
                )
            elif category in _HOST_CALL_CATEGORIES:
                add_call(
                    start,
                    end,
                    thread_id(event.get("tid", 0)),
                    intern(_name(event)),
                    _int64(event.get("args", {}).get("correlation", -1)),
                )
            elif category in _OPERATOR_CATEGORIES or category in _ANNOTATION_CATEGORIES:
                add_range(
                    start,
                    end,
                    thread_id(event.get("tid", 0)),
                    intern(_name(event)),
                    category in _ANNOTATION_CATEGORIES,
                )
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
            skipped += 1  # every value is checked before a row is appended: no half rows

    gpu_table, call_table, range_table = gpu.build(), calls.build(), ranges.build()
    origin = _earliest(gpu_table.start, call_table.start, range_table.start)
    for table in (gpu_table, call_table, range_table):
        # Kineto writes microseconds; keep seconds from the first event (in place:
        # the columns are views of the builder's arrays, no copy needed).
        for column in (table.start, table.end):
            column -= origin
            column *= 1e-6
    device_names.update(_device_names_from_properties(other_keys))  # "NVIDIA H200" > "GPU 0"
    return Trace(
        source=source,
        format=KinetoJsonReader.format,
        names=list(names),
        gpu=gpu_table.sorted_by("start"),
        host_calls=call_table.sorted_by("start"),
        # a range before the ranges it contains, even when they start together
        host_ranges=range_table.sorted_by("thread", "start", "-end"),
        thread_names=thread_names,
        device_names=device_names,
        skipped_events=skipped,
    )


# Longest event kept, in Kineto's microseconds (~28 hours): a longer or negative
# duration is damage, and one such event would make every idle share absurd.
MAX_EVENT_US = 1e11


def _span(event: dict) -> tuple[float, float]:
    """An event's (start, end) in microseconds; ValueError/TypeError for unusable times."""
    ts, dur = event["ts"], event.get("dur", 0)
    for value in (ts, dur):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("a time is not a number")
    start, length = float(ts), float(dur)
    if not (math.isfinite(start) and abs(start) < 2**53 and 0 <= length <= MAX_EVENT_US):
        raise ValueError("a time out of range")
    return start, start + length


def _name(event: dict) -> str:
    name = event["name"]
    if not isinstance(name, str):
        raise TypeError("a name that is not a string")
    return name


def _int64(value: Any) -> int:
    """An integer field that fits the int64 columns (OverflowError otherwise)."""
    if isinstance(value, bool):
        raise TypeError("a boolean where a number belongs")
    number = int(value)
    if not -(2**63) <= number < 2**63:
        raise OverflowError("an integer beyond int64")
    return number


def _number(value: Any) -> int:
    """An id Kineto writes as 7, "7" or "stream 7": its trailing number."""
    if isinstance(value, int):
        return _int64(value)
    digits = _TRAILING_NUMBER.search(str(value))
    if digits is None:
        raise ValueError(f"no number in {value!r}")
    return _int64(digits.group())


def _note_metadata(event: dict, thread_id, thread_names: dict, device_names: dict, keep_text) -> None:
    args = event.get("args") or {}
    if event.get("name") == "thread_name" and "name" in args:
        thread_names[thread_id(event.get("tid", 0))] = keep_text(str(args["name"]))
    elif event.get("name") == "process_name" and isinstance(event.get("pid"), int):
        name = str(args.get("name", ""))
        if name.startswith("GPU") and event["pid"] not in device_names:
            device_names[event["pid"]] = keep_text(name)


def _device_names_from_properties(other_keys: dict) -> dict[int, str]:
    found = {}
    for props in other_keys.get("deviceProperties") or []:
        if isinstance(props, dict) and "id" in props and "name" in props:
            try:  # an id that is no number ("a", a 5,000-digit one) names no device
                found[_number(props["id"])] = str(props["name"])
            except (TypeError, ValueError, OverflowError):
                continue
    return found


def _earliest(*columns: np.ndarray) -> float:
    firsts = [float(values.min()) for values in columns if len(values)]
    return min(firsts) if firsts else 0.0
