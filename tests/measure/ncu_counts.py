"""Check with Nsight Compute that the operations and bytes rooftui counts are what the GPU did.

Run as ``python3 -m tests.measure.ncu_counts`` on a GPU machine: it re-runs
itself under ``ncu --clock-control none`` (the clocks are left alone), where
the child launches a few kernels once each and writes the counts rooftui
derives for them; the parent reads ncu's hardware counters for the same
launches and compares. ``test_gpu.py`` asserts on the result.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

CHILD_ENV = "ROOFTUI_NCU_CHILD"

# kernel -> [(metric, what rooftui's count is compared with, relative tolerance)]
CHECKS = {
    "fma_fp32": [("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "fma_instructions", 0.0)],
    "fma_fp64": [("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "fma_instructions", 0.0)],
    "mma_fp16": [("smsp__inst_executed_pipe_tensor_op_hmma.sum", "warp_instructions", 0.0)],
    "read_sweep_l2": [("dram__bytes_read.sum", "bytes_read", 0.03)],
    "read_sweep_l1": [("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "bytes_read", 0.0)],
    "smem_read": [("smsp__sass_inst_executed_op_shared_ld.sum", "warp_instructions", 0.0)],
    # every warp instruction, counted from the kernel's SASS (rooftui.measure.sass)
    "issue_mix": [("smsp__inst_executed.sum", "warp_instructions", 0.0)],
}


def child(out_path: str) -> None:
    """Launch each kernel once with small sizes and record rooftui's counts for it."""
    from rooftui.measure import bandwidth as B
    from rooftui.measure import kernels as K
    from rooftui.measure.compute import ComputeRunner, Timing
    from rooftui.measure.gpu import Gpu

    gpu = Gpu(0)
    sm = gpu.info.sm_count
    counts = {}
    runner = ComputeRunner(gpu, Timing())
    specs = {k.function: k for k in K.compute_kernels()}
    for name, trips in (("fma_fp32", 40), ("fma_fp64", 20), ("mma_fp16", 20)):
        spec = specs[name]
        kernel = runner._kernel(spec)
        grid, block = sm * spec.blocks_per_sm(), spec.block()
        stamps, out = gpu.allocate(grid * 16), gpu.allocate(grid * block * K.FMA_CHAINS * 8)
        if spec.kind == "fma":
            dtype = np.float32 if name == "fma_fp32" else np.float64
            start = gpu.from_host(np.zeros(K.FMA_CHAINS, dtype))
            gpu.launch(kernel, grid, block, start, dtype(0.5), dtype(0.25), np.int32(trips), out, stamps)
            counts[name] = {"fma_instructions": spec.instructions(grid, trips)}
        else:
            gpu.launch(kernel, grid, block, np.int32(trips), out, stamps)
            counts[name] = {
                "warp_instructions": spec.instructions(grid, trips),
                "operations": spec.operations(grid, trips),
            }
        gpu.stream.sync()

    sweep = B.BandwidthRunner(gpu, Timing())
    row = sweep.grid * B.SWEEP_THREADS * 16
    big_rows, small_rows, passes_big, passes_small = 512, 4, 2, 50  # ~1 GiB and ~8 MiB on an H200
    sweep.prepare(big_rows * row)
    for flavour, rows, passes, name in (
        ("cg", big_rows, passes_big, "read_sweep_l2"),
        ("ca", small_rows, passes_small, "read_sweep_l1"),
    ):
        sweep._launch(flavour, rows, passes)
        gpu.stream.sync()
        counts[name] = {"bytes_read": passes * rows * row}
    blocks_per_sm = B.shared_memory_blocks_per_sm(gpu.info.max_threads_per_sm, gpu.info.max_shared_per_sm)
    module = gpu.compile(
        "shared_memory.cu",
        {
            "SMEM_THREADS": B.SMEM_THREADS,
            "SMEM_BLOCKS_PER_SM": blocks_per_sm,
            "SMEM_VECTORS": B.SMEM_VECTORS,
        },
    )
    grid = sm * blocks_per_sm
    passes = 100
    gpu.launch(
        module.get_kernel("smem_read"),
        grid,
        B.SMEM_THREADS,
        np.int32(passes),
        np.uint32(B.SMEM_ROTATE),
        gpu.allocate(grid * B.SMEM_THREADS * 4),
        gpu.allocate(grid * 16),
    )
    gpu.stream.sync()
    per_thread = B.SMEM_VECTORS // B.SMEM_THREADS
    counts["smem_read"] = {"warp_instructions": grid * (B.SMEM_THREADS // 32) * passes * per_thread}
    counts["issue_mix"] = _issue_mix(gpu)
    Path(out_path).write_text(json.dumps(counts))


def _issue_mix(gpu) -> dict:
    """Launch issue_mix once (40 trips); its warp instructions from its SASS. The code past
    its first EXIT is the clock stamp only thread 0 writes, so warp 0 of each block runs it."""
    from rooftui.measure import issue_rate as I
    from rooftui.measure.sass import disassemble, sass_loop

    module = gpu.compile(I.ISSUE_SOURCE, I.issue_defines())
    listing = disassemble(gpu.cubins[I.ISSUE_SOURCE])
    if os.environ.get("ROOFTUI_SASS_OUT"):
        Path(os.environ["ROOFTUI_SASS_OUT"]).write_text(listing)
    loop = sass_loop(listing, I.ISSUE_FUNCTION)
    grid, trips = gpu.info.sm_count * I.ISSUE_BLOCKS_PER_SM, 40
    threads = grid * I.ISSUE_THREADS
    gpu.launch(
        module.get_kernel(I.ISSUE_FUNCTION),
        grid,
        I.ISSUE_THREADS,
        gpu.from_host(I.float_starts()),
        gpu.from_host(I.int_starts()),
        np.float32(I.FLOAT_B),
        np.float32(I.FLOAT_C),
        np.uint32(I.INT_KEY),
        np.uint32(I.INT_ADD),
        np.int32(trips),
        gpu.allocate(threads * I.ISSUE_FLOAT_CHAINS * 4),
        gpu.allocate(threads * I.ISSUE_INT_CHAINS * 4),
        gpu.allocate(grid * 16),
    )
    gpu.stream.sync()
    sure, _ = loop.warp_instructions(threads // 32, trips)
    return {"warp_instructions": sure + grid * loop.past_exit, "sass": loop.to_dict()}


def _profile(ncu: str, metrics: list[str]) -> tuple[list[dict], dict]:
    with tempfile.TemporaryDirectory() as tmp:
        counts_path = os.path.join(tmp, "counts.json")
        env = dict(os.environ, **{CHILD_ENV: counts_path})
        cmd = [
            ncu,
            "--clock-control",
            "none",
            "--csv",
            "--page",
            "raw",
            "--metrics",
            ",".join(metrics),
            "-k",
            "regex:^(" + "|".join(CHECKS) + ")$",
            sys.executable,
            "-m",
            "tests.measure.ncu_counts",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(
                f"ncu failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            )
        counts = json.loads(Path(counts_path).read_text())
    header_at = done.stdout.find('"ID"')
    table = list(csv.DictReader(io.StringIO(done.stdout[header_at:])))
    return table[1:], counts  # the first row under the header holds the units


def run() -> list[dict]:
    """Profile the child under ncu; one row per (kernel, metric) with both numbers.

    All metrics in one ncu run; if ncu refuses that (a metric this GPU lacks),
    one run per metric, and a metric ncu refuses is reported with its error.
    """
    ncu = shutil.which("ncu")
    if ncu is None:
        raise FileNotFoundError("ncu is not on PATH")
    metrics = sorted({m for checks in CHECKS.values() for m, _, _ in checks})
    try:
        runs = [(metrics, *_profile(ncu, metrics))]
    except RuntimeError:
        runs = []
        for metric in metrics:
            try:
                runs.append(([metric], *_profile(ncu, [metric])))
            except RuntimeError as err:
                runs.append(([metric], str(err), {}))
    rows = []
    for metrics_run, table, counts in runs:
        if isinstance(table, str):
            rows.append(
                {
                    "kernel": "-",
                    "metric": metrics_run[0],
                    "error": table,
                    "ok": False,
                    "measured": float("nan"),
                    "expected": float("nan"),
                    "rooftui_count": "-",
                    "relative_error": float("nan"),
                }
            )
            continue
        for record in table:
            name = record.get("Kernel Name", "")
            for metric, what, tolerance in CHECKS.get(name, []):
                if metric not in metrics_run:
                    continue
                measured = float(record[metric].replace(",", ""))
                expected = counts[name][what]
                rel = abs(measured - expected) / expected
                rows.append(
                    {
                        "kernel": name,
                        "metric": metric,
                        "measured": measured,
                        "expected": expected,
                        "rooftui_count": what,
                        "relative_error": rel,
                        "ok": rel <= tolerance,
                    }
                )
    return rows


if __name__ == "__main__":
    if os.environ.get(CHILD_ENV):
        child(os.environ[CHILD_ENV])
    else:
        for r in run():
            if "error" in r:
                print(f"ERR {r['metric']}: {r['error']}")
                continue
            print(
                f"{'ok ' if r['ok'] else 'BAD'} {r['kernel']:14s} {r['metric']:55s} "
                f"measured {r['measured']:.10g} "
                f"rooftui {r['expected']:.10g} ({r['rooftui_count']}) "
                f"rel.err {r['relative_error']:.2e}"
            )
