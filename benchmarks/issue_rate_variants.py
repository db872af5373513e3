"""Which instruction mix and occupancy issue fastest: issue_mix (rooftui/measure/cuda/
issue_rate.cu) rebuilt with other chain counts, unroll and block shapes, each counted from
its own SASS, beside the FP32 FMA kernel's FFMAs alone (issue #23).

    python3 benchmarks/issue_rate_variants.py OUT.json      # on a GPU machine, cuobjdump on PATH
"""

from __future__ import annotations

import json
import sys

from rooftui.measure import issue_rate as I
from rooftui.measure import kernels as K
from rooftui.measure.compute import ComputeRunner, Timing
from rooftui.measure.gpu import Gpu
from rooftui.measure.sass import SassError, disassemble, sass_loop

# (float chains, integer chains, unroll, threads per block, blocks per SM)
VARIANTS = [
    (8, 2, 16, 256, 4),  # the default
    (8, 1, 16, 256, 4),
    (12, 1, 16, 256, 4),
    (16, 1, 8, 256, 4),
    (4, 4, 16, 256, 4),
    (8, 2, 16, 256, 8),
    (8, 2, 16, 128, 4),
    (8, 2, 32, 256, 4),
]


def main(out: str) -> None:
    gpu = Gpu(0)
    rows = []
    for floats, ints, unroll, threads, blocks in VARIANTS:
        I.ISSUE_FLOAT_CHAINS, I.ISSUE_INT_CHAINS, I.ISSUE_UNROLL = floats, ints, unroll
        I.ISSUE_THREADS, I.ISSUE_BLOCKS_PER_SM = threads, blocks
        r = I.measure_issue_rate(gpu, Timing(launch_s=0.02, repeats=5))
        row = {
            "float_chains": floats,
            "int_chains": ints,
            "unroll": unroll,
            "threads": threads,
            "blocks_per_sm": blocks,
            "warp_inst_per_s": r.warp_instructions_per_s,
            "per_cycle_per_sm": r.per_cycle_per_sm,
            "fraction_of_4": r.per_cycle_per_sm / 4,
            "clock_hz": r.clock_hz,
            "loop_opcodes": r.sass.body_opcodes,
        }
        rows.append(row)
        print(
            f"{floats:2d} FFMA {ints} int x{unroll:2d} {threads}x{blocks}: "
            f"{r.warp_instructions_per_s / 1e9:7.1f} G/s {r.per_cycle_per_sm:.3f}/cycle/SM "
            f"({r.per_cycle_per_sm / 4:.1%}) clock {r.clock_hz / 1e6:.0f} MHz {r.sass.body_opcodes}",
            flush=True,
        )
    spec = next(k for k in K.compute_kernels() if k.function == "fma_fp32")
    fma = ComputeRunner(gpu, Timing(launch_s=0.02, repeats=5)).run(spec)
    ffma_per_s = fma.ops_per_s / 2 / 32  # warp FFMAs per second (2 FLOP per lane, 32 lanes)
    reference = {
        "kernel": "fma_fp32",
        "warp_ffma_per_s": ffma_per_s,
        "ffma_per_cycle_per_sm": ffma_per_s / fma.clock_hz / gpu.info.sm_count,
        "clock_hz": fma.clock_hz,
    }
    try:
        loop = sass_loop(disassemble(gpu.cubins[spec.source]), spec.function)
        reference["sass"] = loop.to_dict()
    except SassError as err:
        reference["sass"] = str(err)
    print(reference, flush=True)
    with open(out, "w", encoding="utf-8") as handle:
        json.dump({"variants": rows, "fma_fp32": reference}, handle, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
