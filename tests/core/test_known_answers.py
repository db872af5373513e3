"""The known-answer kernels (kernels/known_answer), profiled on an H200, pin every
formula: FLOPs exactly, L1 bytes exactly, HBM bytes within the L2's reach."""

import pytest

from rooftui.analysis import load_run
from tests.conftest import KNOWN

EXACT_FORMS = ["known_answer.raw-base.csv"]
ALL_FORMS = ["known_answer.raw-base.csv", "known_answer.raw.csv", "known_answer.details.csv"]
L2_BYTES = 62_914_560  # device__attribute_l2_cache_size of the H200


def by_name(run):
    return {row["name"]: row for row in run.kernels.to_dict("records")}


@pytest.mark.parametrize("form", ALL_FORMS)
def test_every_known_answer_kernel_has_its_exact_flops_in_every_export(form, expected):
    rows = by_name(load_run([KNOWN / form]))
    assert set(rows) == set(expected)
    for name, answer in expected.items():
        row = rows[name]
        assert row["flops_fp64"] == answer["flops_fp64"], name
        assert row["flops_fp32"] == answer["flops_fp32"], name
        if answer["pipeline"] != "tensor_int8":
            assert row["flops_tensor"] == answer["flops_tensor"], name
        assert row["pipeline"] == answer["pipeline"], name


def test_wmma_gemm_4096_cubed_is_2mnk_tensor_flops_not_the_volta_rule(expected):
    row = by_name(load_run([KNOWN / "known_answer.raw-base.csv"]))["wmma_gemm"]
    assert row["flops_tensor_fp16"] == 2 * 4096**3 == 137_438_953_472
    assert row["flops"] == 137_438_953_472


def test_each_tensor_source_type_lands_in_its_own_pipeline():
    rows = by_name(load_run([KNOWN / "known_answer.raw-base.csv"]))
    assert rows["wmma_gemm_bf16"]["flops_tensor_bf16"] == 2 * 1024**3
    assert rows["wmma_gemm_tf32"]["flops_tensor_tf32"] == 2 * 1024**3
    assert rows["wmma_gemm_fp64"]["flops_tensor_fp64"] == 2 * 1024**3
    assert rows["wmma_gemm_int8"]["ops_tensor_int8"] == 2 * 1024**3
    assert rows["wmma_gemm_int8"]["flops"] == 0  # integer operations are not FLOPs


def test_fp16_rule_counts_hfma2_as_four_flops_and_marks_it_approximate(expected):
    rows = by_name(load_run([KNOWN / "known_answer.raw-base.csv"]))
    # BF16 on CUDA cores lands here too: ncu's hfma counter takes HFMA2.BF16.
    for name in ("fma_loop<__half2>", "fma_loop<__half>", "fma_loop<__nv_bfloat162>"):
        assert rows[name]["flops_fp16"] == expected[name]["flops_fp16"]
        assert rows[name]["fp16_approximate"]
    # The FP32 loop's HFMA2.MMA register moves show up as a sliver of "FP16".
    assert 0 < rows["fma_loop<float>"]["flops_fp16"] < 0.01 * rows["fma_loop<float>"]["flops_fp32"]
    assert rows["fma_loop<float>"]["pipeline"] == "fp32"


def test_copy_is_zero_ai_and_everything_else_is_not():
    rows = by_name(load_run([KNOWN / "known_answer.raw-base.csv"]))
    assert rows["copy_f32"]["zero_ai"] and rows["copy_f32"]["pipeline"] == "none"
    assert [n for n, r in rows.items() if r["zero_ai"]] == ["copy_f32"]


def test_reread_kernel_moves_exactly_its_l1_bytes(expected):
    row = by_name(load_run([KNOWN / "known_answer.raw-base.csv"]))["reread_l1"]
    assert row["bytes_l1"] == expected["reread_l1"]["bytes_l1"] == 537_919_488
    assert row["flops_fp32"] == 134_217_728
    # AI counts every FLOP, the 1 HFMA2.MMA register move per thread included
    assert row["ai_l1"] == pytest.approx((134_217_728 + 4 * 262_144) / 537_919_488)
    assert row["bytes_hbm"] < 0.01 * row["bytes_l1"]  # cache resident


@pytest.mark.parametrize("name", ["daxpy", "saxpy", "add_mul", "copy_f32"])
def test_streaming_kernels_move_their_bytes_through_hbm(name, expected):
    """Reads come from HBM; writes still dirty in the 60 MiB L2 at the end are not counted."""
    row = by_name(load_run([KNOWN / "known_answer.raw-base.csv"]))[name]
    minimum = expected[name]["bytes_hbm_min"]
    assert minimum - L2_BYTES <= row["bytes_hbm"] <= 1.02 * minimum


def test_raw_csv_in_both_unit_modes_and_details_agree(expected):
    base = load_run([KNOWN / "known_answer.raw-base.csv"]).kernels.set_index("name")
    scaled = load_run([KNOWN / "known_answer.raw.csv"]).kernels.set_index("name")
    details = load_run([KNOWN / "known_answer.details.csv"]).kernels.set_index("name")
    # ncu's default units print 6 decimals of the scaled unit (1 kB of a Gbyte);
    # its details page 2 decimals, about 3 significant digits. FLOPs are printed whole.
    for column, last_digit in (("time_s", 1e-9), ("bytes_l1", 1e3), ("bytes_l2", 1e3), ("bytes_hbm", 1e3)):
        assert ((scaled[column] - base[column]).abs() <= last_digit).all(), column
        assert ((details[column] - base[column]).abs() <= 5e-3 * base[column].abs()).all(), column
    assert (scaled["flops"] == base["flops"]).all() and (details["flops"] == base["flops"]).all()


def test_bounds_name_the_roof_a_streaming_and_a_compute_kernel_hit():
    rows = by_name(load_run([KNOWN / "known_answer.raw-base.csv"]))
    assert rows["daxpy"]["bound"] == "HBM"
    assert rows["fma_loop<double>"]["bound"] == "FP64"
    assert 0.9 < rows["fma_loop<double>"]["roof_fraction"] <= 1.0
    assert rows["copy_f32"]["bound"] == "HBM"  # zero-AI: the level it uses most
