"""Exact findings on hand-made traces whose every microsecond is known (kineto_builder)."""

from __future__ import annotations

import pytest

from rooftui.timeline import analyze_trace
from tests.timeline.kineto_builder import KinetoTraceBuilder, naive_step


def by_kind(analysis, kind):
    return [f for f in analysis.findings if f.kind == kind]


def test_item_behind_the_blocking_pageable_d2h_copy_is_named(built_naive):
    analysis = analyze_trace(built_naive)
    (d2h,) = [f for f in by_kind(analysis, "pageable_copy") if "DtoH" in f.details["copy"]]
    assert d2h.host_call == "aten::item > aten::_local_scalar_dense"
    assert d2h.range == "optimizer"
    assert d2h.stream == 7
    assert d2h.details["blocks_host"] is True
    assert d2h.details["bytes_per_step"] == 4
    # cudaMemcpyAsync at 782 µs until the stream sync returns at 798 µs
    assert d2h.cost_per_step_s == pytest.approx(16e-6)
    assert d2h.steps == [1, 2, 3]
    assert d2h.count_per_step == 1


def test_synchronous_pageable_input_copy_counts_its_stream_sync_as_host_wait(built_naive):
    analysis = analyze_trace(built_naive)
    (h2d,) = [f for f in by_kind(analysis, "pageable_copy") if "HtoD" in f.details["copy"]]
    assert h2d.title.startswith("Blocking host→device copy from pageable memory")
    assert h2d.host_call == "aten::to > aten::_to_copy > aten::copy_"
    assert h2d.range == "data_loading"
    assert h2d.details["copy_time_per_step_s"] == pytest.approx(80e-6)
    assert h2d.cost_per_step_s == pytest.approx(94e-6)  # 303 µs → sync returns at 397 µs
    # the stream syncs belong to the copies, so no separate sync finding repeats them
    assert by_kind(analysis, "sync_call") == []


def test_gpu_idle_share_and_where_the_gpu_idles(built_naive):
    analysis = analyze_trace(built_naive)
    # busy per step: copy 80 + 4 convs 180 + 20 adds 40 + item copy 2 = 302 of 1000 µs
    assert analysis.idle_share == pytest.approx(0.698)
    (idle,) = by_kind(analysis, "gpu_idle")
    assert idle.cost_per_step_s == pytest.approx(698e-6)
    assert idle.range == "data_loading"
    by_range = idle.details["idle_per_step_s_by_range"]
    assert by_range["data_loading"] == pytest.approx(319e-6)
    assert by_range["optimizer"] == pytest.approx(158e-6)
    assert by_range["forward"] == pytest.approx(20e-6)
    assert by_range["(outside any range)"] == pytest.approx(201e-6)


def test_data_loading_that_the_gpu_waits_for_is_reported(built_naive):
    (overlap,) = by_kind(analyze_trace(built_naive), "data_loading_overlap")
    assert overlap.cost_per_step_s == pytest.approx(319e-6)
    assert overlap.details["data_loading_per_step_s"] == pytest.approx(399e-6)
    assert overlap.details["overlapped_share"] == pytest.approx(80 / 399, abs=1e-4)


def test_per_parameter_optimizer_kernels_are_a_launch_bound_stretch(built_naive):
    (launch,) = by_kind(analyze_trace(built_naive), "launch_bound")
    assert launch.range == "optimizer"
    assert launch.host_call == "aten::add_"
    assert launch.details["kernels_per_step"] == 20
    assert launch.details["median_kernel_s"] == pytest.approx(2e-6)
    assert launch.details["median_gap_s"] == pytest.approx(6e-6)
    assert launch.cost_per_step_s == pytest.approx(19 * 6e-6)


def test_the_fixed_pipeline_has_no_findings(built_fixed):
    analysis = analyze_trace(built_fixed)
    assert analysis.findings == []
    assert analysis.idle_share == pytest.approx(0.04)


def test_findings_are_ordered_by_cost(built_naive):
    costs = [f.cost_per_step_s for f in analyze_trace(built_naive).findings]
    assert costs == sorted(costs, reverse=True)
    assert len(costs) == 5


def test_a_trace_without_step_markers_is_one_step(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    b.events = [e for e in b.events if not e["name"].startswith("ProfilerStep#")]
    analysis = analyze_trace(b.write(tmp_path / "nosteps.json"))
    assert not analysis.has_step_markers
    (step,) = analysis.steps
    assert step.label == "whole trace"
    # from the first GPU activity (310 µs) to the last (792 µs)
    assert step.duration == pytest.approx(482e-6)
    assert {f.kind for f in analysis.findings} >= {"pageable_copy", "launch_bound"}


def test_a_device_synchronize_in_the_step_is_its_own_finding(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    b.op("aten::empty_cache_and_sync", 810, 50)
    b.runtime("cudaDeviceSynchronize", 811, 40)
    (sync,) = [f for f in analyze_trace(b.write(tmp_path / "sync.json")).findings if f.kind == "sync_call"]
    assert sync.title.startswith("cudaDeviceSynchronize")
    assert sync.host_call == "aten::empty_cache_and_sync"
    assert sync.cost_per_step_s == pytest.approx(40e-6)


def test_a_copy_whose_launch_was_lost_is_still_reported_without_a_host_call(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    b.events = [
        e for e in b.events if not (e.get("cat") == "cuda_runtime" and e["name"] == "cudaMemcpyAsync")
    ]
    copies = [f for f in analyze_trace(b.write(tmp_path / "lost.json")).findings if f.kind == "pageable_copy"]
    assert len(copies) == 2
    assert all(f.host_call == "" and not f.details["blocks_host"] for f in copies)


def test_two_copies_in_one_operator_each_count_only_their_own_sync(tmp_path):
    b = KinetoTraceBuilder()
    b.annotation("ProfilerStep#1", 0, 1000)
    b.kernel("void busy_kernel(...)", 5, 10, 200)
    b.op("aten::_copy_two_to_host", 20, 400)
    b.memcpy("Memcpy DtoH (Device -> Pageable)", 30, 10, 210, 5, 1024)
    b.runtime("cudaStreamSynchronize", 45, 175)  # waits for the kernel and copy A: to 220
    b.memcpy("Memcpy DtoH (Device -> Pageable)", 300, 10, 305, 5, 1024)
    b.runtime("cudaStreamSynchronize", 312, 8)  # copy B: 300 → 320
    (copy,) = [f for f in analyze_trace(b.write(tmp_path / "two.json")).findings if f.kind == "pageable_copy"]
    assert copy.count_per_step == 2
    assert copy.details["host_blocked_per_step_s"] == pytest.approx((220 - 30 + 320 - 300) * 1e-6)
