"""The launch floor: the shortest time a kernel launch takes on this GPU.

Two numbers, both from ``cuda/empty_kernel.cu``:

- ``empty_kernel_s``: the empty kernel's duration as Nsight Compute reports it
  (``gpu__time_duration.sum`` under ``ncu --clock-control none``, median over
  ``NCU_LAUNCHES`` launches). No kernel in an ncu report can be shorter, so it is
  the floor under each launch's achievable time (``rooftui advise``). Needs
  ``ncu`` on the PATH; without it the value is absent and ``note`` says why.
- ``back_to_back_s``: the interval between consecutive launches of the empty
  kernel on one stream, measured with CUDA events around ``BACK_TO_BACK_LAUNCHES``
  launches queued behind a spinning kernel (so the GPU, not Python, sets the
  pace); the median over ``REPEATS`` such runs. A step of N launches on one
  stream takes at least N of these.

Written to the ceilings file as its top-level ``launch_floor`` object.
"""

from __future__ import annotations

import csv
import io
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

EMPTY_SOURCE = "empty_kernel.cu"
BACK_TO_BACK_LAUNCHES = 1000  # below the driver's queue depth, so no launch blocks the host
SPIN_NS = 50_000_000  # 50 ms: longer than Python takes to queue the launches
REPEATS = 5
NCU_LAUNCHES = 50
NCU_METRIC = "gpu__time_duration.sum"


@dataclass(frozen=True)
class LaunchFloor:
    """What ``measure`` writes under ``launch_floor`` in the ceilings file."""

    empty_kernel_s: float | None  # ncu's gpu__time_duration.sum of an empty kernel
    back_to_back_s: float  # CUDA-event interval between queued empty launches
    note: str  # how each number was taken, or why the ncu one is missing

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.empty_kernel_s is not None:
            out["empty_kernel_s"] = self.empty_kernel_s
            out["empty_kernel_source"] = (
                f"ncu --clock-control none --metrics {NCU_METRIC}, empty kernel "
                f"(rooftui/measure/cuda/{EMPTY_SOURCE}:empty_kernel), median of {NCU_LAUNCHES} launches"
            )
        out["back_to_back_s"] = self.back_to_back_s
        out["back_to_back_source"] = (
            f"CUDA events around {BACK_TO_BACK_LAUNCHES} empty launches queued on one stream "
            f"behind a {SPIN_NS // 1_000_000} ms spin kernel, median of {REPEATS} runs"
        )
        out["note"] = self.note
        return out


def back_to_back_interval(gpu: Any) -> list[float]:
    """Seconds between consecutive empty launches, one value per repeat."""
    module = gpu.compile(EMPTY_SOURCE, {})
    empty, spin = module.get_kernel("empty_kernel"), module.get_kernel("spin_kernel")
    for _ in range(20):  # load the module and warm the launch path
        gpu.launch(empty, 1, 32)
    intervals = []
    for _ in range(REPEATS):
        gpu.launch(spin, 1, 32, np.uint64(SPIN_NS))
        start = gpu.timing_event()
        for _ in range(BACK_TO_BACK_LAUNCHES):
            gpu.launch(empty, 1, 32)
        end = gpu.timing_event()
        end.sync()
        intervals.append((end - start) / 1e3 / BACK_TO_BACK_LAUNCHES)
    return intervals


def ncu_empty_kernel_duration(device_index: int) -> tuple[float | None, str]:
    """The empty kernel's ``gpu__time_duration.sum`` under ncu, or None and why not."""
    ncu = shutil.which("ncu")
    if ncu is None:
        return None, "ncu is not on the PATH: the empty kernel's ncu duration was not measured"
    command = [
        ncu, "--clock-control", "none", "--metrics", NCU_METRIC, "--csv", "--print-units", "base",
        "--kernel-name", "empty_kernel",
        sys.executable, "-m", "rooftui.measure.launch_floor", str(device_index),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    values = ncu_durations(done.stdout)
    if done.returncode != 0 or not values:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return None, f"ncu failed (exit {done.returncode}): {tail[0]}"
    return statistics.median(values), f"ncu: {len(values)} launches profiled"


SECONDS_PER = {
    "nsecond": 1e-9,
    "ns": 1e-9,
    "usecond": 1e-6,
    "us": 1e-6,
    "msecond": 1e-3,
    "ms": 1e-3,
    "second": 1.0,
    "s": 1.0,
}


def ncu_durations(ncu_csv: str) -> list[float]:
    """Seconds from the gpu__time_duration.sum rows of ncu's ``--csv`` output (any time unit)."""
    start = ncu_csv.find('"ID"')
    if start < 0:
        return []
    rows = csv.DictReader(io.StringIO(ncu_csv[start:]))
    return [
        float(row["Metric Value"].replace(",", "")) * SECONDS_PER[row.get("Metric Unit", "")]
        for row in rows
        if row.get("Metric Name") == NCU_METRIC and row.get("Metric Unit", "") in SECONDS_PER
    ]


def measure_launch_floor(gpu: Any) -> LaunchFloor:
    """Both floors for an opened GPU (``rooftui.measure.gpu.Gpu``)."""
    intervals = back_to_back_interval(gpu)
    empty_s, how = ncu_empty_kernel_duration(gpu.info.index)
    spread = f"{min(intervals) * 1e6:.3f}-{max(intervals) * 1e6:.3f} us"
    return LaunchFloor(empty_s, statistics.median(intervals), f"{how}; back-to-back runs {spread}")


def _probe(device_index: int) -> None:
    """What ncu profiles: NCU_LAUNCHES empty launches, one at a time."""
    from rooftui.measure.gpu import Gpu

    gpu = Gpu(device_index)
    empty = gpu.compile(EMPTY_SOURCE, {}).get_kernel("empty_kernel")
    for _ in range(NCU_LAUNCHES):
        gpu.launch(empty, 1, 32)
    gpu.stream.sync()


if __name__ == "__main__":
    _probe(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
