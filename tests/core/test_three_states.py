"""#28: measured, not applicable to this GPU, not collected — never a 0 that means "not collected".

Each fixture is written in the layout of ncu's raw CSV export (`ncu --csv --page raw`:
identity columns, a units row, one row per launch) with the metric set of a kind of
public report the issue names: the `basic` set on a V100, an A40 int4 Tensor Core
kernel seen only by its pipe counters, an A100 report with only pipe_tensor
instruction counts, `full`-set peaks in ncu's sm__ spelling. The expected numbers
come from how each fixture is built (a count of 2·N FMAs is 4·N FLOPs) or from
NVIDIA's datasheet, never from rooftui's output.
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.ingest.csv_common import RAW_IDENTITY_COLUMNS
from rooftui.views.summary import to_json

FMA = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
IDENTITY = list(RAW_IDENTITY_COLUMNS)
UNITS = {
    "gpu__time_duration.sum": "nsecond",
    "sm__cycles_elapsed.avg": "cycle",
    "sm__cycles_elapsed.avg.per_second": "cycle/nsecond",
    "dram__bytes.sum": "byte",
    "lts__cycles_elapsed.avg.per_second": "cycle/nsecond",
    "dram__cycles_elapsed.avg.per_second": "cycle/nsecond",
    "dram__bytes.sum.peak_sustained": "byte/cycle",
    "lts__t_sectors.sum": "sector",
    "lts__t_sectors.sum.peak_sustained": "sector/cycle",
    "l1tex__t_bytes.sum": "byte",
    "l1tex__t_bytes.sum.peak_sustained": "byte/cycle",
    "dram__bytes_op_read.sum": "byte",
    "dram__bytes_op_write.sum": "byte",
    "device__attribute_display_name": "",
    FMA.format("ffma") + ".per_second": "inst/second",
}


def write_raw(path: Path, device: str, cc: str, launches: list[tuple[str, dict[str, float]]]) -> Path:
    """ncu's raw CSV page: identity columns, every metric the launches name, a units row."""
    metrics = list(dict.fromkeys(name for _, values in launches for name in values))
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        writer.writerow(IDENTITY + ["device__attribute_display_name", *metrics])
        writer.writerow([""] * len(IDENTITY) + [""] + [UNITS.get(m, "inst") for m in metrics])
        for i, (kernel, values) in enumerate(launches):
            writer.writerow(
                [
                    str(i),
                    "42",
                    "app",
                    "127.0.0.1",
                    kernel,
                    "1",
                    "7",
                    "(256, 1, 1)",
                    "(1024, 1, 1)",
                    "0",
                    cc,
                    device,
                ]
                + ["" if m not in values else f"{values[m]:.17g}" for m in metrics]
            )
    return path


TIME = {
    "gpu__time_duration.sum": 100_000.0,
    "sm__cycles_elapsed.avg": 141_000.0,
    "sm__cycles_elapsed.avg.per_second": 1.41,
}
CUDA_CORES = {FMA.format(f"{p}{op}"): 0.0 for p in "dfh" for op in ("add", "mul", "fma")}


def test_basic_set_on_a_v100_reads_not_collected_never_zero(tmp_path):
    """ncu's basic set holds no FLOP counter: no FLOP/s 0, no "none", no zero-AI; the
    Tensor pipelines a V100 lacks are not applicable, those it has not collected."""
    path = write_raw(
        tmp_path / "v100_basic.csv",
        "Tesla V100-SXM2-16GB",
        "7.0",
        [("gemm_kernel", {**TIME, "dram__bytes.sum": 1e6})],
    )
    run = load_run([path], LoadOptions(find_measured=False))
    row = run.kernels.iloc[0]
    assert pd.isna(row["flops"]) and pd.isna(row["flop_rate"]) and pd.isna(row["ai_hbm"])
    assert row["pipeline"] == "unknown" and row["zero_ai"] is pd.NA
    assert row["flops_tensor_bf16_state"] == "not_applicable" and pd.isna(row["flops_tensor_bf16"])
    assert row["flops_tensor_fp16_state"] == "not_collected" and row["flops_fp32_state"] == "not_collected"
    doc = json.loads(json.dumps(to_json(run, run.kernels)))
    kernel = doc["kernels"][0]
    assert kernel["flops_partial"] is False and kernel["zero_ai"] is None
    assert kernel["provenance"]["flops"]["tensor_fp8"] == "not_applicable"
    assert kernel["provenance"]["flops"]["fp64"] == "not_collected"
    assert kernel["provenance"]["bytes"] == {"l1": None, "l2": None, "hbm": "dram__bytes", "smem": None}
    assert kernel["provenance"]["time"] == "gpu__time_duration.sum"
    assert doc["summary"]["zero_ai"] == 0 and doc["summary"]["zero_ai_unknown"] == 1


def test_a40_int4_kernel_with_its_tensor_pipe_busy_is_tensor_uncounted_not_zero_ai(tmp_path):
    """The issue's A40 int4 kernel: every CUDA-core FLOP counter 0, no Tensor FLOP counter,
    the IMMA pipe 54% busy. Tensor work present, amount unknown."""
    busy = {"sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active": 54.0}
    path = write_raw(
        tmp_path / "a40_int4.csv",
        "NVIDIA A40",
        "8.6",
        [("cutlass_int4_gemm", {**TIME, **CUDA_CORES, **busy})],
    )
    run = load_run([path], LoadOptions(find_measured=False))
    row = run.kernels.iloc[0]
    assert row["pipeline"] == "tensor_uncounted" and not row["zero_ai"]
    assert row["flops_partial"] and pd.isna(row["flops_tensor"])
    assert row["ops_tensor_int8_state"] == "uncounted" and pd.isna(row["ops_tensor_int8"])
    assert row["flops_tensor_fp8_state"] == "not_applicable"  # Ampere has no FP8 Tensor Cores
    note = next(n for n in run.notes if "partial FLOP total" in n)
    assert "MMA shape" in note
    assert row["bound"] == "" and pd.isna(row["roof_fraction"])
    doc = to_json(run, run.kernels)
    assert doc["summary"]["zero_ai"] == 0
    assert doc["kernels"][0]["pipeline"] == "tensor_uncounted"


def test_pipe_tensor_instructions_alone_leave_ampere_tensor_flops_blank_and_zero_proves_zero(tmp_path):
    """On an A100 the FLOPs per pipe_tensor instruction depend on the MMA shape (and the
    counter counts HFMA2 too): blank, not 0. A launch that issued none did no Tensor work."""
    hmma = {**TIME, **CUDA_CORES, FMA.format("hfma"): 4096.0, "sm__inst_executed_pipe_tensor.sum": 4096.0}
    idle = {**TIME, **CUDA_CORES, "sm__inst_executed_pipe_tensor.sum": 0.0}
    path = write_raw(
        tmp_path / "a100.csv",
        "NVIDIA A100-SXM4-40GB",
        "8.0",
        [("volta_h884gemm", hmma), ("copy_kernel", idle)],
    )
    run = load_run([path], LoadOptions(find_measured=False))
    gemm, copy = run.kernels.iloc[0], run.kernels.iloc[1]
    assert pd.isna(gemm["flops_tensor_fp16"]) and gemm["flops_tensor_fp16_state"] == "not_collected"
    assert gemm["flops"] == 4 * 4096 and gemm["flops_partial"]
    assert gemm["zero_ai"] is not pd.NA and not gemm["zero_ai"]  # FP16 work seen
    assert copy["flops_tensor_fp16"] == 0 and copy["flops_tensor_fp16_state"] == "known_zero"
    assert copy["zero_ai"] and copy["pipeline"] == "none" and not copy["flops_partial"]
    note = next(n for n in run.notes if "issued instructions to the Tensor pipe" in n)
    assert note.startswith("1 launch(es)") and "depend on its shape" in note


def test_an_instruction_mix_count_of_zero_proves_that_precision_did_no_work(tmp_path):
    """sm__sass_thread_inst_executed_op_fp32_pred_on.sum = 0 (InstructionStats) counts
    every FP32 instruction: FP32 FLOPs are 0 though fadd/fmul/ffma were not collected."""
    values = {
        **TIME,
        FMA.format("dfma"): 1000.0,
        FMA.format("dadd"): 0.0,
        FMA.format("dmul"): 0.0,
        "sm__sass_thread_inst_executed_op_fp32_pred_on.sum": 0.0,
    }
    path = write_raw(tmp_path / "mix.csv", "Tesla V100-SXM2-16GB", "7.0", [("dgemm", values)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["flops_fp32"] == 0 and row["flops_fp32_state"] == "known_zero"
    assert row["flops_fp64"] == 2000 and row["flops_fp16_state"] == "not_collected"


def test_volta_total_is_complete_without_the_pipelines_it_lacks(tmp_path):
    """On a V100 every applicable term measured makes a complete total: the Tensor types a
    V100 lacks are not applicable, not missing. 100 HMMA × 512 FLOPs [YANG]."""
    values = {**TIME, **CUDA_CORES, FMA.format("ffma"): 10.0, "sm__inst_executed_pipe_tensor.sum": 100.0}
    path = write_raw(tmp_path / "v100.csv", "Tesla V100-SXM2-16GB", "7.0", [("hgemm", values)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["flops"] == 100 * 512 + 20 and not row["flops_partial"]
    assert row["pipeline"] == "tensor_fp16"


A100_SMS, A100_CLOCK = 108, 1.41  # GHz
FULL_SET_PEAKS = {
    # ncu's full/roofline sets store the FMA peaks in the sm__ spelling [SpeedOfLight_RooflineChart]
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 64.0 * A100_SMS,
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained": 32.0 * A100_SMS,
    "dram__bytes.sum.peak_sustained": 1555e9 / 1.215e9,  # 40 GB: 1555 GB/s at 1215 MHz
    "dram__cycles_elapsed.avg.per_second": 1.215,
    "lts__t_sectors.sum.peak_sustained": 80.0 * 4,  # 80 slices × 4 sectors/cycle
    "lts__cycles_elapsed.avg.per_second": A100_CLOCK,
    "l1tex__t_bytes.sum.peak_sustained": 128.0 * A100_SMS,
}


def test_full_set_report_peaks_in_the_sm_spelling_give_every_roof_and_a_bound(tmp_path):
    """FP32 peak = 64 FMA/clk/SM × 108 SMs × 2 × 1.41 GHz = 19.49 TFLOP/s (the datasheet's
    19.5); DRAM = its per-cycle peak × its clock; L2 = sectors' peak × 32 × L2 clock."""
    values = {
        **TIME,
        **CUDA_CORES,
        FMA.format("ffma"): 1e8,
        "dram__bytes.sum": 4e8,
        "lts__t_sectors.sum": 2e7,
        "l1tex__t_bytes.sum": 8e8,
        "sm__inst_executed_pipe_tensor.sum": 0.0,
        **FULL_SET_PEAKS,
    }
    path = write_raw(tmp_path / "a100_full.csv", "NVIDIA A100-SXM4-40GB", "8.0", [("sgemm", values)])
    run = load_run([path], LoadOptions(find_measured=False))
    roofs = {c.precision or c.level: c for c in run.ceilings.ceilings}
    assert roofs["fp32"].value == pytest.approx(64 * 108 * 2 * 1.41e9, rel=1e-12)
    assert roofs["fp32"].source == "report" and roofs["fp64"].source == "report"
    assert roofs["hbm"].value == pytest.approx(1555e9, rel=1e-12) and roofs["hbm"].source == "report"
    assert roofs["l2"].value == pytest.approx(320 * 32 * 1.41e9, rel=1e-12)
    assert roofs["l2"].caveat  # the tag stage's peak: said unreachable
    row = run.kernels.iloc[0]
    assert row["bytes_l2"] == 2e7 * 32 and row["bytes_l2_source"].startswith("lts__t_sectors × 32")
    # 2e8 FP32 FLOPs: AI 0.5 at HBM (0.78 TFLOP/s attainable), 0.31 at L2 (4.5), 0.25 at
    # L1 (4.9 at 128 B/clk/SM): HBM binds, at 2 TFLOP/s / 0.78 = 257% (a fixture, not a GPU).
    assert row["bound"] == "HBM"
    assert row["roof_fraction"] == pytest.approx(2e12 / (0.5 * 1555e9), rel=1e-9)


def test_rate_derived_counts_are_whole_numbers(tmp_path):
    """ncu's sections store rates; count = rate × duration lands a hair off the integer."""
    values = {**TIME, **CUDA_CORES}
    values.pop(FMA.format("ffma"))
    values[FMA.format("ffma") + ".per_second"] = 1048576 / 100_000e-9 * (1 - 1e-16)
    path = write_raw(tmp_path / "rates.csv", "NVIDIA A100-SXM4-40GB", "8.0", [("k", values)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["flops_fp32"] == 2 * 1048576


def test_reports_of_two_gpus_one_without_peaks_load_without_numpy_warnings(tmp_path):
    with_peaks = write_raw(
        tmp_path / "a.csv", "NVIDIA A100-SXM4-40GB", "8.0", [("k", {**TIME, **CUDA_CORES, **FULL_SET_PEAKS})]
    )
    without = write_raw(tmp_path / "b.csv", "Tesla V100-SXM2-16GB", "7.0", [("k", {**TIME, **CUDA_CORES})])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = load_run([with_peaks, without], LoadOptions(find_measured=False))
    assert len(run.ceilings_by_device) == 2


def test_an_unnamed_gpu_prints_its_compute_capability_once(tmp_path):
    import io

    from rich.console import Console

    from rooftui.views.summary import render_table

    path = write_raw(tmp_path / "unnamed.csv", "", "8.0", [("k", {**TIME, **CUDA_CORES})])
    run = load_run([path], LoadOptions(find_measured=False))
    console = Console(record=True, width=120, file=io.StringIO())
    render_table(run, run.kernels, console, grouped=False)
    text = console.export_text()
    assert "Ceilings unnamed GPU (cc 8.0):" in text and "(cc 8.0) (cc 8.0)" not in text


def test_a_kernel_with_uncounted_tensor_work_has_no_binding_roof(tmp_path):
    """FP32 work counted beside Tensor work that is not: AI and FLOP/s are lower bounds,
    so no roof is named as binding (it would be a guess). op_hmma also counts HFMA2 on
    sm_80+ (sample_data/hopper_hmma): the MMA instructions are op_hmma less its HFMA2 part."""
    busy = {
        "sm__inst_executed_pipe_tensor_op_hmma.sum": 1000.0,
        "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum": 200.0,
    }
    values = {**TIME, **CUDA_CORES, FMA.format("ffma"): 1e6, "dram__bytes.sum": 1e6, **busy, **FULL_SET_PEAKS}
    path = write_raw(tmp_path / "mixed.csv", "NVIDIA A40", "8.6", [("fused_gemm_epilogue", values)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["pipeline"] == "tensor_uncounted" and row["flops"] == 2e6 and row["flops_partial"]
    assert row["bound"] == "" and pd.isna(row["roof_fraction"])


def test_blackwell_dram_bytes_spelled_op_read_and_op_write_give_hbm_bytes(tmp_path):
    """ncu 2026.2 on an RTX 5070 spells DRAM traffic dram__bytes_op_{read,write}.sum."""
    values = {**TIME, "dram__bytes_op_read.sum": 3_000_000.0, "dram__bytes_op_write.sum": 1_000_000.0}
    path = write_raw(tmp_path / "blackwell.csv", "NVIDIA GeForce RTX 5070", "12.0", [("k", values)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["bytes_hbm"] == 4_000_000
    assert row["bytes_hbm_source"] == "dram__bytes_op_read + dram__bytes_op_write"
