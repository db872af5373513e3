"""Compute ceilings: run each FMA / Tensor Core kernel, check its results, time it."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rooftui.measure import kernels as K
from rooftui.measure.gpu import Gpu, clock_hz


class CheckFailed(RuntimeError):
    """A kernel's results were not what its arithmetic must give: the run is not trusted."""


@dataclass
class ComputeResult:
    kernel: K.ComputeKernel
    ops_per_s: float  # median over the timed launches
    seconds: list[float]  # each timed launch
    ops_per_launch: int
    clock_hz: float  # SM clock measured inside the kernel (median over launches)
    grid: int
    block: int
    trips: int
    check: str


@dataclass
class Timing:
    """How long each measurement runs: the launch length to aim for and the repeats."""

    launch_s: float = 0.02
    repeats: int = 5


# FMA chain parameters. For FP64/FP32, b = 2^(-1/N) makes b^N = 1/2 for the
# launch's N steps, so the result depends on every step having run; the half
# types reach their fixed point (1.0) and are checked against it.
HALF_B, HALF_C = 0.75, 0.25


def _fma_arrays(kernel: K.ComputeKernel, steps: int) -> tuple[Any, Any, np.ndarray, np.ndarray]:
    """(b, c, start words for the kernel, start values as float64 per chain and lane)."""
    chains = np.arange(K.FMA_CHAINS)
    if kernel.precision in ("fp64", "fp32"):
        dtype = np.float64 if kernel.precision == "fp64" else np.float32
        b = dtype(2.0 ** (-1.0 / steps))
        c = dtype(1.0 - float(b))  # fixed point c / (1 - b) = 1
        start = (chains * 0.25 - 1.0).astype(dtype)
        return b, c, start, start.astype(np.float64)[:, None]
    lo = chains * 0.25 - 1.0
    hi = -chains * 0.125 + 0.5

    def bits(v: Any) -> np.ndarray:
        """fp16 or bf16 bit patterns of v, as uint32 (all values here are exact in both)."""
        if kernel.precision == "fp16":
            return np.asarray(v, np.float16).view(np.uint16).astype(np.uint32)
        return np.asarray(v, np.float32).view(np.uint32) >> 16

    words = (bits(lo) | (bits(hi) << 16)).astype(np.uint32)
    b_pair = np.uint32(int(bits(HALF_B)) * 0x10001)  # two packed halves, as the kernel reads them
    c_pair = np.uint32(int(bits(HALF_C)) * 0x10001)
    return b_pair, c_pair, words, np.stack([lo, hi], axis=1)


def _decode_fma(kernel: K.ComputeKernel, raw: np.ndarray) -> np.ndarray:
    """Kernel output words -> float64 values, shape (threads * chains, lanes)."""
    if kernel.precision in ("fp64", "fp32"):
        return raw.astype(np.float64)[:, None]
    halves = raw.view(np.uint16).reshape(-1, 2)
    if kernel.precision == "fp16":
        return halves.view(np.float16).astype(np.float64)
    return (halves.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _check_fma(kernel, raw, b, c, start, steps) -> str:
    values = _decode_fma(kernel, raw).reshape(-1, K.FMA_CHAINS, start.shape[1])
    if kernel.precision in ("fp64", "fp32"):
        bn = float(b) ** steps
        fixed = float(c) / (1.0 - float(b))
        expected = fixed + (start - fixed) * bn
        tolerance = 1e-9 if kernel.precision == "fp64" else 2e-2
    else:
        expected = np.full_like(start, HALF_C / (1.0 - HALF_B))
        tolerance = 2e-3 if kernel.precision == "fp16" else 3e-2
    error = float(np.max(np.abs(values - expected[None, :, :])))
    if not math.isfinite(error) or error > tolerance:
        raise CheckFailed(f"{kernel.function}: results off by {error:.3g} (tolerance {tolerance:g})")
    return f"all {values.size} chain values within {error:.2g} of the closed form"


def _check_tensor(kernel, sums: np.ndarray, grid: int, block: int) -> str:
    if kernel.kind == "mma":
        per_group = sums.reshape(-1, 32).sum(axis=1)
        expected = K.mma_warp_sum(kernel)
        group = "warp"
    else:
        per_group = sums.reshape(-1, block).sum(axis=1)
        expected = K.wgmma_block_sum(kernel)
        group = "warpgroup"
    bad = np.flatnonzero(per_group != expected)
    if bad.size:
        raise CheckFailed(
            f"{kernel.function}: {bad.size} of {per_group.size} {group}s summed "
            f"{per_group[bad[0]]:g}, expected {expected}"
        )
    return f"every {group}'s sum of D = {expected} (exact)"


class ComputeRunner:
    """Runs compute kernels on one GPU."""

    def __init__(self, gpu: Gpu, timing: Timing, wgmma_layout: tuple[int, int] = (128, 256)):
        self.gpu = gpu
        self.timing = timing
        self.lbo, self.sbo = wgmma_layout
        self._modules: dict[tuple, Any] = {}

    def _kernel(self, spec: K.ComputeKernel) -> Any:
        defines = K.defines_for(spec)
        key = (spec.source, tuple(sorted(defines.items())), spec.arch_suffix)
        if key not in self._modules:
            self._modules[key] = self.gpu.compile(spec.source, defines, spec.arch_suffix)
        return self._modules[key].get_kernel(spec.function)

    def run(self, spec: K.ComputeKernel) -> ComputeResult:
        gpu = self.gpu
        kernel = self._kernel(spec)
        block = spec.block()
        grid = gpu.info.sm_count * spec.blocks_per_sm()
        stamps = gpu.allocate(grid * 16)

        if spec.kind == "fma":
            out_words = grid * block * K.FMA_CHAINS
            dtype = {"fp64": np.float64, "fp32": np.float32}.get(spec.precision, np.uint32)
            out = gpu.allocate(out_words * np.dtype(dtype).itemsize)

            def launch(trips: int) -> tuple[float, Any]:
                b, c, start, start64 = _fma_arrays(spec, trips * K.FMA_UNROLL)
                start_buf = gpu.from_host(start)
                args = (start_buf, b, c, np.int32(trips), out, stamps)
                seconds = gpu.time_launch(kernel, grid, block, *args)
                return seconds, (b, c, start64)
        else:
            out = gpu.allocate(grid * block * 8)

            def launch(trips: int) -> tuple[float, Any]:
                args: tuple[Any, ...] = (np.int32(trips), out, stamps)
                if spec.kind != "mma":
                    args = (np.int32(trips), np.uint32(self.lbo), np.uint32(self.sbo), out, stamps)
                return gpu.time_launch(kernel, grid, block, *args), None

        trips = calibrate_trips(launch, self.timing.launch_s)
        seconds, clocks, check = [], [], ""
        launch(trips)  # warm-up at the final length
        for _ in range(self.timing.repeats):
            t, fma_params = launch(trips)
            seconds.append(t)
            clocks.append(clock_hz(gpu.to_host(stamps, np.uint64, grid * 2).reshape(grid, 2)))
            if not check:  # check the first timed launch's results
                if spec.kind == "fma":
                    raw = gpu.to_host(out, dtype, out_words)
                    b, c, start64 = fma_params
                    check = _check_fma(spec, raw, b, c, start64, trips * K.FMA_UNROLL)
                else:
                    check = _check_tensor(spec, gpu.to_host(out, np.float64, grid * block), grid, block)
        ops = spec.operations(grid, trips)
        return ComputeResult(
            kernel=spec,
            ops_per_s=ops / float(np.median(seconds)),
            seconds=seconds,
            ops_per_launch=ops,
            clock_hz=float(np.median(clocks)),
            grid=grid,
            block=block,
            trips=trips,
            check=check,
        )


def calibrate_trips(launch: Callable[[int], tuple[float, Any]], launch_s: float) -> int:
    """Trips that make one launch last about ``launch_s`` (``launch(trips)`` returns its seconds first)."""
    trips = 16
    while True:
        seconds, _ = launch(trips)
        if seconds >= launch_s / 8 or trips >= 1 << 24:
            break
        trips *= 8
    return max(1, int(trips * launch_s / seconds))
