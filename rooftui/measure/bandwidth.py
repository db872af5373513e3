"""Bandwidth: the ERT-style working-set sweeps (L1, L2, HBM) and shared memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rooftui.measure.compute import CheckFailed, Timing
from rooftui.measure.gpu import Gpu, clock_hz

SWEEP_SOURCE = "bandwidth_sweep.cu"  # in rooftui/measure/cuda/
SMEM_SOURCE = "shared_memory.cu"
SWEEP_THREADS = 1024
SWEEP_BLOCKS_PER_SM = 1  # one chunk per SM, so the working set per SM is exact
SWEEP_LOADS_IN_FLIGHT = 8
SMEM_THREADS = 512
SMEM_VECTORS = 2048  # 32 KiB per block
SMEM_ROTATE = 32  # vectors each pass rotates by: a whole warp's worth keeps warps conflict-free
FILL_MULTIPLIER = 2654435761
MASK32 = 0xFFFFFFFF


def filled_sum(words: int) -> int:
    """sum(i * FILL_MULTIPLIER for i < words) mod 2^32: the buffer's checksum, in closed form."""
    return (FILL_MULTIPLIER * (words * (words - 1) // 2)) & MASK32


@dataclass
class SweepPoint:
    working_set: int  # bytes
    bytes_per_s: float  # median over the timed launches
    clock_hz: float
    passes: int
    seconds: list[float] = field(default_factory=list)


@dataclass
class Sweep:
    """One curve: read bandwidth against total working-set size."""

    loads: str  # "ld.global.ca" (L1-cached) or "ld.global.cg" (L2 only)
    points: list[SweepPoint]

    def curve(self) -> list[list[float]]:
        return [[p.working_set, p.bytes_per_s] for p in self.points]


def working_sets(grid: int, largest: int, per_octave: int) -> list[int]:
    """Geometric working-set sizes up to ``largest``: each block's chunk a whole number of
    rows of SWEEP_THREADS 16-byte vectors (16 KiB), from one row up."""
    row = grid * SWEEP_THREADS * 16
    rows_max = max(1, largest // row)
    count = int(np.floor(np.log2(rows_max) * per_octave)) + 1
    rows = {max(1, int(round(r))) for r in np.geomspace(1, rows_max, count)}
    return sorted(r * row for r in rows)


class BandwidthRunner:
    def __init__(self, gpu: Gpu, timing: Timing):
        self.gpu = gpu
        self.timing = timing
        defines = {
            "SWEEP_THREADS": SWEEP_THREADS,
            "SWEEP_BLOCKS_PER_SM": SWEEP_BLOCKS_PER_SM,
            "SWEEP_LOADS_IN_FLIGHT": SWEEP_LOADS_IN_FLIGHT,
        }
        module = gpu.compile(SWEEP_SOURCE, defines)
        self.fill = module.get_kernel("fill_words")
        self.read = {
            "ca": module.get_kernel("read_sweep_l1"),
            "cg": module.get_kernel("read_sweep_l2"),
        }
        self.grid = gpu.info.sm_count * SWEEP_BLOCKS_PER_SM
        self.buffer: Any = None
        self.buffer_bytes = 0
        self.sums = gpu.allocate(self.grid * SWEEP_THREADS * 4)
        self.stamps = gpu.allocate(self.grid * 16)

    def prepare(self, largest: int) -> None:
        """Allocate and fill the buffer once, for the largest working set."""
        self.buffer = self.gpu.allocate(largest)
        self.buffer_bytes = largest
        words = largest // 4
        self.gpu.launch(self.fill, self.gpu.info.sm_count * 8, 256, self.buffer, np.uint64(words))
        self.gpu.stream.sync()

    def sweep(self, flavour: str, sizes: list[int], tick: Callable[[], None]) -> Sweep:
        points = []
        rate_guess = 0.0
        for ws in sizes:
            points.append(self._point(flavour, ws, rate_guess))
            rate_guess = points[-1].bytes_per_s
            tick()
        return Sweep(loads=f"ld.global.{flavour}", points=points)

    def _launch(self, flavour: str, vectors_per_thread: int, passes: int) -> float:
        return self.gpu.time_launch(
            self.read[flavour],
            self.grid,
            SWEEP_THREADS,
            self.buffer,
            np.uint32(vectors_per_thread),
            np.int32(passes),
            self.sums,
            self.stamps,
        )

    def _point(self, flavour: str, ws: int, rate_guess: float) -> SweepPoint:
        assert ws <= self.buffer_bytes
        vectors = ws // (16 * self.grid * SWEEP_THREADS)
        # Start from the previous point's rate, then grow until a launch is long
        # enough that launch overhead does not count, and aim at launch_s.
        passes = max(1, round(self.timing.launch_s * rate_guess / ws)) if rate_guess > 0 else 1
        while True:
            seconds = self._launch(flavour, vectors, passes)
            if seconds >= self.timing.launch_s / 4 or passes >= 1 << 30:
                break
            passes = max(2 * passes, int(passes * self.timing.launch_s / seconds))
        passes = max(1, round(passes * self.timing.launch_s / seconds))
        self._launch(flavour, vectors, passes)  # warm-up: brings the working set into the cache
        self._check_sums(ws, passes, f"read_sweep ({flavour}) at {ws} bytes")
        times: list[float] = []
        clocks: list[float] = []
        for _ in range(self.timing.repeats):
            times.append(self._launch(flavour, vectors, passes))
            stamps = self.gpu.to_host(self.stamps, np.uint64, self.grid * 2).reshape(self.grid, 2)
            clocks.append(clock_hz(stamps))
        moved = passes * ws + self.grid * SWEEP_THREADS * 4
        return SweepPoint(ws, moved / float(np.median(times)), float(np.median(clocks)), passes, times)

    def _check_sums(self, ws: int, passes: int, what: str) -> None:
        sums = self.gpu.to_host(self.sums, np.uint32, self.grid * SWEEP_THREADS)
        total = int(sums.astype(np.uint64).sum()) & MASK32
        expected = (passes * filled_sum(ws // 4)) & MASK32
        if total != expected:
            raise CheckFailed(f"{what}: checksum {total:#x}, expected {expected:#x}")

    def release(self) -> None:
        self.buffer = None


@dataclass
class SharedMemoryResult:
    bytes_per_s: float
    clock_hz: float
    seconds: list[float]
    bytes_per_launch: int
    grid: int
    block: int
    passes: int
    check: str


def shared_memory_blocks_per_sm(max_threads_per_sm: int, max_shared_per_sm: int) -> int:
    return max(1, min(max_threads_per_sm // SMEM_THREADS, max_shared_per_sm // (SMEM_VECTORS * 16 + 1024)))


def measure_shared_memory(gpu: Gpu, timing: Timing) -> SharedMemoryResult:
    blocks_per_sm = shared_memory_blocks_per_sm(gpu.info.max_threads_per_sm, gpu.info.max_shared_per_sm)
    module = gpu.compile(
        SMEM_SOURCE,
        {
            "SMEM_THREADS": SMEM_THREADS,
            "SMEM_BLOCKS_PER_SM": blocks_per_sm,
            "SMEM_VECTORS": SMEM_VECTORS,
        },
    )
    kernel = module.get_kernel("smem_read")
    grid = gpu.info.sm_count * blocks_per_sm
    sums = gpu.allocate(grid * SMEM_THREADS * 4)
    stamps = gpu.allocate(grid * 16)
    tile_bytes = SMEM_VECTORS * 16

    def launch(passes: int) -> float:
        return gpu.time_launch(
            kernel, grid, SMEM_THREADS, np.int32(passes), np.uint32(SMEM_ROTATE), sums, stamps
        )

    passes = 64
    seconds = launch(passes)
    while seconds < timing.launch_s / 8:
        passes *= 8
        seconds = launch(passes)
    passes = max(1, int(passes * timing.launch_s / seconds))
    launch(passes)
    total = int(gpu.to_host(sums, np.uint32, grid * SMEM_THREADS).astype(np.uint64).sum()) & MASK32
    expected = (grid * passes * filled_sum(tile_bytes // 4)) & MASK32
    if total != expected:
        raise CheckFailed(f"smem_read: checksum {total:#x}, expected {expected:#x}")
    times, clocks = [], []
    for _ in range(timing.repeats):
        times.append(launch(passes))
        clocks.append(clock_hz(gpu.to_host(stamps, np.uint64, grid * 2).reshape(grid, 2)))
    moved = passes * grid * tile_bytes
    return SharedMemoryResult(
        bytes_per_s=moved / float(np.median(times)),
        clock_hz=float(np.median(clocks)),
        seconds=times,
        bytes_per_launch=moved,
        grid=grid,
        block=SMEM_THREADS,
        passes=passes,
        check=f"sum of all words read = passes x grid x tile checksum (mod 2^32) = {expected:#x}",
    )
