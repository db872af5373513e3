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

import gzip
import io
import re
import zlib
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from rooftui.errors import InputError
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
        if path.stat().st_size == 0:
            raise InputError("the file is empty", path=path)
        try:
            with _open_text(path) as stream:
                return _read_events(stream, str(path))
        except JsonStreamError as err:
            what = "the trace is truncated" if err.truncated else "not a Kineto JSON trace"
            raise InputError(f"{what}: {err}", path=path) from None
        except (gzip.BadGzipFile, EOFError, zlib.error) as err:
            raise InputError(f"the gzip file is damaged or truncated ({err})", path=path) from None
        except UnicodeDecodeError:
            raise InputError("not a Kineto JSON trace: not UTF-8 text", path=path) from None
        except OSError as err:  # unreadable: permissions, I/O errors
            raise InputError(f"cannot read it ({err.strerror or err})", path=path) from None


def _open_text(path: Path) -> TextIO:
    with path.open("rb") as probe:
        magic = probe.read(2)
    raw = gzip.open(path, "rb") if magic == b"\x1f\x8b" else path.open("rb")
    return io.TextIOWrapper(raw, encoding="utf-8-sig")  # a BOM, if an editor added one


def _read_events(stream: TextIO, source: str) -> Trace:
    names: dict[str, int] = {}
    intern = names.setdefault
    thread_codes: dict[Any, int] = {}
    gpu, calls, ranges = gpu_builder(), host_call_builder(), host_range_builder()
    add_gpu, add_call, add_range = gpu.append, calls.append, ranges.append
    thread_names: dict[int, str] = {}
    device_names: dict[int, str] = {}
    skipped = 0

    def thread_id(tid: Any) -> int:
        # Kineto's tids are ints; some exporters write strings ("stream 7").
        if isinstance(tid, int):
            return tid
        return thread_codes.setdefault(tid, -1 - len(thread_codes))

    other_keys: dict[str, Any] = {}
    for event in iter_array_items(stream, "traceEvents", other_keys):
        try:
            phase = event.get("ph")
            if phase != "X":
                if phase == "M":
                    _note_metadata(event, thread_id, thread_names, device_names)
                continue
            category = event.get("cat")
            start = event["ts"]
            end = start + event.get("dur", 0)
            gpu_kind = _GPU_CATEGORIES.get(category)
            if gpu_kind is not None:
                args = event.get("args", {})
                add_gpu(
                    start,
                    end,
                    gpu_kind,
                    intern(event["name"], len(names)),
                    _number(args.get("device", event.get("pid", 0))),
                    _number(args.get("stream", event.get("tid", 0))),
                    int(args.get("correlation", -1)),
                    int(args.get("bytes", -1)),
                )
            elif category in _HOST_CALL_CATEGORIES:
                add_call(
                    start,
                    end,
                    thread_id(event.get("tid", 0)),
                    intern(event["name"], len(names)),
                    int(event.get("args", {}).get("correlation", -1)),
                )
            elif category in _OPERATOR_CATEGORIES or category in _ANNOTATION_CATEGORIES:
                add_range(
                    start,
                    end,
                    thread_id(event.get("tid", 0)),
                    intern(event["name"], len(names)),
                    category in _ANNOTATION_CATEGORIES,
                )
        except (KeyError, TypeError, ValueError, AttributeError):
            skipped += 1

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


def _number(value: Any) -> int:
    """An id Kineto writes as 7, "7" or "stream 7": its trailing number."""
    if isinstance(value, int):
        return value
    digits = _TRAILING_NUMBER.search(str(value))
    if digits is None:
        raise ValueError(f"no number in {value!r}")
    return int(digits.group())


def _note_metadata(event: dict, thread_id, thread_names: dict, device_names: dict) -> None:
    args = event.get("args") or {}
    if event.get("name") == "thread_name" and "name" in args:
        thread_names[thread_id(event.get("tid", 0))] = str(args["name"])
    elif event.get("name") == "process_name" and isinstance(event.get("pid"), int):
        name = str(args.get("name", ""))
        if name.startswith("GPU"):
            device_names.setdefault(event["pid"], name)


def _device_names_from_properties(other_keys: dict) -> dict[int, str]:
    found = {}
    for props in other_keys.get("deviceProperties") or []:
        if isinstance(props, dict) and "id" in props and "name" in props:
            found[int(props["id"])] = str(props["name"])
    return found


def _earliest(*columns: np.ndarray) -> float:
    firsts = [float(values.min()) for values in columns if len(values)]
    return min(firsts) if firsts else 0.0
