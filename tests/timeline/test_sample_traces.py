"""The findings on the real traces from sample_data/timeline/make_traces.py (one H200, torch 2.11).

naive: NumPy crops on the training thread, pageable input tensors copied with a
synchronous ``.to("cuda")``, GradScaler + plain Adam whose inf check is an
``.item()`` every step. fixed: prefetch threads, pinned buffers, async copies
on a side stream, fused Adam (no ``.item()``).
"""

from __future__ import annotations

import json
import os

import pytest

from tests.timeline.paths import REPO

GOLDEN = REPO / "tests" / "timeline" / "golden"


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


@pytest.mark.parametrize("name", ["naive", "fixed"])
def test_findings_match_the_golden_json(name, naive_analysis, fixed_analysis):
    analysis = {"naive": naive_analysis, "fixed": fixed_analysis}[name]
    golden = GOLDEN / f"{name}.json"
    produced = json.loads(json.dumps(analysis.to_json(), ensure_ascii=False))
    if os.environ.get("ROOFTUI_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(produced, indent=2, ensure_ascii=False) + "\n")
    assert produced == json.loads(golden.read_text()), (
        f"findings changed; if intended: ROOFTUI_UPDATE_GOLDEN=1 pytest {__file__}"
    )
