"""The warp-instruction issue rate, measured with ``cuda/issue_rate.cu`` (``issue_mix``).

The kernel keeps every scheduler's issue slot busy with independent FFMA and
LOP3/IADD3 chains (the source says why neither pipe fills first). How many warp
instructions one launch issues is counted from the very cubin that ran: its SASS
(``cuobjdump -sass``, ``rooftui.measure.sass``) gives the loop's instructions and the
straight-line code around it, times the trips and the warps. Without ``cuobjdump``
nothing is assumed: the issue rate is not measured and the run says why.

Warp instructions per second, and per cycle per SM at the clock measured inside the
kernel, are compared with one warp instruction per scheduler per cycle
(SMs × 4 × clock: Ding & Williams, PMBS'19; ncu's ``smsp__inst_executed`` peak).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rooftui.measure.compute import CheckFailed, ComputeResult, Timing, calibrate_trips
from rooftui.measure.gpu import Gpu, clock_hz
from rooftui.measure.sass import SassLoop, disassemble, sass_loop
from rooftui.model.instructions import (
    ISSUE,
    ROOF_LABELS,
    ROOF_UNITS,
    SCHEDULERS_PER_SM,
    WARP_SIZE,
    InstructionRoof,
)

ISSUE_SOURCE = "issue_rate.cu"
ISSUE_FUNCTION = "issue_mix"
ISSUE_FLOAT_CHAINS = 8
ISSUE_INT_CHAINS = 2
ISSUE_UNROLL = 16
ISSUE_THREADS = 256
ISSUE_BLOCKS_PER_SM = 4
# x <- x * B + C reaches its fixed point C / (1 - B) = 1 exactly in FP32 within ~30 steps
FLOAT_B, FLOAT_C = 0.5, 0.5
INT_KEY, INT_ADD = 0x9E3779B9, 0x7F4A7C15  # u <- (u ^ key) + add, a bijection with no short cycle here
WORD = 0xFFFFFFFF


def issue_defines() -> dict[str, int]:
    """The -D defines ``issue_rate.cu`` is compiled with."""
    return {
        "ISSUE_FLOAT_CHAINS": ISSUE_FLOAT_CHAINS,
        "ISSUE_INT_CHAINS": ISSUE_INT_CHAINS,
        "ISSUE_UNROLL": ISSUE_UNROLL,
        "ISSUE_THREADS": ISSUE_THREADS,
        "ISSUE_BLOCKS_PER_SM": ISSUE_BLOCKS_PER_SM,
    }


def float_starts() -> np.ndarray:
    return (np.arange(ISSUE_FLOAT_CHAINS) * 0.25 - 1.0).astype(np.float32)


def int_starts() -> np.ndarray:
    return (np.arange(ISSUE_INT_CHAINS, dtype=np.uint64) * 0x01000193 + 7).astype(np.uint32)


def int_chain_end(start: int, steps: int) -> int:
    """What one integer chain of ``issue_mix`` holds after ``steps`` steps."""
    u = start
    for _ in range(steps):
        u = ((u ^ INT_KEY) + INT_ADD) & WORD
    return u


def check_results(out_f: np.ndarray, out_u: np.ndarray, trips: int) -> str:
    """Every float chain at 1.0 exactly and every integer chain at its replayed value."""
    if not np.all(out_f == np.float32(1.0)):
        bad = out_f[out_f != np.float32(1.0)]
        raise CheckFailed(f"{ISSUE_FUNCTION}: {bad.size} float chains not at 1.0 (one is {bad[0]!r})")
    expected = np.array([int_chain_end(int(s), trips * ISSUE_UNROLL) for s in int_starts()], np.uint32)
    per_thread = out_u.reshape(-1, ISSUE_INT_CHAINS)
    wrong = np.flatnonzero((per_thread != expected).any(axis=1))
    if wrong.size:
        raise CheckFailed(
            f"{ISSUE_FUNCTION}: {wrong.size} threads' integer chains differ from the replay "
            f"(thread {wrong[0]}: {per_thread[wrong[0]].tolist()}, expected {expected.tolist()})"
        )
    return (
        f"all {out_f.size} float chains at the fixed point 1.0; all {out_u.size} integer "
        f"chains equal their replay over {trips * ISSUE_UNROLL} steps"
    )


@dataclass
class IssueResult:
    warp_instructions_per_s: float  # median over the timed launches
    warp_instructions: int  # one launch, from the SASS (every warp's certain part)
    past_exit_bound: int  # the most the code past the first EXIT adds to one launch
    seconds: list[float]
    clock_hz: float  # SM clock measured inside the kernel (median over launches)
    sm_count: int
    grid: int
    block: int
    trips: int
    sass: SassLoop
    check: str
    kernel: str = ISSUE_FUNCTION
    source_file: str = ISSUE_SOURCE
    # per_cycle_per_sm of every kernel the issue rate was taken from (``fastest``)
    variants: dict[str, float] = field(default_factory=dict)

    @property
    def per_cycle_per_sm(self) -> float:
        return self.warp_instructions_per_s / self.clock_hz / self.sm_count

    @property
    def theoretical_at_clock(self) -> float:
        """One warp instruction per scheduler per cycle: SMs × 4 × the measured clock."""
        return self.sm_count * SCHEDULERS_PER_SM * self.clock_hz

    def roof(self) -> InstructionRoof:
        """The issue roof, as the ceilings file's ``instruction_ceilings`` saves it."""
        source = (
            f"measured by rooftui measure: {self.kernel} kernel, {self.per_cycle_per_sm:.3g} warp "
            f"instructions/cycle/SM at {self.clock_hz / 1e9:.3g} GHz, counted from its SASS "
            "(cuobjdump -sass) × trips × warps"
        )
        return InstructionRoof(
            ISSUE, ROOF_LABELS[ISSUE], self.warp_instructions_per_s, ROOF_UNITS[ISSUE], source, self._extra()
        )

    def _extra(self) -> dict[str, Any]:
        return {
            "method": "empirical",
            "per_cycle_per_sm": self.per_cycle_per_sm,
            "schedulers_per_sm": SCHEDULERS_PER_SM,
            "theoretical_at_clock": self.theoretical_at_clock,
            "fraction_of_theoretical": self.warp_instructions_per_s / self.theoretical_at_clock,
            "clock_hz": self.clock_hz,
            "kernel": f"rooftui/measure/cuda/{self.source_file}:{self.kernel}",
            "variants_per_cycle_per_sm": dict(self.variants),
            "launch": {"grid": self.grid, "block": self.block, "trips": self.trips},
            "warp_instructions_per_launch": self.warp_instructions,
            "past_first_exit_at_most": self.past_exit_bound,
            "sass": self.sass.to_dict(),
            "seconds": self.seconds,
            "check": self.check,
        }


def measure_issue_rate(gpu: Gpu, timing: Timing) -> IssueResult:
    """Run ``issue_mix`` on every SM, count its warp instructions from its SASS, time it.

    Raises GpuUnavailableError when the SASS cannot be read (no ``cuobjdump``), before
    any launch, and CheckFailed when its results are wrong."""
    module = gpu.compile(ISSUE_SOURCE, issue_defines())
    loop = sass_loop(disassemble(gpu.cubins[ISSUE_SOURCE]), ISSUE_FUNCTION)
    kernel = module.get_kernel(ISSUE_FUNCTION)
    grid, block = gpu.info.sm_count * ISSUE_BLOCKS_PER_SM, ISSUE_THREADS
    threads = grid * block
    start_f, start_u = gpu.from_host(float_starts()), gpu.from_host(int_starts())
    out_f = gpu.allocate(threads * ISSUE_FLOAT_CHAINS * 4)
    out_u = gpu.allocate(threads * ISSUE_INT_CHAINS * 4)
    stamps = gpu.allocate(grid * 16)

    def launch(trips: int) -> tuple[float, None]:
        args = (
            start_f,
            start_u,
            np.float32(FLOAT_B),
            np.float32(FLOAT_C),
            np.uint32(INT_KEY),
            np.uint32(INT_ADD),
            np.int32(trips),
            out_f,
            out_u,
            stamps,
        )
        return gpu.time_launch(kernel, grid, block, *args), None

    trips = calibrate_trips(launch, timing.launch_s)
    launch(trips)  # warm-up at the final length
    seconds, clocks, check = [], [], ""
    for _ in range(timing.repeats):
        seconds.append(launch(trips)[0])
        clocks.append(clock_hz(gpu.to_host(stamps, np.uint64, grid * 2).reshape(grid, 2)))
        if not check:
            check = check_results(
                gpu.to_host(out_f, np.float32, threads * ISSUE_FLOAT_CHAINS),
                gpu.to_host(out_u, np.uint32, threads * ISSUE_INT_CHAINS),
                trips,
            )
    sure, past_exit = loop.warp_instructions(threads // WARP_SIZE, trips)
    return IssueResult(
        warp_instructions_per_s=sure / float(np.median(seconds)),
        warp_instructions=sure,
        past_exit_bound=past_exit,
        seconds=seconds,
        clock_hz=float(np.median(clocks)),
        sm_count=gpu.info.sm_count,
        grid=grid,
        block=block,
        trips=trips,
        sass=loop,
        check=check,
    )


def launch_issue_mix(gpu: Gpu, trips: int) -> tuple[SassLoop, int, int]:
    """Launch ``issue_mix`` once for ``trips`` trips on every SM, untimed (for ncu to
    profile) and wait for it; returns its SASS loop (the cubin that ran), grid and block."""
    module = gpu.compile(ISSUE_SOURCE, issue_defines())
    loop = sass_loop(disassemble(gpu.cubins[ISSUE_SOURCE]), ISSUE_FUNCTION)
    grid, block = gpu.info.sm_count * ISSUE_BLOCKS_PER_SM, ISSUE_THREADS
    threads = grid * block
    gpu.launch(
        module.get_kernel(ISSUE_FUNCTION),
        grid,
        block,
        gpu.from_host(float_starts()),
        gpu.from_host(int_starts()),
        np.float32(FLOAT_B),
        np.float32(FLOAT_C),
        np.uint32(INT_KEY),
        np.uint32(INT_ADD),
        np.int32(trips),
        gpu.allocate(threads * ISSUE_FLOAT_CHAINS * 4),
        gpu.allocate(threads * ISSUE_INT_CHAINS * 4),
        gpu.allocate(grid * 16),
    )
    gpu.stream.sync()
    return loop, grid, block


def from_fma(gpu: Gpu, fma: ComputeResult) -> IssueResult:
    """The issue rate of a CUDA-core FMA kernel's timed launches (``compute``): its warp
    instructions counted from its SASS the same way, over the seconds it was timed. Its
    loop is all FFMA but for three instructions, and on the H200 that issues faster than
    any FFMA/integer mix of ``issue_mix`` (benchmarks/results/2026-12-01-issue-rate-h200.md)."""
    spec = fma.kernel
    loop = sass_loop(disassemble(gpu.cubins[spec.source]), spec.function)
    sure, past_exit = loop.warp_instructions(fma.grid * fma.block // WARP_SIZE, fma.trips)
    return IssueResult(
        warp_instructions_per_s=sure / float(np.median(fma.seconds)),
        warp_instructions=sure,
        past_exit_bound=past_exit,
        seconds=fma.seconds,
        clock_hz=fma.clock_hz,
        sm_count=gpu.info.sm_count,
        grid=fma.grid,
        block=fma.block,
        trips=fma.trips,
        sass=loop,
        check=fma.check,
        kernel=spec.function,
        source_file=spec.source,
    )


def fastest(results: list[IssueResult]) -> IssueResult:
    """The issue roof: the fastest of ``results``, noting every kernel's rate per cycle per SM."""
    best = max(results, key=lambda r: r.warp_instructions_per_s)
    best.variants = {r.kernel: r.per_cycle_per_sm for r in results}
    return best
