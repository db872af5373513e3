"""Same-layout stand-ins for the paper's published V100 DeepCAM data.

The real files (GitHub cyanguwa/DeepLearningProfiling) carry no licence, so none is
committed; this writes files laid out exactly like them, with values fixed here by
construction so every expected number below is plain arithmetic, not rooftui output:

- ``mlperf-deepcam/PT-fp32-O1-Adam-fw-1/out.<metric>``: one ``nv-nsight-cu-cli``
  2020.1 ``--csv`` run per metric (long details layout: program output and
  ``==PROF==`` lines before the header, ``Kernel Time`` a timestamp, no device or CC
  column, ``sm__sass_*`` spellings, no ``gpu__time_duration``), launch order the same
  in every run, plus the job's own non-export files;
- ``climate-seg-benchmark/TF-fp16-batch2-fwbw-amp-2/out.fp16.lag1.train.<metric>``:
  the same, each run launching the kernels in a different order (as TensorFlow does);
- ``*/CSVs/*.csv``: the authors' per-kernel-name table layout, sums computed here.
"""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

SASS = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
METRICS = [
    "dram__bytes.sum",
    "l1tex__t_bytes.sum",
    "lts__t_bytes.sum",
    "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.avg.per_second",
    "sm__inst_executed_pipe_tensor.sum",
    *(SASS.format(op) for op in ("fadd", "ffma", "fmul", "hadd", "hfma", "hmul")),
]
UNITS = {
    "dram__bytes.sum": "byte",
    "l1tex__t_bytes.sum": "byte",
    "lts__t_bytes.sum": "byte",
    "sm__cycles_elapsed.avg": "cycle",
    "sm__cycles_elapsed.avg.per_second": "cycle/second",
}

COPY = (
    "void at::native::legacy::elementwise_kernel<512, 1, at::native::copy_device_to_device"
    "(at::TensorIterator&, bool)::{lambda(c10::Half)#1}>(int, at::native::copy_device_to_device"
    "(at::TensorIterator&, bool)::{lambda(c10::Half)#1})"
)
CONV = "volta_fp16_s884cudnn_fp16_256x64_ldg8_relu_f2f_exp_small_nhwc2nchw_tn_v1"
BATCHNORM = (
    "void cudnn::detail::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>"
    "(cudnnTensorStruct, __half const*, cudnnTensorStruct, __half*, float const*, float)"
)
RELU = (
    "void at::native::modern::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl"
    "<c10::Half>(at::TensorIterator&, c10::Half, c10::Half)::{lambda(c10::Half, c10::Half)#1}, "
    "at::detail::Array<char*, 3> >(int, at::detail::Array<char*, 3>)"
)


def _launch(name, cycles, clock, tensor=0, fadd=0, ffma=0, fmul=0, hadd=0, hfma=0, hmul=0, l1=0, l2=0, hbm=0):
    return {
        "name": name,
        "sm__cycles_elapsed.avg": cycles,
        "sm__cycles_elapsed.avg.per_second": clock,
        "sm__inst_executed_pipe_tensor.sum": tensor,
        SASS.format("fadd"): fadd,
        SASS.format("ffma"): ffma,
        SASS.format("fmul"): fmul,
        SASS.format("hadd"): hadd,
        SASS.format("hfma"): hfma,
        SASS.format("hmul"): hmul,
        "l1tex__t_bytes.sum": l1,
        "lts__t_bytes.sum": l2,
        "dram__bytes.sum": hbm,
    }


# Seven launches. Zero FLOPs: both copies and the second batch-norm launch, so 3 of 7
# launches are zero-AI, but only the copy kernel (2 launches) is zero-AI by name.
LAUNCHES = [
    _launch(COPY, 5715.5, 1.3e9, l1=4096, l2=4096, hbm=8192),
    _launch(CONV, 661176.75, 1.3e9, tensor=1000, l1=1 << 20, l2=1 << 19, hbm=1 << 18),
    _launch(BATCHNORM, 200000.0, 1.25e9, fadd=50, ffma=3000, fmul=100, l1=65536, l2=32768, hbm=16384),
    _launch(RELU, 124383.0, 1.3e9, hadd=10, hfma=30, hmul=20, l1=8192, l2=8192, hbm=4096),
    _launch(COPY, 5761.25, 1.2e9, l1=2048, l2=2048, hbm=4096),
    _launch(BATCHNORM, 1000.0, 1.25e9, l1=512, l2=512, hbm=512),
    _launch(CONV, 394415.25, 1.3e9, tensor=3000, l1=1 << 21, l2=1 << 20, hbm=1 << 19),
]
PER_LAUNCH_ZERO_AI = 3
PER_NAME_ZERO_AI = 2


def by_name() -> dict[str, dict[str, float]]:
    """The authors' per-kernel-name sums (their notebooks group by ``Kernel Name``)."""
    out: dict[str, dict[str, float]] = {}
    for launch in LAUNCHES:
        row = out.setdefault(launch["name"], {"Count": 0, **{m: 0.0 for m in METRICS}})
        row["Count"] += 1
        for metric in METRICS:
            row[metric] += launch[metric]
    return out


def _run_file(path: Path, metric: str, order: list[int], prologue: list[str]) -> None:
    out = io.StringIO()
    out.write("".join(line + "\n" for line in prologue))
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(
        [
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
    )
    for launch_id, index in enumerate(order):
        launch = LAUNCHES[index]
        value = launch[metric]
        text = f"{value:.2f}" if metric.startswith("sm__cycles") else str(int(value))
        writer.writerow(
            [
                launch_id,
                54231,
                "python3.7",
                "127.0.0.1",
                launch["name"],
                "2020-Jun-10 01:58:21",
                1,
                7,
                "Command line profiler metrics",
                metric,
                UNITS.get(metric, "inst"),
                text,
            ]
        )
    path.write_text(out.getvalue())


def _authors_csv(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Kernel Name", *METRICS, "Count"])
        for name, row in by_name().items():
            writer.writerow([name, *(row[m] for m in METRICS), row["Count"]])


def write_clone(root: Path) -> Path:
    """A directory tree laid out like the paper's repository, as described above."""
    prologue = [
        "Apex flag is True",
        "==PROF== Connected to process 54231 (python3.7)",
        "step is 1",
        "1591779500.8857 REPORT: starting profiling",
        "==PROF== Disconnected from process 54231",
    ]
    pt = root / "mlperf-deepcam" / "PT-fp32-O1-Adam-fw-1"
    pt.mkdir(parents=True)
    for metric in METRICS:
        _run_file(pt / f"out.{metric}", metric, list(range(len(LAUNCHES))), prologue)
    (pt / "fp32-O1-Adam-fw.sh").write_text("#!/bin/bash\nsrun nv-nsight-cu-cli --csv ...\n")
    (pt / "train_hdf5_ddp.py").write_text("import torch\n" * 300)
    (pt / "__pycache__").mkdir()
    (pt / "__pycache__" / "utils.cpython-37.pyc").write_bytes(b"\x00\x01binary")
    _authors_csv(root / "mlperf-deepcam" / "CSVs" / "fp32-O1-Adam-fw.csv")

    tf = root / "climate-seg-benchmark" / "TF-fp16-batch2-fwbw-amp-2"
    tf.mkdir(parents=True)
    shuffle = random.Random(2020)
    for metric in METRICS:
        order = list(range(len(LAUNCHES)))
        shuffle.shuffle(order)
        _run_file(
            tf / f"out.fp16.lag1.train.{metric}",
            metric,
            order,
            ["2020-06-10 01:50:00.1: I tensorflow/core/...: Successfully opened CUDA library"] * 39
            + ["==PROF== Connected to process 18637"],
        )
    _authors_csv(root / "climate-seg-benchmark" / "CSVs" / "fp16-batch2-fwbw-amp.csv")
    return root


# FP64 work for the NERSC-layout file (the paper's runs did not collect it).
FP64 = {
    SASS.format("dadd"): [0, 0, 7, 0, 0, 0, 0],
    SASS.format("dfma"): [0, 0, 1000, 0, 0, 3, 0],
    SASS.format("dmul"): [0, 0, 11, 0, 0, 0, 0],
}


def write_nersc_csv(path: Path) -> Path:
    """One ncu run with every metric of NERSC's run.gpp.customized, in the details layout
    their postprocess.py reads (numbers with thousands separators, which it strips)."""
    out = io.StringIO()
    out.write("==PROF== Connected to process 4242 (./gpp.x)\n==PROF== Disconnected from process 4242\n")
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(
        [
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
    )
    for launch_id, launch in enumerate(LAUNCHES):
        values = {**launch, **{metric: FP64[metric][launch_id] for metric in FP64}}
        for metric in [*METRICS, *FP64]:
            value = values[metric]
            text = f"{value:,.2f}" if metric.startswith("sm__cycles") else f"{int(value):,}"
            writer.writerow(
                [
                    launch_id,
                    4242,
                    "gpp.x",
                    "127.0.0.1",
                    launch["name"],
                    "2020-Jul-08 10:00:00",
                    1,
                    7,
                    "Command line profiler metrics",
                    metric,
                    UNITS.get(metric, "inst"),
                    text,
                ]
            )
    path.write_text(out.getvalue())
    return path
