"""Launch the issue-rate kernels once each, for ``rooftui profile --instructions`` to profile
(benchmarks/issue_rate_bundled_h200.sh): the known answer of advise's issue term.

    python3 benchmarks/issue_rate_launches.py EXPECTED.json

On a GPU machine with cuda-python and cuobjdump. Launches ``issue_mix`` at 40 trips (the
launch whose 33,153,120 warp instructions ncu matched on the H200,
benchmarks/results/2026-12-01-issue-rate-h200.md) and at 2,000 trips, and the FP32 FMA
kernel at 2,000 trips; writes each launch's warp instructions counted from the SASS of the
very cubin that ran (code before the loop + loop body × trips + code after it, per warp;
the clock stamp past the first EXIT runs in warp 0 of each block) to EXPECTED.json, in
launch order. Nothing here is timed: ncu measures the durations.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from rooftui.measure import issue_rate as I
from rooftui.measure import kernels as K
from rooftui.measure.gpu import Gpu
from rooftui.measure.sass import SassLoop, disassemble, sass_loop
from rooftui.model.instructions import WARP_SIZE


def described(kernel: str, loop: SassLoop, grid: int, block: int, trips: int) -> dict[str, object]:
    """One launch and its warp instructions from its SASS (warp 0 of each block runs the
    code past the first EXIT)."""
    sure, _ = loop.warp_instructions(grid * block // WARP_SIZE, trips)
    return {
        "kernel": kernel,
        "trips": trips,
        "grid": grid,
        "block": block,
        "warp_instructions": sure + grid * loop.past_exit,
        "sass": loop.to_dict(),
    }


def issue_mix(gpu: Gpu, trips: int) -> dict[str, object]:
    loop, grid, block = I.launch_issue_mix(gpu, trips)
    return described(I.ISSUE_FUNCTION, loop, grid, block, trips)


def fma_fp32(gpu: Gpu, trips: int) -> dict[str, object]:
    spec = next(k for k in K.compute_kernels() if k.function == "fma_fp32")
    module = gpu.compile(spec.source, K.defines_for(spec), spec.arch_suffix)
    loop = sass_loop(disassemble(gpu.cubins[spec.source]), spec.function)
    grid, block = gpu.info.sm_count * spec.blocks_per_sm(), spec.block()
    gpu.launch(
        module.get_kernel(spec.function),
        grid,
        block,
        gpu.from_host(np.zeros(K.FMA_CHAINS, np.float32)),
        np.float32(0.5),
        np.float32(0.25),
        np.int32(trips),
        gpu.allocate(grid * block * K.FMA_CHAINS * 8),
        gpu.allocate(grid * 16),
    )
    gpu.stream.sync()
    return {**described(spec.function, loop, grid, block, trips), "flops_fp32": spec.operations(grid, trips)}


def main(out: str) -> None:
    gpu = Gpu(0)
    launches = [issue_mix(gpu, 40), issue_mix(gpu, 2000), fma_fp32(gpu, 2000)]
    Path(out).write_text(json.dumps({"device": gpu.info.name, "launches": launches}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
