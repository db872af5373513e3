"""What AMP changed in the DeepCAM step, kernel by kernel and overall (the sample reports).

Known answers come from the reports themselves, summed here independently of the
matcher (by kernel name), so a matching or joining bug shows as a difference.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from rooftui.analysis.compare import operation_key
from tests.compare.conftest import AMP, FP32
from tests.conftest import run_cli

GOLDEN = Path(__file__).with_name("golden_fp32_vs_amp.json")
WGRAD_TF32 = (
    "sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x32_"
    "warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn"
)
WGRAD_F16 = (
    "sm90_xmma_wgrad_indexed_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_"
    "warpgroupsize1x1x1_g1_execute_segment_k_on_kernel__5x_cudnn"
)


def conv_time(run, direction: str, phase: str) -> float:
    """Time of the convolution kernels of one direction and phase, by operation key, per launch."""
    kernels = run.kernels
    keys = kernels["name"].map(operation_key)
    return float(kernels.loc[(keys == f"conv {direction}") & (kernels["phase"] == phase), "time_s"].sum())


@pytest.mark.parametrize(
    "direction, phase", [("fprop", "forward"), ("dgrad", "backward"), ("wgrad", "backward")]
)
def test_convolutions_move_from_tf32_to_fp16_tensor_cores_and_get_faster(
    comparison, fp32_run, amp_run, direction, phase
):
    ops = comparison.operations.set_index(["phase", "operation"])
    row = ops.loc[(phase, f"conv {direction}")]
    assert (row["pipeline_a"], row["pipeline_b"]) == ("tensor_tf32", "tensor_fp16")
    assert row["time_s_a"] == pytest.approx(conv_time(fp32_run, direction, phase), rel=1e-12)
    assert row["time_s_b"] == pytest.approx(conv_time(amp_run, direction, phase), rel=1e-12)
    assert row["time_s_b"] < row["time_s_a"]


def test_the_three_convolution_directions_in_numbers(comparison):
    ops = comparison.operations.set_index(["phase", "operation"])
    times = {
        op: (ops.loc[(phase, op), "time_s_a"] * 1e6, ops.loc[(phase, op), "time_s_b"] * 1e6)
        for phase, op in [("forward", "conv fprop"), ("backward", "conv dgrad"), ("backward", "conv wgrad")]
    }
    # µs per training step, summed from gpu__time_duration.sum of the reports.
    assert times["conv fprop"] == pytest.approx((132.704, 79.904), abs=1e-3)
    assert times["conv dgrad"] == pytest.approx((154.432, 65.920), abs=1e-3)
    assert times["conv wgrad"] == pytest.approx((266.016, 219.712), abs=1e-3)


def test_heaviest_matched_kernel_is_the_wgrad_in_both_precisions(comparison):
    first = comparison.matched.iloc[0]
    assert (first["name_a"], first["name_b"], first["method"]) == (WGRAD_TF32, WGRAD_F16, "parameters")
    assert (first["pipeline_a"], first["pipeline_b"]) == ("tensor_tf32", "tensor_fp16")
    assert (first["count_a"], first["count_b"]) == (4, 3)
    assert first["time_s_a"] * 1e6 == pytest.approx(118.784)
    assert first["time_s_b"] * 1e6 == pytest.approx(40.672)
    assert first["flop_rate_b"] / first["flop_rate_a"] == pytest.approx(2.615, abs=1e-3)


def test_every_kernel_is_matched_or_listed_once(comparison, fp32_run, amp_run):
    kernels = comparison.kernels
    names_a = kernels["name_a"].dropna()
    names_b = kernels["name_b"].dropna()
    assert sorted(names_a) == sorted(fp32_run.kernels["name"].unique())
    assert sorted(names_b) == sorted(amp_run.kernels["name"].unique())
    counts = kernels["method"].value_counts().to_dict()
    # 16 names run in both; one of them, the FP32 direct copy, is matched with AMP's Half copy,
    # which 5 of its 6 launches align with (tests/compare/test_alignment.py).
    assert len(set(fp32_run.kernels["name"]) & set(amp_run.kernels["name"])) == 16
    assert counts == {"parameters": 21, "exact": 15, "operation": 17}
    assert (len(comparison.only_a), len(comparison.only_b)) == (8, 20)


def test_totals_per_phase_pipeline_and_table3_side_by_side(comparison):
    assert comparison.total_time("a") * 1e3 == pytest.approx(1.578688)
    assert comparison.total_time("b") * 1e3 == pytest.approx(1.378496)
    table3 = comparison.zero_ai.set_index("phase")
    assert list(table3.index) == ["forward", "backward", "optimizer", "all"]
    assert table3.loc["all", ["kernels_a", "zero_ai_a", "kernels_b", "zero_ai_b"]].tolist() == [
        153,
        40,
        179,
        34,
    ]
    assert table3.loc["backward", ["zero_ai_a", "zero_ai_b"]].tolist() == [18, 7]
    pipelines = comparison.pipelines.set_index("pipeline")
    assert math.isnan(pipelines.loc["tensor_tf32", "time_s_b"])  # no TF32 left under AMP
    assert math.isnan(pipelines.loc["tensor_fp16", "time_s_a"])
    assert pipelines.loc["tensor_fp16", "kernels_b"] == 37
    phases = comparison.phases.set_index("phase")
    backward = phases.loc["backward"]
    assert backward["time_s_b"] / backward["time_s_a"] == pytest.approx(0.7929, abs=1e-4)


def test_diff_prints_the_convolution_shift_in_80_columns():
    result = run_cli("diff", FP32, AMP)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    wgrad = next(line for line in lines if "conv wgrad" in line)
    assert wgrad.split() == [
        "backward",
        "conv",
        "wgrad",
        "13→12",
        "266µs",
        "220µs",
        "-17%",
        "TC",
        "TF32→TC",
        "FP16",
    ]
    assert "GPU time 1.58 ms → 1.38 ms (-13%)" in result.stdout
    assert "Zero-AI launches (Table III)" in result.stdout


def test_diff_csv_has_one_row_per_pair_or_lone_kernel(comparison):
    # what `diff --format csv` writes (that the command writes it: tests/cli/test_report_options.py)
    from rooftui.views.compare import to_csv

    header, *rows = to_csv(comparison).splitlines()
    assert header.startswith("status,method,key,rank,candidates_a,candidates_b,name_a,")
    assert len(rows) == 53 + 8 + 20


def test_diff_of_a_missing_report_is_one_line_and_exit_code_2(tmp_path):
    result = run_cli("diff", FP32, tmp_path / "nope.ncu-rep")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "nope.ncu-rep" in result.stderr


# ---------------------------------------------------------------- golden JSON


def _portable(doc: dict) -> dict:
    """The document without what differs by checkout: report paths, and the loader's notes' wording."""
    doc.pop("notes")
    doc.pop("notes_detail")  # the same notes, as data (tests/core/test_notes.py checks them)
    for side in ("a", "b"):
        doc[side]["reports"] = [Path(p).name for p in doc[side]["reports"]]
    return doc


def _same(expected, actual, where="$") -> list[str]:
    """Differences between two JSON documents; floats within a relative 1e-9."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = [f"{where}: keys {sorted(set(expected) ^ set(actual))}"] if set(expected) != set(actual) else []
        shared = [k for k in expected if k in actual]
        return out + [d for k in shared for d in _same(expected[k], actual[k], f"{where}.{k}")]
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{where}: {len(expected)} items, now {len(actual)}"]
        return [d for i, (e, a) in enumerate(zip(expected, actual)) for d in _same(e, a, f"{where}[{i}]")]
    if isinstance(expected, float) or isinstance(actual, float):
        if (
            isinstance(expected, (int, float))
            and isinstance(actual, (int, float))
            and math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-15)
        ):
            return []
    elif expected == actual:
        return []
    return [f"{where}: {expected!r} -> {actual!r}"]


def test_json_matches_the_golden_document(comparison):
    from rooftui.views.compare import to_json

    doc = _portable(json.loads(json.dumps(to_json(comparison))))
    if os.environ.get("ROOFTUI_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    golden = json.loads(GOLDEN.read_text())
    assert _same(golden, doc) == []


def test_golden_comparison_notices_a_changed_number(comparison):
    from rooftui.views.compare import to_json

    doc = _portable(json.loads(json.dumps(to_json(comparison))))
    doc["matched"][0]["b"]["time_s"] *= 1.001
    assert _same(json.loads(GOLDEN.read_text()), doc) == [
        f"$.matched[0].b.time_s: {json.loads(GOLDEN.read_text())['matched'][0]['b']['time_s']!r} -> "
        f"{doc['matched'][0]['b']['time_s']!r}"
    ]


def test_json_says_how_each_pair_was_matched_and_what_changed(comparison):
    from rooftui.views.compare import to_json

    doc = to_json(comparison)
    assert doc["schema"] == "rooftui.compare/1"
    assert doc["matching"] == {
        "exact": 15,
        "parameters": 21,
        "operation": 17,
        "similar": 0,
        "by_aligned": 48,
        "by_name": 5,
        "aligned_launches": 128,
        "only_a": 8,
        "only_b": 20,
    }
    assert {p["how"] for p in doc["matched"]} == {"aligned", "name"}
    first = doc["matched"][0]
    assert first["change"]["pipeline"] == {"a": "tensor_tf32", "b": "tensor_fp16"}
    assert set(first["a"]["ai"]) == {"l1", "l2", "hbm"}
    ranked = next(p for p in doc["matched"] if p["how"] == "name" and p["candidates"]["b"] > 1)
    assert ranked["rank"] >= 1 and ranked["aligned_launches"] == 0
    assert first["how"] == "aligned" and first["aligned_launches"] == 3
