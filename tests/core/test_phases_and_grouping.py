"""Phases of the real PyTorch step, grouping, Table III and several reports at once."""

import pytest

from rooftui.analysis import grouped_kernels, load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.analysis.summary import phase_table, zero_ai_table
from tests.conftest import DEEPCAM, KNOWN

AMP = DEEPCAM / "deepcam_amp.raw-base.csv.xz"


def test_backward_kernels_from_the_autograd_thread_are_inferred_in_launch_order(load_once):
    kernels = load_once(AMP).kernels.sort_values("ncu_id")
    assert kernels["phase"].tolist() == ["forward"] * 76 + ["backward"] * 90 + ["optimizer"] * 13
    inferred = kernels[kernels["phase_inferred"]]
    assert len(inferred) == 88 and set(inferred["phase"]) == {"backward"}
    assert (kernels.loc[kernels["nvtx"] != "", "phase_inferred"] == False).all()  # noqa: E712


def test_inference_can_be_turned_off():
    kernels = load_run([AMP], LoadOptions(infer_phases=False)).kernels
    assert (kernels["phase"] == "").sum() == 88
    assert not kernels["phase_inferred"].any()


def test_phase_names_are_configurable():
    options = LoadOptions(phase_specs=("fwd=forward", "bwd=backward", "opt=optim"))
    counts = load_run([AMP], options).kernels["phase"].value_counts()
    assert counts.to_dict() == {"bwd": 90, "fwd": 76, "opt": 13}


def test_table_three_counts_zero_ai_launches_and_their_time_per_phase(load_once):
    kernels = load_once(AMP).kernels
    table = zero_ai_table(kernels).set_index("phase")
    zero = kernels["zero_ai"].astype(bool)
    assert table.loc["all", "kernels"] == 179
    assert table.loc["all", "zero_ai"] == zero.sum() > 0
    zero_time = kernels.loc[zero, "time_s"].sum()
    assert table.loc["all", "zero_ai_time_share"] == zero_time / kernels["time_s"].sum()
    assert table.loc[["forward", "backward", "optimizer"], "zero_ai"].sum() == zero.sum()
    assert phase_table(kernels)["kernels"].sum() == 179


def test_grouping_sums_invocations_and_recomputes_intensity(load_once):
    run = load_once(AMP)
    groups = grouped_kernels(run)
    assert groups["count"].sum() == 179
    assert abs(groups["time_s"].sum() - run.kernels["time_s"].sum()) < 1e-12
    many = groups[groups["count"] > 1].iloc[0]
    members = run.kernels[run.kernels["name"] == many["name"]]
    assert many["flops"] == members["flops"].sum()
    assert many["ai_hbm"] == members["flops"].sum() / members["bytes_hbm"].sum()
    assert many["time_mean_s"] == pytest.approx(members["time_s"].mean(), rel=1e-12)


def test_a_group_pipeline_is_that_of_its_summed_flops_and_zero_ai_needs_every_launch(load_once):
    run = load_once(AMP)
    for group in grouped_kernels(run).to_dict("records"):
        members = run.kernels[run.kernels["name"] == group["name"]]
        if members["flops"].sum() > 0:
            assert group["pipeline"] != "none", group["name"]
            assert not group["zero_ai"]
        else:
            assert group["pipeline"] == "none" and group["zero_ai"]


def test_several_reports_load_as_one_run_with_distinct_ids(expected):
    run = load_run([KNOWN / "known_answer.raw-base.csv", AMP])
    assert len(run.kernels) == len(expected) + 179
    assert run.kernels["id"].is_unique
    assert set(run.kernels["report"]) == {str(KNOWN / "known_answer.raw-base.csv"), str(AMP)}


def test_group_keeps_kernels_of_different_namespaces_apart(load_once):
    """#28: cuDNN's cask_cudnn::computeOffsetsKernel and cudnn::gemm::computeOffsetsKernel
    share a short name but are two kernels: two groups, each named with its namespaces."""
    from rooftui.analysis.grouping import group_by_name

    run = load_once(KNOWN / "known_answer.raw-base.csv")
    three = run.kernels.head(3).copy()
    three["demangled"] = [
        "void cask_cudnn::computeOffsetsKernel<(bool)0>(cask_cudnn::Params)",
        "cudnn::gemm::computeOffsetsKernel(cudnn::gemm::Params)",
        "cudnn::gemm::computeOffsetsKernel(cudnn::gemm::Params)",
    ]
    three["name"] = "computeOffsetsKernel"
    groups = group_by_name(three).set_index("name")
    assert sorted(groups.index) == [
        "cask_cudnn::computeOffsetsKernel<0>",
        "cudnn::gemm::computeOffsetsKernel",
    ]
    assert groups.loc["cudnn::gemm::computeOffsetsKernel", "count"] == 2
    assert groups.loc["cask_cudnn::computeOffsetsKernel<0>", "count"] == 1
