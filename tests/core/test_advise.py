"""The advice layer: achievable time per launch, gains, roll-ups, the step budget and findings.

Answers come from how the known-answer kernels are built (FLOPs exact, HBM bytes within
the L2's reach of the bytes they must move) and from launches built here by hand, never
from advise's own output.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rooftui.analysis import load_run
from rooftui.analysis.advise import (
    FLOOR_LIMIT,
    NO_FLOOR,
    LaunchFloor,
    achievable_times,
    launch_floor_of,
    nvtx_tree,
    roll_up,
    with_advice,
)
from rooftui.analysis.advise_budget import KEPT, REMOVED, TraceStep, step_budget
from rooftui.analysis.advise_findings import fusion_runs, precision_gains, verdict
from rooftui.analysis.advise_run import advise
from rooftui.analysis.load_options import LoadOptions
from rooftui.analysis.operations import operation_class
from rooftui.errors import CeilingsError
from rooftui.ingest.launch_floor import find_launch_floor
from rooftui.model.ceilings import Ceiling, CeilingSet, Device
from rooftui.model.columns import FLOP_COLUMNS
from rooftui.sample import sample_ceilings
from tests.conftest import KNOWN, the_sample

L2_BYTES = 62_914_560  # the H200's L2
ROOFS = {"l1": 1e15, "l2": 1e14, "hbm": 1e13}
PEAKS = {
    "fp64": 4e13,
    "fp32": 6e13,
    "fp16": 1.2e14,
    "tensor_fp64": 6e13,
    "tensor_tf32": 4e14,
    "tensor_fp16": 1e15,
    "tensor_bf16": 1e15,
    "tensor_fp8": 2e15,
    "tensor_int8": 2e15,
}


def roofs(**without: bool) -> CeilingSet:
    ceilings = [
        Ceiling(level.upper(), "bandwidth", value, "spec", level=level)
        for level, value in ROOFS.items()
        if level not in without
    ]
    ceilings += [
        Ceiling(p, "compute", value, "spec", precision=p) for p, value in PEAKS.items() if p not in without
    ]
    return CeilingSet(Device("NVIDIA H200", "9.0", 132), tuple(ceilings))


FLOOR = LaunchFloor(2e-6, 1.5e-6, "measured (by hand)")


def launch(**values: object) -> dict[str, object]:
    row: dict[str, object] = {column: 0.0 for column in (*FLOP_COLUMNS, "ops_tensor_int8", "flops")}
    row.update(
        bytes_l1=0.0,
        bytes_l2=0.0,
        bytes_hbm=0.0,
        name="k",
        device="NVIDIA H200",
        cc="9.0",
        nvtx="",
        phase="",
        zero_ai=False,
        communication=False,
        stream=7,
        report="r",
        sm_clock_hz=np.nan,
    )
    row.update(values)
    return row


def frame(*rows: dict[str, object]) -> pd.DataFrame:
    table = pd.DataFrame(list(rows))
    table["id"] = range(len(table))
    return table


@pytest.fixture(scope="module")
def known():
    run = load_run([KNOWN / "known_answer.raw-base.csv"], LoadOptions(ceilings=roofs(), find_measured=False))
    table = achievable_times(run.kernels, roofs(), NO_FLOOR)
    return run.kernels.join(table).set_index("name")


def test_an_fp64_fma_loop_can_do_no_better_than_its_flops_at_the_fp64_peak(known, expected):
    row = known.loc["fma_loop<double>"]
    assert row["limit"] == "FP64"
    assert row["achievable_s"] == pytest.approx(
        expected["fma_loop<double>"]["flops_fp64"] / PEAKS["fp64"], rel=1e-12
    )
    assert row["gain_s"] == pytest.approx(row["time_s"] - 2**32 / PEAKS["fp64"], rel=1e-12)


def test_a_4096_cubed_tensor_gemm_is_bounded_by_2mnk_at_the_tensor_fp16_peak(known):
    row = known.loc["wmma_gemm"]
    assert row["limit"] == "L1" or row["limit"] == "Tensor FP16"
    assert row["achievable_s"] >= 2 * 4096**3 / PEAKS["tensor_fp16"]
    assert row["achievable_s"] == pytest.approx(
        max(2 * 4096**3 / PEAKS["tensor_fp16"], row["bytes_l1"] / ROOFS["l1"], row["bytes_l2"] / ROOFS["l2"]),
        rel=1e-12,
    )


def test_a_copy_is_bounded_by_the_bytes_it_must_move_at_the_hbm_roof(known, expected):
    row = known.loc["copy_f32"]
    must_move = expected["copy_f32"]["bytes_hbm_min"]
    assert row["limit"] == "HBM"
    assert (
        (must_move - L2_BYTES) / ROOFS["hbm"] <= row["achievable_s"] <= (must_move + L2_BYTES) / ROOFS["hbm"]
    )
    assert row["sol_fraction"] == pytest.approx(row["achievable_s"] / row["time_s"])


def test_pipelines_overlap_at_best_so_the_bound_is_the_slowest_pipeline_not_their_sum():
    table = frame(launch(time_s=1e-3, flops_fp32=6e9, flops_tensor_fp16=1e11, flops=1.06e11))
    row = achievable_times(table, roofs(), NO_FLOOR).iloc[0]
    assert row["achievable_s"] == pytest.approx(max(6e9 / 6e13, 1e11 / 1e15))  # 100 us each: 1e-4, not 2e-4
    assert row["achievable_s"] == pytest.approx(1e-4)


def test_a_launch_with_little_work_is_bounded_by_the_launch_floor_and_says_so():
    table = frame(launch(time_s=5e-6, bytes_hbm=1024.0))
    row = achievable_times(table, roofs(), FLOOR).iloc[0]
    assert row["limit"] == FLOOR_LIMIT and row["limit_source"] == "measured (by hand)"
    assert row["achievable_s"] == 2e-6 and row["gain_s"] == pytest.approx(3e-6)
    assert row["roof_s"] == pytest.approx(1024 / 1e13)


def test_a_launch_with_a_quantity_not_collected_gets_no_gain_and_the_reason():
    table = frame(launch(time_s=5e-6, bytes_l2=np.nan), launch(time_s=5e-6, flops_tensor_tf32=1e6, flops=1e6))
    out = achievable_times(table, roofs(tensor_tf32=True), FLOOR)
    assert out["gain_s"].isna().all() and out["achievable_s"].isna().all()
    assert list(out["advise_reason"]) == ["L2 bytes not collected", "no Tensor TF32 roof"]


def test_a_kernel_faster_than_its_bound_has_no_gain_rather_than_a_negative_one():
    row = achievable_times(frame(launch(time_s=1e-6, bytes_hbm=1e8)), roofs(), NO_FLOOR).iloc[0]
    assert row["gain_s"] == 0.0 and row["sol_fraction"] == 1.0


def test_the_bundled_sample_carries_the_floor_measured_on_the_h200(load_once):
    run = load_once(the_sample(), ceilings=sample_ceilings())
    floor = launch_floor_of(run.ceilings)
    assert floor.per_launch_s == pytest.approx(1.536e-6) and floor.interval_s == pytest.approx(
        1.3135e-6, rel=1e-3
    )
    assert floor.source.startswith("measured") and "gpu__time_duration.sum" in floor.how


def test_roofs_without_a_stored_floor_apply_none_and_say_why():
    assert launch_floor_of(roofs()) is NO_FLOOR and "run rooftui measure" in NO_FLOOR.source


def test_a_malformed_floor_in_a_ceilings_file_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "c.json"
    doc = json.loads(sample_ceilings().read_text())
    doc["launch_floor"]["empty_kernel_s"] = -1
    path.write_text(json.dumps(doc))
    ceilings = CeilingSet(
        Device("NVIDIA H200", "9.0"),
        (Ceiling("HBM", "bandwidth", 4e12, "empirical", level="hbm", source="file", origin=str(path)),),
    )
    with pytest.raises(CeilingsError, match=r"c\.json: launch_floor\.empty_kernel_s must be"):
        find_launch_floor(ceilings)


def test_the_budget_never_promises_less_than_launches_times_the_back_to_back_interval():
    floor = LaunchFloor(1e-6, 3e-6, "measured (by hand)")  # interval above the per-launch floor
    table = with_advice(
        frame(*[launch(time_s=4e-6, name="tiny") for _ in range(10)]),
        {"NVIDIA H200": roofs()},
        {"NVIDIA H200": floor},
    )
    budget = step_budget(table, floor)
    assert budget.speed_of_light_s == pytest.approx(10 * 3e-6) == pytest.approx(budget.floor_sum_s)
    assert budget.step_s == pytest.approx(40e-6)


def test_the_budget_bars_add_up_from_the_measured_step_to_the_speed_of_light():
    table = with_advice(
        frame(
            launch(time_s=1e-4, bytes_hbm=1e8, name="copy_kernel"),
            launch(time_s=1e-5, name="ncclKernel_AllReduce", communication=True),
            launch(time_s=5e-6, bytes_l2=np.nan),
        ),
        {"NVIDIA H200": roofs()},
        {"NVIDIA H200": FLOOR},
    )
    budget = step_budget(table, FLOOR, TraceStep(step_s=2e-4, idle_s=5e-5, steps=3, source="t.json: 3 steps"))
    removed = sum(b.seconds or 0 for b in budget.bars if b.kind == REMOVED)
    adjust = sum(b.seconds or 0 for b in budget.bars if b.kind == "adjust")
    kept = sum(b.seconds or 0 for b in budget.bars if b.kind == KEPT)
    assert budget.step_s - removed - adjust == pytest.approx(budget.speed_of_light_s) == pytest.approx(kept)
    bars = {b.label: b.seconds for b in budget.bars}
    assert bars["communication"] == 1e-5 and bars["no bound known"] == 5e-6
    assert bars["GPU idle / host-bound"] == 5e-5 and bars[
        "below the roofs: copy/cast/layout"
    ] == pytest.approx(9e-5)


def test_nvtx_ranges_nest_into_a_tree_whose_nodes_are_one_roofline_point_each():
    table = with_advice(
        frame(
            launch(time_s=1e-5, nvtx="step > fwd", flops_fp32=1e6, flops=1e6, bytes_hbm=1e4),
            launch(time_s=2e-5, nvtx="step > bwd", flops_fp32=3e6, flops=3e6, bytes_hbm=1e4),
            launch(time_s=1e-5, nvtx="step", bytes_hbm=2e4),
        ),
        {"NVIDIA H200": roofs()},
        {"NVIDIA H200": NO_FLOOR},
    )
    tree = nvtx_tree(table)
    assert list(tree.index) == ["step", "step > bwd", "step > fwd"]  # parent first, then by gain
    assert list(tree["depth"]) == [0, 1, 1] and tree.loc["step > fwd", "parent"] == "step"
    step = tree.loc["step"]
    assert step["launches"] == 3 and step["time_s"] == pytest.approx(4e-5)
    assert step["ai_hbm"] == pytest.approx(4e6 / 4e4) and step["flop_rate"] == pytest.approx(4e6 / 4e-5)


def test_roll_up_keeps_launches_without_a_bound_as_unbounded_time_not_as_zero_gain():
    table = with_advice(
        frame(launch(time_s=1e-5, name="a", bytes_hbm=1e4), launch(time_s=3e-5, name="a", bytes_l2=np.nan)),
        {"NVIDIA H200": roofs()},
        {"NVIDIA H200": NO_FLOOR},
    )
    row = roll_up(table, "name").loc["a"]
    assert row["unbounded_s"] == pytest.approx(3e-5) and row["gain_s"] == pytest.approx(1e-5 - 1e4 / 1e13)


@pytest.mark.parametrize(
    ("name", "expected_class"),
    [
        (
            "sm90_xmma_wgrad_indexed_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x64",
            "conv wgrad",
        ),
        ("Kernel<cutlass_tensorop_f16_s16816fprop_optimized_f16_256x128_32x3_nhwc_align8>", "conv fprop"),
        ("ampere_sgemm_128x64_nn", "GEMM"),
        (
            "elementwise_kernel<128, 4, void gpu_kernel_impl_nocast<"
            "direct_copy_kernel_cuda(TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() "
            "[lambda() (instance 10)]::operator ()() [lambda(Half) (instance 1)]>"
            "(TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>",
            "copy/cast/layout",
        ),
        ("batchnorm_fwtr_nhwc_semiPersist<__half, float, __half, 512, 2>", "normalization"),
        (
            "reduce_kernel<512, 1, ReduceOp<float, func_wrapper_t<float, sum_functor<float, float, float>>>>",
            "reduction",
        ),
        ("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>", "attention"),
        ("nll_loss2d_forward_kernel<float, float>", "other"),
    ],
)
def test_operation_classes_fold_the_operations_diff_matches_by(name, expected_class):
    assert operation_class(name) == expected_class


def test_fp32_gemm_is_priced_at_the_16_bit_tensor_roof_with_bytes_halved_and_casts_at_hbm():
    table = with_advice(
        frame(launch(time_s=1e-3, name="ampere_sgemm_128x64_nn", flops_fp32=1e10, flops=1e10, bytes_hbm=1e8)),
        {"NVIDIA H200": roofs()},
        {"NVIDIA H200": NO_FLOOR},
    )
    priced = precision_gains(table, roofs(), NO_FLOOR).iloc[0]
    assert priced["new_s"] == pytest.approx(max(1e10 / 1e15, 1e8 / 2 / 1e13))  # 10 us vs 5 us
    assert priced["cast_s"] == pytest.approx(1.5 * 1e8 / 1e13)
    assert priced["gain_s"] == pytest.approx(1e-3 - 1e-5 - 1.5e-5)


def test_consecutive_elementwise_launches_on_one_stream_form_runs_fusion_would_merge():
    names = [
        "elementwise_kernel<128, 4, MulFunctor<float>>",
        "elementwise_kernel<128, 4, AddFunctor<float>>",
        "ampere_sgemm_128x64_nn",
        "elementwise_kernel<128, 4, MulFunctor<float>>",
        "elementwise_kernel<128, 4, MulFunctor<float>>",
    ]
    table = frame(*[launch(name=n, time_s=1e-5, stream=7 if i < 4 else 8) for i, n in enumerate(names)])
    table["operation_class"] = table["name"].map(operation_class)
    runs = fusion_runs(table)
    assert list(runs) == [0, 0, -1, -1, -1]  # the last two are on different streams


@pytest.mark.parametrize(
    ("limit", "sol", "words"),
    [
        ("HBM", 0.91, "at 91% of the HBM roof: memory-bound, reduce traffic"),
        ("L2", 0.03, "at 3% of every roof: latency/occupancy/launch-bound, not L2"),
        ("Tensor FP16", 0.8, "at 80% of the Tensor FP16 roof: compute-bound"),
        (FLOOR_LIMIT, 0.9, "launch-bound, fuse or batch launches"),
    ],
)
def test_the_verdict_says_what_binds_in_words_a_user_acts_on(limit, sol, words):
    assert words in verdict(limit, sol)


def test_advise_on_the_bundled_sample_bounds_the_step_above_its_floors_and_ranks_findings(load_once):
    run = load_once(the_sample(), ceilings=sample_ceilings())
    advice = advise(run)
    budget = advice.budgets["NVIDIA H200"]
    assert budget.step_s == pytest.approx(run.kernels["time_s"].sum())
    assert len(run.kernels) * 1.536e-6 <= budget.speed_of_light_s < budget.step_s
    gains = [f.gain_s for f in advice.findings]
    assert gains == sorted(gains, reverse=True) and len(gains) >= 10
    assert {"fusion", "zero_ai", "tiny_kernels", "kernel"} <= {f.kind for f in advice.findings}
