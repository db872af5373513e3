"""The findings on the real traces from sample_data/timeline/make_traces.py (one H200, torch 2.11).

naive: NumPy crops on the training thread, pageable input tensors copied with a
synchronous ``.to("cuda")``, GradScaler + plain Adam whose inf check is an
``.item()`` every step. fixed: prefetch threads, pinned buffers, async copies
on a side stream, fused Adam (no ``.item()``).
"""

from __future__ import annotations

import gzip
import json
from collections import Counter

import pytest

from tests.timeline.paths import SAMPLES


def kinds(analysis) -> list[str]:
    return [finding.kind for finding in analysis.findings]


def test_naive_input_copies_are_pageable_and_block_the_host(naive_analysis):
    (copy,) = [f for f in naive_analysis.findings if f.kind == "pageable_copy"]
    assert copy.details["copy"] == "Memcpy HtoD (Pageable -> Device)"
    assert copy.details["blocks_host"] is True
    assert copy.host_call == "aten::to > aten::_to_copy > aten::copy_"
    assert copy.range == "data_loading"
    assert copy.count_per_step == 2  # the input crop and the target crop
    # batch of 4 crops of 64³ fp32: 4 input features + 1 target
    assert copy.details["bytes_per_step"] == 4 * (4 + 1) * 64**3 * 4
    assert copy.steps == [2, 3, 4, 5]
    assert copy.cost_per_step_s == pytest.approx(3.198e-3, rel=1e-3)


def test_naive_names_the_item_behind_the_blocking_device_to_host_copy(naive_analysis):
    (item,) = [f for f in naive_analysis.findings if f.kind == "blocking_copy"]
    assert item.host_call == "aten::item > aten::_local_scalar_dense"
    # torch 2.11 stages item() through a pinned buffer, and still waits for the GPU
    assert item.details["copy"] == "Memcpy DtoH (Device -> Pinned)"
    assert item.details["blocks_host"] is True
    assert item.details["bytes_per_step"] == 4
    assert item.range == "optimizer"
    assert item.count_per_step == 1
    # its stream sync is part of the copy finding, not reported a second time
    assert "sync_call" not in kinds(naive_analysis)


def test_naive_gpu_idles_more_than_fixed(naive_analysis, fixed_analysis):
    assert naive_analysis.idle_share == pytest.approx(0.7663, abs=1e-4)
    assert fixed_analysis.idle_share == pytest.approx(0.4580, abs=1e-4)
    (idle,) = [f for f in naive_analysis.findings if f.kind == "gpu_idle"]
    assert idle.range == "data_loading"
    assert idle.title.startswith("The GPU idles 77% of each step")


def test_naive_data_loading_runs_serially_with_compute(naive_analysis):
    (overlap,) = [f for f in naive_analysis.findings if f.kind == "data_loading_overlap"]
    assert overlap.details["overlapped_share"] == pytest.approx(0.136, abs=1e-3)
    assert overlap.share_of_step == pytest.approx(0.532, abs=1e-3)


def test_naive_per_parameter_adam_is_launch_bound(naive_analysis):
    (launch,) = [f for f in naive_analysis.findings if f.kind == "launch_bound"]
    assert launch.range == "optimizer > Optimizer.step#Adam.step"
    assert launch.details["median_gap_s"] > 10 * launch.details["median_kernel_s"]


def test_fixed_has_no_copy_sync_overlap_or_launch_findings(fixed_analysis):
    # What is left is host-side launch overhead of a small model under the profiler.
    assert kinds(fixed_analysis) == ["gpu_idle"]
    (idle,) = fixed_analysis.findings
    assert idle.title.endswith("the host issues work more slowly than the GPU runs it")


def raw_steps_and_gpu_intervals(trace_path):
    """An independent reading of a Kineto trace with plain json: each ProfilerStep#N
    range (the longest of that name: other threads mark the step for a microsecond
    too) and every GPU activity interval, in seconds."""
    events = [e for e in json.load(gzip.open(trace_path))["traceEvents"] if e.get("ph") == "X"]
    steps: dict[int, tuple[float, float]] = {}
    for e in events:
        name = str(e.get("name", ""))
        if name.startswith("ProfilerStep#"):
            number = int(name.split("#")[1])
            if number not in steps or e["dur"] * 1e-6 > steps[number][1]:
                steps[number] = (e["ts"] * 1e-6, e["dur"] * 1e-6)
    gpu = [e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    counts = Counter(e["cat"] for e in gpu)
    intervals = sorted((e["ts"] * 1e-6, (e["ts"] + e["dur"]) * 1e-6) for e in gpu)
    return steps, intervals, counts


def busy_seconds(intervals, start, end):
    """Length of the union of ``intervals`` inside [start, end]."""
    busy, current = 0.0, None
    for a, b in intervals:
        a, b = max(a, start), min(b, end)
        if b <= a:
            continue
        if current and a <= current[1]:
            current[1] = max(current[1], b)
        else:
            busy += current[1] - current[0] if current else 0.0
            current = [a, b]
    return busy + (current[1] - current[0] if current else 0.0)


@pytest.mark.parametrize("name", ["naive", "fixed"])
def test_steps_counts_and_idle_shares_agree_with_the_raw_trace(name, naive_analysis, fixed_analysis):
    analysis = {"naive": naive_analysis, "fixed": fixed_analysis}[name]
    steps, intervals, counts = raw_steps_and_gpu_intervals(SAMPLES / f"{name}.json.gz")
    produced = analysis.to_json()
    # make_traces.py profiles with wait=1, warmup=1, active=4: steps 2 to 5
    assert sorted(steps) == [2, 3, 4, 5] == [s["step"] for s in produced["steps"]]
    assert produced["summary"]["kernels"] == counts["kernel"]
    assert produced["summary"]["copies"] == counts["gpu_memcpy"]
    first = steps[2][0]
    idle_total = 0.0
    for step in produced["steps"]:
        start, duration = steps[step["step"]]
        assert step["start_s"] == pytest.approx(start - first, abs=1e-9)
        assert step["duration_s"] == pytest.approx(duration, rel=1e-9)
        idle = duration - busy_seconds(intervals, start, start + duration)
        assert step["gpu_idle_share"] == pytest.approx(idle / duration, abs=5e-5)  # 4 decimals
        idle_total += idle
    total = sum(duration for _, duration in steps.values())
    assert produced["summary"]["gpu_idle_share"] == pytest.approx(idle_total / total, abs=5e-5)


def test_naive_shows_each_problem_it_was_built_with(naive_analysis):
    """make_traces.py's naive pipeline: GPU idle behind data loading that runs serially
    with compute, a launch-bound per-parameter Adam, pageable input copies, a blocking item()."""
    assert sorted(kinds(naive_analysis)) == sorted(
        ["gpu_idle", "data_loading_overlap", "launch_bound", "pageable_copy", "blocking_copy"]
    )
