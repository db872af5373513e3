"""#28 on the H200's own reports: HFMA2 on the Tensor pipe is not Tensor work, and a
partial total whose missing work is capped gets the bound the complete total gets.

sample_data/hopper_hmma/ (sample_data/make/make_hopper_hmma.sh, ncu 2025.3.1 on an H200):
PyTorch's BF16 RMSNorm, FP16 SiLU and FP32 random fill, which do no matrix math, and a
2048³ BF16 GEMM (cuBLAS, HGMMA), profiled once with every Tensor/FMA pipe counter
(torch.raw-base.csv) and once with ncu's `detailed` set (torch_detailed.raw-base.csv).
The independent answers: the per-type counters of the first export (op_hmma is all
HFMA2 for the three, all HGMMA for the GEMM) and the GEMM's 2·2048³ FLOPs.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions

DATA = Path(__file__).resolve().parents[2] / "sample_data"
HMMA = DATA / "hopper_hmma"
KNOWN_ANSWER_ROOFLINE = DATA / "known_answer" / "known_answer_roofline.raw.csv"
MMA_TYPES = "hmma_hgmma_qgmma_imma_igmma_bmma_bgmma"
ELEMENTWISE = ("vectorized_layer_norm", "silu_kernel", "distribution_elementwise")


def _raw(path: Path) -> pd.DataFrame:
    rows = list(csv.reader(path.open()))
    frame = pd.DataFrame(rows[2:], columns=rows[0])
    return frame.set_index("Kernel Name")


def _number(value: str) -> float:
    return float(value.replace(",", ""))


def test_op_hmma_counts_hfma2_in_elementwise_kernels_and_hgmma_in_the_gemm():
    """What the fix rests on, read straight from ncu's export (no rooftui code)."""
    raw = _raw(HMMA / "torch.raw-base.csv")
    for name, row in raw.iterrows():
        hmma = _number(row["sm__inst_executed_pipe_tensor_op_hmma.sum"])
        hfma2 = _number(row["sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"])
        gmma = _number(row["sm__inst_executed_pipe_tensor_op_gmma.sum"])
        mma_cycles = _number(row[f"sm__pipe_tensor_type_{MMA_TYPES}_cycles_active.sum"])
        assert hmma > 0
        if any(kernel in name for kernel in ELEMENTWISE):
            assert hmma == hfma2 and gmma == 0 and mma_cycles == 0
        else:
            assert hfma2 == 0 and hmma == gmma and mma_cycles > 0
            assert _number(row["sm__ops_path_tensor_src_bf16_dst_fp32.sum"]) == 2 * 2048**3


def test_elementwise_kernels_of_a_detailed_h200_report_are_not_tensor_work():
    kernels = load_run([HMMA / "torch_detailed.raw-base.csv"], LoadOptions(find_measured=False)).kernels
    elementwise = kernels["demangled"].str.contains("|".join(ELEMENTWISE))
    assert elementwise.sum() == 3
    assert (kernels.loc[elementwise, "pipeline"] == "fp32").all()
    assert (kernels.loc[elementwise, "flops_tensor_bf16_state"] == "not_collected").all()
    gemm = kernels[~elementwise].iloc[0]
    assert gemm["pipeline"] == "tensor_uncounted" and gemm["flops_tensor_bf16_state"] == "uncounted"


def test_the_gemm_counts_its_analytic_flops_when_the_counter_is_collected():
    kernels = load_run([HMMA / "torch.raw-base.csv"], LoadOptions(find_measured=False)).kernels
    gemm = kernels[kernels["demangled"].str.startswith("nvjet")].iloc[0]
    assert gemm["flops_tensor_bf16"] == 2 * 2048**3 and gemm["pipeline"] == "tensor_bf16"


def _with_fp8_counted_zero(tmp_path: Path) -> Path:
    """The roofline-set report with the FP8 counter it lacks written in as 0: the truth,
    since no kernel of kernels/known_answer/known_answer.cu uses an FP8 type."""
    rows = list(csv.reader(KNOWN_ANSWER_ROOFLINE.open()))
    rows[0].append("sm__ops_path_tensor_src_fp8.sum")
    rows[1].append("inst")
    for row in rows[2:]:
        row.append("0")
    path = tmp_path / "known_answer_roofline_fp8.raw.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle, quoting=csv.QUOTE_ALL).writerows(rows)
    return path


def test_capped_bounds_on_the_roofline_set_are_the_bounds_of_the_complete_total(tmp_path):
    options = LoadOptions(find_measured=False)
    capped = load_run([KNOWN_ANSWER_ROOFLINE], options).kernels
    complete = load_run([_with_fp8_counted_zero(tmp_path)], options).kernels
    assert capped["flops_partial"].all() and not complete["flops_partial"].any()
    # wmma_gemm_int8 has no bound either way: INT8 OPs are not FLOPs, so it has no compute roof
    assert (complete["bound"] == "").sum() == 1
    given = capped["bound"] != ""
    assert list(capped["bound_basis"].value_counts().sort_index().items()) == [
        ("", 2),
        ("capped", 7),
        ("known_part", 5),  # the FMA loops: compute-bound on their known FLOPs
        ("zero_ai_partial", 1),  # copy_f32: zero-AI on every counter but FP8, never "complete"
    ]
    assert (capped.loc[given, "bound"] == complete.loc[given, "bound"]).all()
    is_capped = capped["bound_basis"] == "capped"
    difference = capped.loc[is_capped, "roof_fraction"] - complete.loc[is_capped, "roof_fraction"]
    assert difference.abs().max() < 1e-12
    # wmma_gemm_fp64 keeps the Tensor pipe 23% busy: FP8 could have taken half the run
    blank = capped[~given & (complete["bound"] != "")].iloc[0]
    assert blank["name"].startswith("wmma_gemm_fp64")
    assert blank["bound_reason"].startswith("FLOP total partial")
