"""One measurement of one GPU, start to finish, and the fan-out to several GPUs."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rooftui.errors import GpuUnavailableError
from rooftui.measure import kernels as K
from rooftui.measure.bandwidth import (
    SMEM_SOURCE,
    SWEEP_BLOCKS_PER_SM,
    SWEEP_SOURCE,
    BandwidthRunner,
    measure_shared_memory,
    working_sets,
)
from rooftui.measure.clocks import read_reported_clocks
from rooftui.measure.compute import ComputeResult, ComputeRunner, Timing
from rooftui.measure.gpu import Gpu, check_kernels
from rooftui.measure.issue_rate import ISSUE_SOURCE, IssueResult, fastest, from_fma, measure_issue_rate
from rooftui.measure.launch_floor import EMPTY_SOURCE, measure_launch_floor
from rooftui.measure.results import (
    SOURCE,
    bandwidth_ceilings,
    compute_ceiling,
    instruction_roofs,
    with_theoretical,
)
from rooftui.measure.sass import SassError
from rooftui.model.ceilings import CeilingSet, Device
from rooftui.model.instructions import SCHEDULERS_PER_SM

MiB = 1 << 20
GiB = 1 << 30


@dataclass(frozen=True)
class Plan:
    """How much a run measures: the default, or --quick."""

    timing: Timing
    per_octave: int  # sweep points per doubling of the working set
    largest_bytes: int  # the largest working set (several times the L2)
    warmup_s: float  # FMA work before measuring, so the clocks have ramped up
    is_quick: bool = False

    @classmethod
    def default(cls) -> Plan:
        return cls(Timing(launch_s=0.02, repeats=5), per_octave=4, largest_bytes=4 * GiB, warmup_s=0.5)

    @classmethod
    def quick(cls) -> Plan:
        return cls(
            Timing(launch_s=0.005, repeats=3),
            per_octave=2,
            largest_bytes=1 * GiB,
            warmup_s=0.2,
            is_quick=True,
        )


class Progress:
    """What the runner reports: a step of work done, and lines for the log."""

    def __init__(
        self,
        total_cb: Callable[[int], None] | None = None,
        advance_cb: Callable[[str], None] | None = None,
        log_cb: Callable[[str], None] | None = None,
    ):
        self._total, self._advance, self._log = total_cb, advance_cb, log_cb

    def total(self, steps: int) -> None:
        if self._total:
            self._total(steps)

    def advance(self, label: str) -> None:
        if self._advance:
            self._advance(label)

    def log(self, line: str) -> None:
        if self._log:
            self._log(line)


def kernel_sources() -> list[str]:
    """Every CUDA source file a measurement compiles."""
    return sorted(
        {SWEEP_SOURCE, SMEM_SOURCE, EMPTY_SOURCE, ISSUE_SOURCE, *(k.source for k in K.compute_kernels())}
    )


def check_installation() -> None:
    """Fail early, before any GPU work, when the kernel sources are not installed."""
    check_kernels(kernel_sources())


def measure_device(
    index: int,
    plan: Plan,
    progress: Progress,
    wgmma_blocks_per_sm: int = 2,
    wgmma_layout: tuple[int, int] = (128, 256),
) -> tuple[CeilingSet, dict[str, Any]]:
    """Measure every ceiling of GPU ``index``; returns the ceilings and the run's record."""
    started = time.perf_counter()
    check_installation()
    gpu = Gpu(index)
    info = gpu.info
    progress.log(
        f"device {index}: {info.name}, cc {info.cc}, {info.sm_count} SMs, "
        f"L2 {info.l2_bytes / MiB:.0f} MiB, "
        f"host {info.hostname}, PCI {info.pci_bus_id}"
    )
    clocks_seen = [dict(read_reported_clocks(index, info.pci_bus_id), when="start")]
    kernels = [k for k in K.compute_kernels(wgmma_blocks_per_sm) if k.runs_on(info.arch)]
    skipped = [k.function for k in K.compute_kernels(wgmma_blocks_per_sm) if not k.runs_on(info.arch)]
    grid = info.sm_count * SWEEP_BLOCKS_PER_SM
    largest = plan.largest_bytes
    if info.total_memory:  # a small GPU: a quarter of its memory is still far past its L2
        largest = min(largest, info.total_memory // 4)
    l1_sizes = working_sets(grid, min(largest, 4 * max(info.l2_bytes, 8 * MiB)), plan.per_octave)
    l2_sizes = working_sets(grid, largest, plan.per_octave)
    progress.total(2 + len(l1_sizes) + len(l2_sizes) + 1 + len(kernels) + 1 + 1)

    compute = ComputeRunner(gpu, plan.timing, wgmma_layout)
    bandwidth = BandwidthRunner(gpu, plan.timing)
    progress.advance("compiled the bandwidth kernels")
    _warm_up(compute, plan.warmup_s)
    progress.advance("warmed up")

    bandwidth.prepare(max(l2_sizes))
    l1_sweep = bandwidth.sweep("ca", l1_sizes, lambda: progress.advance("L1 sweep (ld.global.ca)"))
    l2_sweep = bandwidth.sweep("cg", l2_sizes, lambda: progress.advance("L2/HBM sweep (ld.global.cg)"))
    bandwidth.release()
    for sweep in (l1_sweep, l2_sweep):
        for p in sweep.points:
            progress.log(
                f"  {sweep.loads} ws {p.working_set / MiB:10.2f} MiB  "
                f"{p.bytes_per_s / 1e12:7.3f} TB/s  "
                f"clock {p.clock_hz / 1e6:6.0f} MHz  passes {p.passes}"
            )
    smem = measure_shared_memory(gpu, plan.timing)
    progress.advance("shared memory")
    clocks_seen.append(dict(read_reported_clocks(index, info.pci_bus_id), when="after bandwidth"))

    by_precision: dict[str, list[ComputeResult]] = {}
    for spec in kernels:
        result = compute.run(spec)
        by_precision.setdefault(spec.precision, []).append(result)
        progress.log(
            f"  {spec.function:20s} {spec.instruction:34s} {result.ops_per_s / 1e12:9.2f} T/s  "
            f"clock {result.clock_hz / 1e6:6.0f} MHz  trips {result.trips}  check: {result.check}"
        )
        progress.advance(spec.name)
    fma_fp32 = next((r for r in by_precision.get("fp32", []) if r.kernel.function == "fma_fp32"), None)
    issue = _issue_rate(gpu, plan.timing, progress, fma_fp32)
    clocks_seen.append(dict(read_reported_clocks(index, info.pci_bus_id), when="end"))
    floor = measure_launch_floor(gpu)
    progress.log(
        f"  launch floor: empty kernel {floor.empty_kernel_s}, back-to-back {floor.back_to_back_s} s"
        f" ({floor.note})"
    )
    progress.advance("launch floor")

    compute_ceilings = [
        with_theoretical(compute_ceiling(rs), info.arch, info.sm_count) for rs in by_precision.values()
    ]
    bw_ceilings, warnings = bandwidth_ceilings(l1_sweep, l2_sweep, smem)
    if isinstance(issue, str):
        warnings.append(issue)
    for w in warnings:
        progress.log(f"warning: {w}")
    measured_clocks = [c.extra["clock_hz"] for c in compute_ceilings]
    clocks_hz = {"sm": sorted(measured_clocks)[len(measured_clocks) // 2]}
    if clocks_seen[-1].get("memory_hz"):
        clocks_hz["memory"] = clocks_seen[-1]["memory_hz"]
    device = Device(info.name, info.cc, info.sm_count, clocks_hz)
    ceiling_set = CeilingSet(
        device=device,
        ceilings=tuple(bw_ceilings + compute_ceilings),
        source=SOURCE,
        instruction_roofs=instruction_roofs(None if isinstance(issue, str) else issue.roof(), bw_ceilings),
    )
    record = {
        "host": info.hostname,
        "device_index": index,
        "pci_bus_id": info.pci_bus_id,
        "l2_bytes": info.l2_bytes,
        "quick": plan.is_quick,
        "seconds": round(time.perf_counter() - started, 2),
        "clocks_reported": clocks_seen,
        "clock_note": "clock_hz on each ceiling is the SM clock measured inside its kernel "
        "(clock64 / globaltimer); "
        "clocks_reported are the driver's readings; no clock or setting was changed",
        "compile": gpu.compile_log,
        "kernels_not_for_this_gpu": skipped,
        "warnings": warnings,
        "launch_floor": floor.to_dict(),
        "timing": {
            "launch_s": plan.timing.launch_s,
            "repeats": plan.timing.repeats,
            "statistic": "median",
        },
    }
    return ceiling_set, record


def measure_issue_only(
    index: int, plan: Plan, progress: Progress
) -> tuple[IssueResult | str, dict[str, Any]]:
    """Only the warp-issue rate of GPU ``index`` (``--add-issue-rate``): the warm-up, the
    FP32 FMA kernel and ``issue_mix``, the faster of the two as in a full run
    (``_issue_rate``); no sweep, no other compute kernel, no launch floor. Returns the
    result (or why there is none) and the run's record."""
    started = time.perf_counter()
    check_kernels([ISSUE_SOURCE, *(k.source for k in K.compute_kernels() if k.function == "fma_fp32")])
    gpu = Gpu(index)
    info = gpu.info
    progress.log(f"device {index}: {info.name}, cc {info.cc}, {info.sm_count} SMs, host {info.hostname}")
    progress.total(3)
    clocks_seen = [dict(read_reported_clocks(index, info.pci_bus_id), when="start")]
    compute = ComputeRunner(gpu, plan.timing)
    _warm_up(compute, plan.warmup_s)
    progress.advance("warmed up")
    spec = next(k for k in K.compute_kernels() if k.function == "fma_fp32")
    fma = compute.run(spec)
    progress.advance(spec.name)
    issue = _issue_rate(gpu, plan.timing, progress, fma)
    clocks_seen.append(dict(read_reported_clocks(index, info.pci_bus_id), when="end"))
    record = {
        "host": info.hostname,
        "device": info.name,
        "device_index": index,
        "pci_bus_id": info.pci_bus_id,
        "seconds": round(time.perf_counter() - started, 2),
        "clocks_reported": clocks_seen,
        "timing": {"launch_s": plan.timing.launch_s, "repeats": plan.timing.repeats, "statistic": "median"},
    }
    return issue, record


def _issue_rate(
    gpu: Gpu, timing: Timing, progress: Progress, fma: ComputeResult | None = None
) -> IssueResult | str:
    """The warp-issue roof: the faster of ``issue_mix`` and the FP32 FMA kernel's timed
    launches (``fma``), each counted from its SASS; or why the issue rate was not measured."""
    try:
        results = [measure_issue_rate(gpu, timing)]
        if fma is not None:
            results.append(from_fma(gpu, fma))
    except (GpuUnavailableError, SassError) as err:
        progress.advance("warp issue rate (not measured)")
        return f"warp issue rate not measured: {err}"
    for result in results:
        progress.log(
            f"  {result.kernel:20s} {result.sass.body} SASS per trip        "
            f"{result.warp_instructions_per_s / 1e9:9.1f} G warp inst/s  "
            f"{result.per_cycle_per_sm:.3f}/cycle/SM "
            f"({result.per_cycle_per_sm / SCHEDULERS_PER_SM:.1%} of {SCHEDULERS_PER_SM})  "
            f"clock {result.clock_hz / 1e6:6.0f} MHz  trips {result.trips}  check: {result.check}"
        )
    progress.advance("warp issue rate")
    return fastest(results)


def _warm_up(compute: ComputeRunner, seconds: float) -> None:
    """FP32 FMA work for ``seconds``, so the SM clock is up before anything is timed."""
    spec = next(k for k in K.compute_kernels() if k.function == "fma_fp32")
    end = time.perf_counter() + seconds
    warm = ComputeRunner(compute.gpu, Timing(launch_s=0.01, repeats=1))
    while time.perf_counter() < end:
        warm.run(spec)


def expand_out(pattern: str, index: int) -> Path:
    """``--out`` with %h (short host name) and %d (device index) filled in."""
    host = socket.gethostname().split(".")[0]
    return Path(pattern.replace("%h", host).replace("%d", str(index)))


def run_children(indices: list[int], argv_for: Callable[[int], list[str]]) -> int:
    """One process per GPU (``--device all``); returns the worst exit code."""
    env = dict(os.environ)
    procs = []
    for index in indices:
        procs.append(subprocess.Popen([sys.executable, "-m", "rooftui.measure", *argv_for(index)], env=env))
    return max(p.wait() for p in procs)
