"""``ncu --print-summary per-kernel --csv --print-units base`` exports, written here with
the column layout ncu 2023-2025 prints, and values fixed so every total is arithmetic:
two kernels × 100 launches, counts in one file and time in another (two ncu runs)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

HEADER = [
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Invocations",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Minimum",
    "Maximum",
    "Average",
]
INVOCATIONS = 100
SAXPY = "saxpy(long, float, const float *, float *)"
COPY = "copy_f32(long, const float *, float *)"
# kernel -> metric -> (unit, minimum, maximum, average per launch)
COUNTS = {
    SAXPY: {
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", 16777216, 16777216, 16777216),
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": ("inst", 0, 2, 0.5),
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": ("inst", 0, 0, 0),
        "l1tex__t_sectors.sum": ("sector", 3145728, 3145800, 3145750.25),
        "lts__t_sectors.sum": ("sector", 3145728, 3145728, 3145728),
        "dram__sectors_read.sum": ("sector", 2097152, 2097160, 2097156.5),
        "dram__sectors_write.sum": ("sector", 1048576, 1048576, 1048576),
        # Tensor Core work collected too (none), so a launch without FLOPs is known zero-AI
        "sm__ops_path_tensor_src_fp16.sum": ("", 0, 0, 0),
    },
    COPY: {
        "sm__ops_path_tensor_src_fp16.sum": ("", 0, 0, 0),
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", 0, 0, 0),
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": ("inst", 0, 0, 0),
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": ("inst", 0, 0, 0),
        "l1tex__t_sectors.sum": ("sector", 2097152, 2097152, 2097152),
        "lts__t_sectors.sum": ("sector", 2097152, 2097152, 2097152),
        "dram__sectors_read.sum": ("sector", 1048576, 1048576, 1048576),
        "dram__sectors_write.sum": ("sector", 1048576, 1048600, 1048580.75),
    },
}
TIMES = {SAXPY: ("nsecond", 55000, 58000, 56412.5), COPY: ("nsecond", 48000, 49500, 48650.25)}


def _write(path: Path, rows: list[list[object]]) -> Path:
    out = io.StringIO()
    out.write("==PROF== Connected to process 777 (/usr/bin/app)\n")
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    path.write_text(out.getvalue())
    return path


def _identity(kernel: str, grid: str = "(65536, 1, 1)") -> list[object]:
    return [777, "app", "127.0.0.1", kernel, "(256, 1, 1)", grid, 0, "9.0", INVOCATIONS]


# With ``second_shape``, saxpy also ran 100 times on a smaller grid: ncu lists that
# launch shape on rows of its own, with these per-launch values.
SMALL_GRID = "(4096, 1, 1)"
SMALL = {
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", 1048576, 1048576, 1048576),
    "l1tex__t_sectors.sum": ("sector", 196608, 196608, 196608),
}
SMALL_TIME = ("nsecond", 4000, 4200, 4100.5)


def write_counts(path: Path, second_shape: bool = False) -> Path:
    rows = [
        [*_identity(kernel), "Command line profiler metrics", metric, unit, low, high, f"{avg:,}"]
        for kernel, metrics in COUNTS.items()
        for metric, (unit, low, high, avg) in metrics.items()
    ]
    if second_shape:
        small = {**COUNTS[SAXPY], **SMALL}
        section = "Command line profiler metrics"
        rows += [
            [*_identity(SAXPY, SMALL_GRID), section, metric, unit, low, high, avg]
            for metric, (unit, low, high, avg) in small.items()
        ]
    return _write(path, rows)


def write_times(path: Path, metric: str = "gpu__time_duration.sum", second_shape: bool = False) -> Path:
    # Kernels in the other order than in the counts file, as a second ncu run may list them.
    rows = [
        [*_identity(kernel), "Command line profiler metrics", metric, unit, low, high, avg]
        for kernel, (unit, low, high, avg) in reversed(TIMES.items())
    ]
    if second_shape:
        rows.append([*_identity(SAXPY, SMALL_GRID), "Command line profiler metrics", metric, *SMALL_TIME])
    return _write(path, rows)
