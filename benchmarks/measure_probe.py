"""Probe `rooftui measure`'s pieces one by one on a GPU, reporting each failure and going on.

Used on the lent H200 while tuning: every kernel alone (with its check), both
readings of the wgmma descriptor's LBO/SBO (only 128,256 passes the checks for
every type: the no-swizzle K-major layout is LBO = step along K, SBO = step
along M/N) and 2 or 3 warpgroups per SM, and a short sweep. Prints a table last.
Run: PYTHONPATH=. python3 benchmarks/measure_probe.py
"""

from __future__ import annotations

import time
import traceback

from rooftui.measure import kernels as K
from rooftui.measure.bandwidth import BandwidthRunner, measure_shared_memory, working_sets
from rooftui.measure.compute import ComputeRunner, Timing
from rooftui.measure.gpu import Gpu

rows: list[str] = []


def attempt(label, fn):
    t = time.perf_counter()
    try:
        value = fn()
        rows.append(f"{label:44s} {value}  ({time.perf_counter() - t:.1f} s)")
    except Exception:  # noqa: BLE001 - a probe reports every failure and carries on
        traceback.print_exc()
        rows.append(f"{label:44s} FAILED (traceback above)")


gpu = Gpu(0)
print(gpu.info)
timing = Timing(launch_s=0.02, repeats=3)
runner = ComputeRunner(gpu, timing)
for spec in K.compute_kernels():
    if spec.runs_on(gpu.info.arch) and spec.kind != "wgmma":
        attempt(
            spec.function,
            lambda s=spec: (
                lambda r: (
                    f"{r.ops_per_s / 1e12:8.2f} T/s clock {r.clock_hz / 1e6:.0f} MHz "
                    f"trips {r.trips} | {r.check}"
                )
            )(runner.run(s)),
        )
for blocks in (2, 3):
    for layout in ((128, 256), (256, 128)):
        wg = ComputeRunner(gpu, timing, layout)
        for spec in K.compute_kernels(blocks):
            if spec.kind == "wgmma" and spec.runs_on(gpu.info.arch):
                attempt(
                    f"{spec.function} bps={blocks} lbo,sbo={layout}",
                    lambda s=spec, w=wg: (
                        lambda r: (
                            f"{r.ops_per_s / 1e12:8.2f} T/s clock {r.clock_hz / 1e6:.0f} MHz | {r.check}"
                        )
                    )(w.run(s)),
                )
        if blocks == 3:
            break

attempt(
    "shared memory",
    lambda: (lambda r: f"{r.bytes_per_s / 1e12:.2f} TB/s clock {r.clock_hz / 1e6:.0f} MHz")(
        measure_shared_memory(gpu, timing)
    ),
)
bw = BandwidthRunner(gpu, timing)
grid = gpu.info.sm_count
bw.prepare(4 << 30)
for flavour in ("ca", "cg"):
    sizes = working_sets(grid, 4 << 30, 2)
    try:
        sweep = bw.sweep(flavour, sizes, lambda: None)
        for p in sweep.points:
            rows.append(
                f"sweep {flavour} {p.working_set / 2**20:10.2f} MiB "
                f"{p.bytes_per_s / 1e12:7.3f} TB/s "
                f"clock {p.clock_hz / 1e6:.0f} MHz passes {p.passes}"
            )
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        rows.append(f"sweep {flavour} FAILED")
print("\n".join(gpu.compile_log))
print("\n".join(rows))
