"""#28: a memory roof binds a partial FLOP total when the report caps the missing work.

The fixture is an A100 raw-CSV export (tests/core/test_three_states.py's layout) of a
`detailed`-set kind: FP32/FP64 counted, FP16 and every Tensor type not collected, the
pipes' busy % and ncu's per-cycle peaks present. Every number below follows from how it
is built: 141,000 SM cycles at 1.41 GHz (100 µs); the fma pipe 10% busy and the Tensor
pipe 2%, GA100's fp16 pipe 1% (ncu prints 9.995 / 1.995 / 0.995: rooftui adds the half unit
ncu's two decimals may hide); FP16 then did at most (0.10 + 0.02 + 0.01) × 141,000 cycles ×
13,824 HFMA × 4 FLOPs, i.e. at most 0.13 × 100 µs = 13 µs at the FP16 roof (that roof is the
same peak × the same clock); each Tensor type at most 0.02 × 100 µs × 2 (its peak counts
2:4-sparse work, twice the dense roof) = 4 µs. With 2·10^6 known FP32 FLOPs (0.103 µs at the
FP32 roof) the compute time is at most 17.103 µs; 4·10^7 DRAM bytes take 19.62 µs at the
datasheet's 2,039 GB/s, so HBM binds whatever the uncounted work was; 3·10^7 bytes (14.71 µs) cannot say.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.views.summary import to_json
from tests.core.test_three_states import FMA, UNITS, write_raw

A100 = ("NVIDIA A100-SXM4-80GB", "8.0")
SMS = 108
PEAKS = {  # ncu's .peak_sustained per cycle, whole GPU: the A100's per-SM rates × 108
    FMA.format("dfma") + ".peak_sustained": 32 * SMS,
    FMA.format("ffma") + ".peak_sustained": 64 * SMS,
    FMA.format("hfma") + ".peak_sustained": 128 * SMS,
    "sm__ops_path_tensor_src_fp16.sum.peak_sustained": 4096 * SMS,
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained": 4096 * SMS,
    "sm__ops_path_tensor_src_tf32_dst_fp32.sum.peak_sustained": 2048 * SMS,
    "sm__ops_path_tensor_src_fp64.sum.peak_sustained": 128 * SMS,
    "sm__ops_path_tensor_src_int8.sum.peak_sustained": 8192 * SMS,
}
BUSY = {
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed": 9.995,
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed": 1.995,
    "sm__pipe_fp16_cycles_active.avg.pct_of_peak_sustained_elapsed": 0.995,  # GA100 runs HFMA2 there
}
KERNEL = {
    "gpu__time_duration.sum": 100_000.0,
    "sm__cycles_elapsed.avg": 141_000.0,
    "sm__cycles_elapsed.avg.per_second": 1.41,
    **{FMA.format(f"{p}{op}"): 0.0 for p in "df" for op in ("add", "mul", "fma")},
    FMA.format("ffma"): 1e6,
    **PEAKS,
    **BUSY,
}


@pytest.fixture
def units(monkeypatch):
    for name in BUSY:
        monkeypatch.setitem(UNITS, name, "%")
    for name in PEAKS:
        monkeypatch.setitem(UNITS, name, "inst/cycle")


def _load(tmp_path, launches):
    path = write_raw(tmp_path / "a100_detailed.csv", *A100, launches)
    return load_run([path], LoadOptions(find_measured=False))


def test_the_caps_are_busy_fraction_times_cycles_times_peak(tmp_path, units):
    row = _load(tmp_path, [("rmsnorm", {**KERNEL, "dram__bytes.sum": 4e7})]).kernels.iloc[0]
    assert row["flops_partial"] and row["flops_fp16_state"] == "not_collected"
    assert row["flops_cap_fp16"] == pytest.approx((0.10 + 0.02 + 0.01) * 141_000 * 128 * SMS * 4, rel=1e-12)
    assert row["flops_cap_tensor_fp16"] == pytest.approx(0.02 * 141_000 * 4096 * SMS, rel=1e-12)
    assert pd.isna(row.get("flops_cap_fp32")) and pd.isna(row.get("flops_cap_fp64"))  # FP64 counted


def test_hbm_binds_a_partial_total_when_its_time_exceeds_every_capped_compute_time(tmp_path, units):
    run = _load(tmp_path, [("stream", {**KERNEL, "dram__bytes.sum": 4e7})])
    assert run.ceilings.bandwidth("hbm").value == 2039e9
    row = run.kernels.iloc[0]
    assert row["bound"] == "HBM" and row["bound_basis"] == "capped" and row["bound_reason"] == ""
    assert row["roof_fraction"] == pytest.approx(4e7 / (100e-6 * 2039e9), rel=1e-12)
    kernel = json.loads(json.dumps(to_json(run, run.kernels)))["kernels"][0]
    assert kernel["bound"] == "HBM" and kernel["bound_basis"] == "capped"


def test_a_memory_time_under_the_capped_compute_time_leaves_the_bound_blank(tmp_path, units):
    row = _load(tmp_path, [("stream", {**KERNEL, "dram__bytes.sum": 3e7})]).kernels.iloc[0]
    assert row["bound"] == "" and row["bound_basis"] == "" and pd.isna(row["roof_fraction"])
    assert row["bound_reason"].startswith("FLOP total partial (FP16, Tensor")
    assert row["bound_reason"].endswith(
        "not capped: the missing work could take up to 17 µs at its roofs, more than the memory time allows"
    )


def test_without_the_busy_fractions_nothing_is_capped(tmp_path, units):
    plain = {k: v for k, v in KERNEL.items() if k not in BUSY}
    row = _load(tmp_path, [("stream", {**plain, "dram__bytes.sum": 4e7})]).kernels.iloc[0]
    assert pd.isna(row.get("flops_cap_fp16")) and row["bound"] == ""
    assert row["bound_reason"].startswith("FLOP total partial")
    assert row["bound_reason"].endswith(
        "not capped: the report holds no busy % or per-cycle peak to cap FP16"
    )


def test_a_complete_total_says_its_bound_rests_on_every_counter(tmp_path, units):
    complete = {
        **KERNEL,
        **{FMA.format(f"h{op}"): 0.0 for op in ("add", "mul", "fma")},
        "sm__inst_executed_pipe_tensor.sum": 0.0,
        "dram__bytes.sum": 4e7,
    }
    row = _load(tmp_path, [("stream", complete)]).kernels.iloc[0]
    assert not row["flops_partial"] and row["bound"] == "HBM" and row["bound_basis"] == "complete"


def test_the_detail_pane_says_the_bound_rests_on_a_capped_total_and_ai_is_a_lower_bound(tmp_path, units):
    import io

    from rich.console import Console

    from rooftui.views.tui.detail_text import describe

    run = _load(tmp_path, [("stream", {**KERNEL, "dram__bytes.sum": 4e7})])
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(describe(run.kernels.iloc[0], run.ceilings, None, False, 200))
    text = " ".join(console.export_text().split())  # the titles wrap
    assert "binding roof HBM at 19.6%" in text
    assert "bound basis" in text and "partial FLOP total with the missing work capped" in text
    assert "+ after AI: a lower bound (FLOP total partial)" in text
    assert "HBM 0.05+ 2.04T" in text  # HBM AI: 2e6 FLOPs / 4e7 bytes, at least
    assert "FLOPs (all) 2 MFLOP (partial: some not collected, see notes)" in text


def test_the_text_table_marks_flop_rate_and_ai_of_a_partial_total_as_lower_bounds(tmp_path, units):
    import io

    from rich.console import Console

    from rooftui.views.summary import render_table

    run = _load(tmp_path, [("stream", {**KERNEL, "dram__bytes.sum": 4e7})])
    console = Console(record=True, width=160, file=io.StringIO())
    render_table(run, run.kernels, console, grouped=False)
    text = " ".join(console.export_text().split())
    assert "stream 0 100µs 100% 20G+ 0.05+ FP32 (none) HBM 20%" in text, text
    assert "FLOP/s, AI +: lower bounds" in text


def test_a_group_sums_its_launches_caps_and_keeps_the_capped_bound(tmp_path, units):
    from rooftui.analysis import grouped_kernels

    launches = [
        ("stream", {**KERNEL, "dram__bytes.sum": 4e7}),
        ("stream", {**KERNEL, "dram__bytes.sum": 4e7}),
    ]
    run = _load(tmp_path, launches)
    group = grouped_kernels(run).iloc[0]
    assert group["count"] == 2
    assert group["flops_cap_fp16"] == pytest.approx(2 * 0.13 * 141_000 * 128 * SMS * 4, rel=1e-12)
    assert group["bound"] == "HBM" and group["bound_basis"] == "capped"
    # one launch without the busy fractions: the sum has no cap, the group no bound
    plain = {k: v for k, v in KERNEL.items() if k not in BUSY}
    run = _load(tmp_path, [launches[0], ("stream", {**plain, "dram__bytes.sum": 4e7})])
    group = grouped_kernels(run).iloc[0]
    assert pd.isna(group.get("flops_cap_fp16")) and group["bound"] == ""


def test_fp16_on_a_ga100_is_capped_only_with_its_fp16_pipe_busy_which_ga10x_lacks(tmp_path, units):
    """GA100 runs FP16x2 on its fp16 pipe, GA10x on the fma pipe (NVIDIA's pipe list,
    rooftui.model.pipe_activity.FP16_PIPES_BY_CC): an A100 report without the fp16 pipe's busy %
    cannot cap FP16 (the fma and Tensor pipes' need not show that work); an RTX 3090's can."""
    no_fp16_pipe = {k: v for k, v in KERNEL.items() if "pipe_fp16" not in k}
    row = _load(tmp_path, [("stream", {**no_fp16_pipe, "dram__bytes.sum": 4e7})]).kernels.iloc[0]
    assert pd.isna(row.get("flops_cap_fp16")) and row["bound"] == ""
    assert row["bound_reason"].endswith(
        "not capped: the report holds no busy % or per-cycle peak to cap FP16"
    )
    path = write_raw(
        tmp_path / "ga102.csv",
        "NVIDIA GeForce RTX 3090",
        "8.6",
        [("stream", {**no_fp16_pipe, "dram__bytes.sum": 4e7})],
    )
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["flops_cap_fp16"] == pytest.approx((0.10 + 0.02) * 141_000 * 128 * SMS * 4, rel=1e-12)
