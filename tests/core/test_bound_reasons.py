"""#28: a binding roof is given only where it is true, and a blank one says why.

The roofline's binding roof is the lowest of min(P, AI_L·B_L) over the levels. With a
partial FLOP total (a counter not collected) the true AI is higher than the shown one by
an unknown amount at every level, so "HBM binds" may be false: the bound stays blank and
``bound_reason`` names what was not collected. Fixtures are ncu raw-CSV exports
(tests/core/test_three_states.py's layout); the roofs are NVIDIA's datasheet rows, the
expected bound follows from the fixture's numbers by hand.
"""

from __future__ import annotations

import json

import pandas as pd

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.views.summary import to_json
from tests.core.test_three_states import CUDA_CORES, FMA, TIME, write_raw

A100 = ("NVIDIA A100-SXM4-80GB", "8.0")  # datasheet: FP32 19.5 TFLOP/s, HBM 2,039 GB/s
# 10^6 FFMA = 2·10^6 FLOPs over 10^8 DRAM bytes: AI 0.02, so HBM allows 0.02 × 2.039e12 =
# 40.8 GFLOP/s, far under the FP32 roof: HBM binds. No Tensor instruction issued: Tensor 0.
STREAM = {
    **TIME,
    **CUDA_CORES,
    FMA.format("ffma"): 1e6,
    "dram__bytes.sum": 1e8,
    "sm__inst_executed_pipe_tensor.sum": 0.0,
}


def test_a_launch_with_every_flop_counter_and_dram_bytes_is_hbm_bound(tmp_path):
    path = write_raw(tmp_path / "a100_stream.csv", *A100, [("stream_kernel", STREAM)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert not row["flops_partial"] and row["flops"] == 2e6
    assert row["bound"] == "HBM" and row["bound_reason"] == ""
    assert row["roof_fraction"] == (2e6 / 100e-6) / (0.02 * 2039e9)


def test_a_partial_flop_total_gets_no_bound_and_says_which_counters_are_missing(tmp_path):
    """The detailed set's case: FP32/FP64 counted, FP16 adds and multiplies not collected."""
    partial = {k: v for k, v in STREAM.items() if "hadd" not in k and "hmul" not in k}
    path = write_raw(tmp_path / "a100_partial.csv", *A100, [("stream_kernel", partial)])
    run = load_run([path], LoadOptions(find_measured=False))
    row = run.kernels.iloc[0]
    assert row["flops_partial"] and row["ai_hbm"] == 0.02  # a lower bound of the true AI
    assert row["bound"] == "" and pd.isna(row["roof_fraction"])
    assert row["bound_reason"].startswith("FLOP total partial (FP16 not collected)")
    kernel = json.loads(json.dumps(to_json(run, run.kernels)))["kernels"][0]
    assert kernel["bound"] == "" and "FP16 not collected" in kernel["bound_reason"]


def test_a_report_without_bytes_says_so(tmp_path):
    """The basic set: time, no FLOP counter, no DRAM bytes."""
    path = write_raw(tmp_path / "basic.csv", *A100, [("k", dict(TIME))])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["bound"] == "" and row["bound_reason"] == "no bytes at any memory level in the report"


def test_a_level_with_bytes_but_no_roof_is_named(tmp_path):
    """L2 sectors collected, no L2 peak in the report, none on the datasheet: L2 might bind."""
    path = write_raw(
        tmp_path / "a100_l2.csv", *A100, [("stream_kernel", {**STREAM, "lts__t_sectors.sum": 1e6})]
    )
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["bound"] == "" and row["bound_reason"].startswith("no L2 roof")


def test_gpu_v100_names_both_datasheet_rows_and_the_exact_model_gets_the_sxm2_roofs(tmp_path):
    """The NERSC runs name no device: --gpu V100 could be the SXM2 (15.7 TFLOP/s FP32) or
    the PCIe part (14): say so, never guess; the exact model gets its row."""
    path = write_raw(tmp_path / "nersc.csv", "", "7.0", [("k", STREAM)])
    run = load_run([path], LoadOptions(find_measured=False, gpu="V100"))
    assert run.ceilings.bandwidth("hbm") is None
    note = next(n for n in run.notes if "'V100': it could be any of" in n)
    assert "Tesla V100 SXM2" in note and "Tesla V100 PCIe" in note and "--gpu 'V100 SXM2 16GB'" in note
    run = load_run([path], LoadOptions(find_measured=False, gpu="Tesla V100-SXM2-16GB"))
    # the exact model: the paper's measured roofs (tests/core/test_published_ceilings.py)
    assert run.ceilings.compute("fp32").value == 15158.6e9
    assert run.ceilings.bandwidth("hbm").value == 828.758e9
    run = load_run([path], LoadOptions(find_measured=False, gpu="Tesla V100-SXM2-32GB"))
    assert run.ceilings.compute("fp32").value == 15.7e12 and run.ceilings.bandwidth("hbm").value == 900e9


def test_a_partial_launch_compute_bound_on_its_known_flops_alone_stays_compute_bound(tmp_path):
    """5·10^8 FFMA = 10^9 FLOPs take 51 µs at the FP32 roof; 10^6 DRAM bytes take 0.5 µs at
    HBM's: compute-bound already, and FP16 work not collected can only add compute time."""
    busy = {**STREAM, FMA.format("ffma"): 5e8, "dram__bytes.sum": 1e6}
    partial = {k: v for k, v in busy.items() if "hadd" not in k and "hmul" not in k}
    path = write_raw(tmp_path / "a100_fma.csv", *A100, [("fma_kernel", partial)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["flops_partial"] and row["bound"] == "FP32" and row["bound_reason"] == ""
    assert pd.isna(row["roof_fraction"])  # the roof of the full mix is unknown


def test_the_detail_pane_says_why_a_kernel_has_no_binding_roof(tmp_path):
    from rich.console import Console

    from rooftui.views.tui.detail_text import describe

    partial = {k: v for k, v in STREAM.items() if "hadd" not in k and "hmul" not in k}
    path = write_raw(tmp_path / "a100_partial.csv", *A100, [("stream_kernel", partial)])
    run = load_run([path], LoadOptions(find_measured=False))
    console = Console(width=200, color_system=None, record=True)
    console.print(describe(run.kernels.iloc[0], run.ceilings, None, False, 200))
    line = next(line for line in console.export_text().splitlines() if "binding roof" in line)
    assert "none: FLOP total partial (FP16 not collected)" in line, line
