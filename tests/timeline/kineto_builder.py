"""Build small traces in the PyTorch profiler's (Kineto's) chrome-trace format.

The real sample traces (sample_data/timeline) test the findings end to end; these
hand-made ones pin exact numbers and the edge cases (no steps, lost launches,
bad files). Events carry the fields Kineto writes: ``ph``/``cat``/``name``/
``pid``/``tid``/``ts``/``dur`` in microseconds, ``args.correlation`` on GPU
activities and the runtime calls that launched them, ``args["External id"]``
linking runtime calls to their operator, ``ac2g`` flow events, metadata events.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

PID = 4242  # the training process
MAIN = 4242  # its main thread
DEVICE = 0
STREAM = 7
ORIGIN_US = 1_700_000_000_000.0  # Kineto writes absolute microseconds


class KinetoTraceBuilder:
    def __init__(self):
        self.events: list[dict] = [
            {
                "name": "process_name",
                "ph": "M",
                "ts": ORIGIN_US,
                "pid": PID,
                "tid": 0,
                "args": {"name": "python3"},
            },
            {
                "name": "thread_name",
                "ph": "M",
                "ts": ORIGIN_US,
                "pid": PID,
                "tid": MAIN,
                "args": {"name": "thread 4242 (python3)"},
            },
            {
                "name": "process_name",
                "ph": "M",
                "ts": ORIGIN_US,
                "pid": DEVICE,
                "tid": 0,
                "args": {"name": "GPU 0"},
            },
        ]
        self._correlation = 1000
        self._external = 1

    def _x(self, cat: str, name: str, pid: int, tid: int, ts: float, dur: float, **args) -> dict:
        event = {
            "ph": "X",
            "cat": cat,
            "name": name,
            "pid": pid,
            "tid": tid,
            "ts": ORIGIN_US + ts,
            "dur": dur,
            "args": args,
        }
        self.events.append(event)
        return event

    def annotation(self, name: str, ts: float, dur: float, tid: int = MAIN) -> None:
        self._x("user_annotation", name, PID, tid, ts, dur, **{"External id": self._next_ext()})

    def op(self, name: str, ts: float, dur: float, tid: int = MAIN) -> None:
        self._x("cpu_op", name, PID, tid, ts, dur, **{"External id": self._next_ext(), "Sequence number": 0})

    def runtime(self, name: str, ts: float, dur: float, tid: int = MAIN) -> int:
        correlation = self._next_correlation()
        self._x(
            "cuda_runtime",
            name,
            PID,
            tid,
            ts,
            dur,
            cbid=211,
            correlation=correlation,
            **{"External id": self._external},
        )
        return correlation

    def kernel(
        self, name: str, launch_ts: float, ts: float, dur: float, stream: int = STREAM, tid: int = MAIN
    ) -> None:
        correlation = self.runtime("cudaLaunchKernel", launch_ts, 3.0, tid=tid)
        self._x(
            "kernel",
            name,
            DEVICE,
            stream,
            ts,
            dur,
            queued=0,
            device=DEVICE,
            context=1,
            stream=stream,
            correlation=correlation,
            grid=[1, 1, 1],
            block=[128, 1, 1],
        )
        self._flow(correlation, launch_ts, ts, stream, tid)

    def memcpy(
        self,
        name: str,
        launch_ts: float,
        launch_dur: float,
        ts: float,
        dur: float,
        nbytes: int,
        stream: int = STREAM,
        tid: int = MAIN,
    ) -> None:
        correlation = self.runtime("cudaMemcpyAsync", launch_ts, launch_dur, tid=tid)
        self._x(
            "gpu_memcpy",
            name,
            DEVICE,
            stream,
            ts,
            dur,
            device=DEVICE,
            context=1,
            stream=stream,
            correlation=correlation,
            bytes=nbytes,
            **{"memory bandwidth (GB/s)": nbytes / (dur * 1e3)},
        )
        self._flow(correlation, launch_ts, ts, stream, tid)

    def _flow(self, correlation: int, launch_ts: float, ts: float, stream: int, tid: int) -> None:
        self.events.append(
            {
                "ph": "s",
                "id": correlation,
                "pid": PID,
                "tid": tid,
                "ts": ORIGIN_US + launch_ts,
                "cat": "ac2g",
                "name": "ac2g",
            }
        )
        self.events.append(
            {
                "ph": "f",
                "id": correlation,
                "pid": DEVICE,
                "tid": stream,
                "ts": ORIGIN_US + ts,
                "cat": "ac2g",
                "name": "ac2g",
                "bp": "e",
            }
        )

    def _next_correlation(self) -> int:
        self._correlation += 1
        return self._correlation

    def _next_ext(self) -> int:
        self._external += 1
        return self._external

    def document(self) -> dict:
        return {
            "schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150e9}],
            "traceEvents": self.events,
            "traceName": "builder",
            "displayTimeUnit": "ms",
        }

    def write(self, path: Path) -> Path:
        text = json.dumps(self.document(), indent=1)
        if path.name.endswith(".gz"):
            with gzip.open(path, "wt", encoding="utf-8") as out:
                out.write(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path


def naive_step(b: KinetoTraceBuilder, number: int, t0: float) -> float:
    """One 1000 µs step in the naive pipeline's shape; returns its end.

    0–400 µs  data_loading: CPU work, then a pageable H2D copy (aten::to) that
              blocks: cudaMemcpyAsync + cudaStreamSynchronize until 400.
    400–600   forward: 4 kernels of 45 µs, back to back.
    600–800   optimizer: 20 kernels of 2 µs launched every 8 µs (launch-bound),
              then aten::item: a 4-byte pageable D2H copy + stream sync, 790–800.
    800–1000  the host does bookkeeping; the GPU is idle.
    """
    b.annotation(f"ProfilerStep#{number}", t0, 1000)
    b.annotation("data_loading", t0 + 1, 399)
    b.op("aten::to", t0 + 300, 100)
    b.op("aten::_to_copy", t0 + 301, 98)
    b.op("aten::copy_", t0 + 302, 96)
    b.memcpy("Memcpy HtoD (Pageable -> Device)", t0 + 303, 60, t0 + 310, 80, 8 << 20)
    b.runtime("cudaStreamSynchronize", t0 + 364, 33)
    b.annotation("forward", t0 + 400, 200)
    for i in range(4):
        b.op("aten::convolution", t0 + 401 + i * 5, 4)
        b.kernel("void cudnn_conv3d_kernel<float>(...)", t0 + 402 + i * 5, t0 + 410 + i * 45, 45)
    b.annotation("optimizer", t0 + 600, 200)
    for i in range(20):
        b.op("aten::add_", t0 + 600 + i * 8, 7)
        b.kernel(
            "void at::native::vectorized_elementwise_kernel<4, add>(...)",
            t0 + 601 + i * 8,
            t0 + 605 + i * 8,
            2,
        )
    b.op("aten::item", t0 + 780, 20)
    b.op("aten::_local_scalar_dense", t0 + 781, 18)
    b.memcpy("Memcpy DtoH (Device -> Pageable)", t0 + 782, 10, t0 + 790, 2, 4)
    b.runtime("cudaStreamSynchronize", t0 + 793, 5)
    return t0 + 1000


def fixed_step(b: KinetoTraceBuilder, number: int, t0: float) -> float:
    """One 500 µs step of the fixed pipeline: a pinned async copy, no item(), fused optimizer."""
    b.annotation(f"ProfilerStep#{number}", t0, 500)
    b.annotation("data_loading", t0 + 1, 10)
    b.annotation("h2d_copy", t0 + 12, 10)
    b.op("aten::to", t0 + 13, 8)
    b.memcpy("Memcpy HtoD (Pinned -> Device)", t0 + 14, 5, t0 + 20, 60, 8 << 20, stream=13)
    b.annotation("forward", t0 + 25, 200)
    for i in range(10):
        b.op("aten::convolution", t0 + 26 + i * 5, 4)
        b.kernel("void cudnn_conv3d_kernel<float>(...)", t0 + 27 + i * 5, t0 + 30 + i * 45, 45)
    b.annotation("optimizer", t0 + 300, 100)
    b.op("aten::_fused_adam_", t0 + 301, 10)
    b.kernel("void at::native::fused_adam_kernel(...)", t0 + 302, t0 + 480, 20)
    return t0 + 500


def write_naive(path: Path, steps: int = 3) -> Path:
    b = KinetoTraceBuilder()
    t = 0.0
    for number in range(steps):
        t = naive_step(b, number + 1, t)
    return b.write(path)


def write_fixed(path: Path, steps: int = 3) -> Path:
    b = KinetoTraceBuilder()
    t = 0.0
    for number in range(steps):
        t = fixed_step(b, number + 1, t)
    return b.write(path)
