"""Same-layout fixtures of the public ncu exports in the corpus (docs/corpus.md).

The public files themselves stay in their repositories (sample_data/corpus/SOURCES.md
names each with its commit); each function here writes a small file in the layout of
one of them, with numbers known by construction, so a test can check what rooftui
makes of that layout. ``write_all(folder)`` writes every fixture and returns their paths.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from rooftui.ingest.csv_common import RAW_IDENTITY_COLUMNS

DETAILS_HEADER = [*RAW_IDENTITY_COLUMNS, "Section Name", "Metric Name", "Metric Unit", "Metric Value"]
RAW_IDENTITY = list(RAW_IDENTITY_COLUMNS)

# The hand-written SGEMMs of AveryClapp/ESMM-Research (metrics.csv, A10G, cc 8.6), n = 1024:
# the inner loop is n³ FFMA; the epilogue's alpha·acc one FMUL per element (n²).
N = 1024
SGEMM = {
    "ffma": N**3,  # 1,073,741,824
    "fmul": N**2,  # 1,048,576
    "fadd": 0,
    "time_ns": 10_776_576,
    "dram_bytes": 32_746_880,
}
SGEMM_FP32_FLOPS = 2 * SGEMM["ffma"] + SGEMM["fmul"] + SGEMM["fadd"]  # ncu's roofline formula

PERMISSION_ERROR = (
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA "
    "GPU Performance Counters on the target device 0. For instructions on enabling "
    "permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
)
FAILED_TO_PROFILE = '==ERROR== Failed to profile kernel "reduce_tail" in process 4711'


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _text(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def _details_rows(
    launch: int, name: str, cc: str, metrics: list[tuple[str, str, str]], device: str = "0"
) -> list[list[str]]:
    identity = [
        str(launch),
        "17333",
        "a.out",
        "127.0.0.1",
        name,
        "1",
        "7",
        "(32, 32, 1)",
        "(32, 32, 1)",
        device,
        cc,
    ]
    return [identity + ["Command line profiler metrics", m, u, v] for m, u, v in metrics]


def sgemm_details(folder: Path) -> Path:
    """AveryClapp/ESMM-Research metrics.csv: details page, no device name, thousands separators."""
    rows = [DETAILS_HEADER]
    metrics = [
        ("dram__bytes.sum", "byte", f"{SGEMM['dram_bytes']:,}"),
        ("gpu__time_duration.sum", "nsecond", f"{SGEMM['time_ns']:,}"),
        ("sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "0"),
        ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", f"{SGEMM['ffma']:,}"),
        ("sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", f"{SGEMM['fmul']:,}"),
    ]
    rows += _details_rows(0, "basic(int, int, int, const float *, const float *, float *)", "8.6", metrics)
    return _text(
        folder,
        "a10g_sgemm.details.csv",
        "==PROF== Connected to process 17333 (/home/u/a.out)\n"
        + _csv(rows)
        + "==PROF== Disconnected from process 17333\n",
    )


def _raw(
    folder: Path,
    name: str,
    prologue: str,
    launches: list[tuple[str, dict[str, str]]],
    epilogue: str = "",
    device: str = "NVIDIA A100-PCIE-40GB",
    cc: str = "8.0",
) -> Path:
    metrics = sorted({m for _, values in launches for m in values})
    header = RAW_IDENTITY + ["device__attribute_display_name", *metrics]
    # ncu's raw page writes a units row under the header in both unit modes (every raw
    # export of the public corpus has one; ingest/csv_structure.py refuses a table without)
    rows = [header, [""] * (len(RAW_IDENTITY) + 1) + [_raw_unit(m) for m in metrics]]
    for i, (kernel, values) in enumerate(launches):
        rows.append(
            [
                str(i),
                "4711",
                "app",
                "127.0.0.1",
                kernel,
                "1",
                "7",
                "(256, 1, 1)",
                "(4096, 1, 1)",
                "0",
                cc,
                device,
                *(values.get(m, "") for m in metrics),
            ]
        )
    path = folder / name
    path.write_text(prologue + _csv(rows) + epilogue)
    return path


def _raw_unit(metric: str) -> str:
    """The unit ncu prints for ``metric`` in base units (the fixtures give raw counts)."""
    if "pct_of_peak" in metric:
        return "%"
    if "time" in metric:
        return "nsecond"
    if "bytes" in metric:
        return "byte"
    if "cycles" in metric:
        return "cycle"
    return "inst"


def _daxpy(n: int, time_ns: int) -> dict[str, str]:
    """y = a·x + y on n doubles: n DFMA, 3·8·n bytes of DRAM (by construction)."""
    return {
        "gpu__time_duration.sum": str(time_ns),
        "dram__bytes.sum": str(24 * n),
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": str(n),
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum": "0",
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum": "0",
    }


def _blank(values: dict[str, str]) -> dict[str, str]:
    return {m: "n/a" for m in values}


def failed_launch(folder: Path) -> Path:
    """bwd29/self-join-MiSTIC *.ncu-rep: one launch ncu could not replay, every metric blank."""
    return _raw(
        folder,
        "failed_launch.raw.csv",
        "",
        [
            ("daxpy(int, double, const double *, double *)", _daxpy(1 << 20, 40_000)),
            ("nodeByPoint5(unsigned int, double *, double *)", _blank(_daxpy(1, 1))),
            ("daxpy(int, double, const double *, double *)", _daxpy(1 << 22, 160_000)),
        ],
    )


def every_launch_failed(folder: Path) -> Path:
    """bwd29/self-join-MiSTIC profileHIGGS.out.ncu-rep: its only launch failed."""
    return _raw(
        folder,
        "every_launch_failed.raw.csv",
        "",
        [("nodeByPoint5(unsigned int, double *, double *)", _blank(_daxpy(1, 1)))],
    )


def failed_to_profile(folder: Path) -> Path:
    """ncu run live, one launch it could not profile: its error line above the table."""
    prologue = (
        "==PROF== Connected to process 4711 (/usr/bin/app)\n"
        '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 9 passes\n'
        f"{FAILED_TO_PROFILE}\n"
        "==PROF== Disconnected from process 4711\n"
    )
    return _raw(
        folder,
        "failed_to_profile.raw.csv",
        prologue,
        [("daxpy(int, double, const double *, double *)", _daxpy(1 << 20, 40_000))],
        epilogue="==WARNING== Found outstanding GPU clock reset, trying to revert...Success.\n",
    )


def permission_error(folder: Path) -> Path:
    """A CSV whose only content is ncu's ERR_NVGPUCTRPERM (ncu --csv APP > FILE as a user)."""
    return _text(
        folder,
        "permission_error.csv",
        "==PROF== Connected to process 4711 (/usr/bin/app)\n"
        + PERMISSION_ERROR
        + "\n==PROF== Disconnected from process 4711\n==WARNING== No kernels were profiled.\n",
    )


def nothing_profiled(folder: Path) -> Path:
    """ncu found no kernel (a filter that matches nothing): warnings only."""
    return _text(
        folder,
        "nothing_profiled.csv",
        "==PROF== Connected to process 4711 (/usr/bin/python3)\n"
        "==PROF== Disconnected from process 4711\n==WARNING== No kernels were profiled.\n",
    )


def nvprof_metrics(folder: Path) -> Path:
    """nvprof --metrics flop_count_sp,dram_read_bytes --csv (CUDA ≤ 10, Volta and older)."""
    return _text(
        folder,
        "nvprof_metrics.csv",
        "==4242== NVPROF is profiling process 4242, command: ./sgemm\n"
        "==4242== Profiling application: ./sgemm\n==4242== Profiling result:\n"
        + _csv(
            [
                ["Device", "Kernel", "Invocations", "Metric Name", "Metric Description", "Min", "Max", "Avg"],
                [
                    "Tesla V100-SXM2-16GB (0)",
                    "sgemm(float*)",
                    "1",
                    "flop_count_sp",
                    "Floating Point Operations(Single Precision)",
                    "2147483648",
                    "2147483648",
                    "2147483648",
                ],
            ]
        ),
    )


def nvprof_headers_only(folder: Path) -> Path:
    """nvprof --print-gpu-trace --csv --log-file: no ==PID== lines kept by the user's copy."""
    return _text(
        folder,
        "nvprof_trace.csv",
        _csv(
            [
                ["Start", "Duration", "Grid X", "Grid Y", "Grid Z", "Name"],
                ["s", "us", "", "", "", ""],
                ["1.2", "3.4", "1", "1", "1", "k(float*)"],
            ]
        ),
    )


def ncu_text_output(folder: Path) -> Path:
    """AveryClapp/ESMM-Research summary.txt: ncu's default text output, not --csv."""
    return _text(
        folder,
        "ncu_text_output.txt",
        "==PROF== Connected to process 7918 (/home/u/a.out)\n"
        "  esmm(int, int, const float *, float *) (32, 32, 1)x(32, 1, 1), Context 1, Stream 7\n"
        "    Section: GPU Speed Of Light Throughput\n"
        "    ----------------------- ------------- ------------\n"
        "    Metric Name               Metric Unit Metric Value\n"
        "    Duration                      msecond         2.88\n",
    )


def unknown_gpu(folder: Path) -> Path:
    """A GPU no table knows (a future or renamed part): it loads, roofs blank with the reason."""
    return _raw(
        folder,
        "unknown_gpu.raw.csv",
        "",
        [("daxpy(int, double, const double *, double *)", _daxpy(1 << 20, 40_000))],
        device="NVIDIA Imaginary X1 96GB",
        cc="12.7",
    )


def int4_imma_busy(folder: Path) -> Path:
    """eschnett/IndexSpaces.jl profile.ncu-rep (A40, ncu 2022.1, `detailed`): an int4 Tensor
    Core beamformer whose sections hold IMMA only as a % of peak (53.96% busy) and no Tensor
    FLOP/OP counter, beside its FP32/FP64 instruction counters (all 0). Tensor work is present,
    its amount unknown: never zero-AI, never 0 FLOP/s."""
    ops = [f"{precision}{op}" for precision in "fd" for op in ("add", "mul", "fma")]
    zero_fp = {f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": "0" for op in ops}
    imma = "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active"
    hmma = "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active"
    beamformer = {"gpu__time_duration.sum": "8974464", "dram__bytes.sum": "2018820864"}
    beamformer |= {imma: "53.96", hmma: "0"}
    return _raw(
        folder,
        "int4_imma_busy.raw.csv",
        "",
        [("julia_bb_4477", {**zero_fp, **beamformer})],
        device="NVIDIA A40",
        cc="8.6",
    )


ODD_NAMES = [
    "void ns::kernel<float, 4>(float const*, float*, int), with a comma",
    'kernel_with_"quotes"_and_ünïcödé',
    "void at::native::vectorized_elementwise_kernel<" + "(int)4, " * 60 + "float>()",
]


def odd_names(folder: Path) -> Path:
    """Names with commas, quotes, non-ASCII and 500 characters: read back exactly."""
    return _raw(
        folder,
        "odd_names.raw.csv",
        "",
        [(name, _daxpy(1 << (10 + i), 1000 * (i + 1))) for i, name in enumerate(ODD_NAMES)],
    )


def prof_noise(folder: Path) -> Path:
    """The program's output and ncu's lines above and below the table."""
    prologue = (
        "Loading model...\nstep 0 loss 2.31\n==PROF== Connected to process 4711 (/usr/bin/app)\n"
        '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 9 passes\n'
        '==PROF== Profiling "daxpy" - 1: 0%....50%....100% - 9 passes\n'
        "==WARNING== Backing up device memory in system memory. Kernel replay might be slow.\n"
        "done\n==PROF== Disconnected from process 4711\n"
    )
    return _raw(
        folder,
        "prof_noise.raw.csv",
        prologue,
        [
            ("daxpy(int, double, const double *, double *)", _daxpy(1 << 20, 40_000)),
            ("daxpy(int, double, const double *, double *)", _daxpy(1 << 21, 80_000)),
        ],
    )


def details_without_unit(folder: Path) -> Path:
    """A details export with a column cut away (a hand-made extract)."""
    rows = [[c for c in DETAILS_HEADER if c != "Metric Unit"]]
    time = [("gpu__time_duration.sum", "ns", "1000")]
    rows += [r[:13] + r[14:] for r in _details_rows(0, "k", "8.0", time)]
    return _text(folder, "details_without_unit.csv", _csv(rows))


OLD_DETAILS_HEADER = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
]
# ncu 2020.1 `--csv` of the default sections (SOL, launch statistics, occupancy) on a V100:
# section labels with auto-scaled units. Two launches; durations 39.78 us and 1.25 ms.
LABELLED_DURATIONS_NS = (39_780.0, 1_250_000.0)


def _labelled_rows(launch: int, name: str, duration: tuple[str, str]) -> list[list[str]]:
    identity = [str(launch), "548", "python3.7", "127.0.0.1", name, "2020-Jun-10 01:58:21", "1", "7"]
    sections = [
        ("GPU Speed Of Light", "DRAM Frequency", "cycle/nsecond", "0.88"),
        ("GPU Speed Of Light", "SM Frequency", "cycle/nsecond", "1.31"),
        ("GPU Speed Of Light", "Elapsed Cycles", "cycle", "52,136"),
        ("GPU Speed Of Light", "Memory [%]", "%", "85.04"),
        ("GPU Speed Of Light", "Duration", *duration),
        ("GPU Speed Of Light", "SM [%]", "%", "7.30"),
        ("Launch Statistics", "Block Size", "", "256"),
        ("Launch Statistics", "Grid Size", "", "4,096"),
        ("Launch Statistics", "Registers Per Thread", "register/thread", "16"),
        ("Occupancy", "Achieved Occupancy", "%", "80.12"),
    ]
    return [identity + list(row) for row in sections]


def labelled_details(folder: Path) -> Path:
    """ncu 2019.5/2020.1 `nv-nsight-cu-cli --csv APP`: metrics named by their section labels."""
    rows = [OLD_DETAILS_HEADER]
    rows += _labelled_rows(0, "volta_sgemm_128x64_nn", ("usecond", "39.78"))
    rows += _labelled_rows(1, "void at::native::reduce_kernel<512, 1>()", ("msecond", "1.25"))
    return _text(
        folder,
        "labelled_details.csv",
        "==PROF== Connected to process 548 (/usr/bin/python3.7)\n" + _csv(rows),
    )


# SpeedOfLight's "Elapsed Cycles" and "SM Frequency" rows of _labelled_rows: the time
# when "Duration" is missing, 52,136 cycles / 1.31 GHz.
LABELLED_CYCLES_TIME_NS = 52_136 / 1.31


def labelled_details_without_duration_row(folder: Path) -> Path:
    """The section-label layout with its "Duration" row cut out (a SpeedOfLight section of
    a version that printed cycles and clock only): the time is elapsed cycles / SM clock."""
    rows = [OLD_DETAILS_HEADER]
    rows += [r for r in _labelled_rows(0, "k", ("usecond", "1")) if r[9] != "Duration"]
    return _text(folder, "labelled_details_without_duration_row.csv", _csv(rows))


def labelled_details_without_duration(folder: Path) -> Path:
    """The same layout with only the launch statistics section (`--section LaunchStats`)."""
    rows = [OLD_DETAILS_HEADER]
    rows += [r for r in _labelled_rows(0, "k", ("usecond", "1")) if r[8] == "Launch Statistics"]
    return _text(folder, "labelled_details_without_duration.csv", _csv(rows))


FIXTURES = (
    sgemm_details,
    labelled_details,
    labelled_details_without_duration,
    labelled_details_without_duration_row,
    failed_launch,
    every_launch_failed,
    failed_to_profile,
    permission_error,
    nothing_profiled,
    nvprof_metrics,
    nvprof_headers_only,
    ncu_text_output,
    unknown_gpu,
    odd_names,
    prof_noise,
    details_without_unit,
    int4_imma_busy,
)


def write_all(folder: Path) -> dict[str, Path]:
    """Every fixture, written into ``folder``, by the name of the function that writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    return {make.__name__: make(folder) for make in FIXTURES}


if __name__ == "__main__":
    import sys

    for name, path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "corpus_fixtures")).items():
        print(f"{name}: {path}")
