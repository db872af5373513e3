"""A on a V100, B on an H200: each side against its own ceilings.

The V100 side is the AMP run's kernel table relabelled as a V100 with the V100
datasheet ceilings: the same FLOPs and bytes, so every difference in bounds is
the ceilings' doing.
"""

from __future__ import annotations

import pytest

from rooftui.analysis import Run
from rooftui.analysis.compare import compare_runs
from rooftui.analysis.roofline import add_bounds
from rooftui.model.spec import spec_ceilings

V100 = "Tesla V100-SXM2-32GB"


@pytest.fixture(scope="module")
def v100_vs_h200(amp_run):
    ceilings = spec_ceilings(V100, "7.0")
    kernels = add_bounds(amp_run.kernels.assign(device=V100, cc="7.0"), ceilings)
    on_v100 = Run(kernels, {V100: ceilings}, amp_run.reports, [])
    return compare_runs(on_v100, amp_run, "v100", "h200")


def test_same_kernels_on_two_gpus_all_match_by_name(v100_vs_h200, amp_run):
    assert set(v100_vs_h200.kernels["method"]) == {"exact"}
    assert len(v100_vs_h200.matched) == amp_run.kernels["name"].nunique()
    expected = f"different GPUs: A ran on {V100}, B on NVIDIA H200"
    assert any(note.startswith(expected) for note in v100_vs_h200.notes)


def test_each_side_is_bound_by_its_own_gpu(v100_vs_h200):
    a, b = v100_vs_h200.run_a.kernels, v100_vs_h200.run_b.kernels
    # Same FLOPs and bytes, so on the memory side of both HBM roofs the attainable rates
    # scale with the bandwidths: the V100's 900 GB/s (datasheet) against the H200's
    # measured 4.56 TB/s (bundled with rooftui).
    h200_hbm = v100_vs_h200.run_b.ceilings.bandwidth("hbm").value
    assert h200_hbm == pytest.approx(4.555e12, rel=1e-3)
    both = (a["bound_hbm"] == "memory") & (b["bound_hbm"] == "memory")
    assert both.sum() > 10
    ratios = (a.loc[both, "roof_hbm"] / b.loc[both, "roof_hbm"]).to_numpy()
    assert ratios == pytest.approx([900e9 / h200_hbm] * int(both.sum()), rel=1e-9)
    # The V100's datasheet has no L1 or L2 roof, so no V100 kernel gets a binding roof.
    assert (a["bound"] == "").all() and (b["bound"] != "").all()


def test_overlay_shows_both_gpus_roofs_tagged_by_side(v100_vs_h200):
    from rooftui.views.tui.compare_overlay import overlay_figure

    figure = overlay_figure(v100_vs_h200, "hbm", 10, (70, 20)).figure
    labels = sorted(roof.label for roof in figure.roofs if roof.kind == "bandwidth")
    assert labels == ["A HBM 900 GB/s (spec)", "B HBM 4.56 TB/s (empirical)"]
    tags = {roof.tag for roof in figure.roofs if roof.kind == "compute"}
    assert {"A TC FP16", "B TC FP16"} <= tags


def test_json_names_each_sides_gpu_and_ceilings(v100_vs_h200):
    from rooftui.views.compare import to_json

    doc = to_json(v100_vs_h200)
    assert doc["a"]["devices"] == [{"name": V100, "cc": "7.0"}]
    assert doc["b"]["devices"] == [{"name": "NVIDIA H200", "cc": "9.0"}]
    hbm_a = next(c for c in doc["a"]["ceilings"][V100] if c.get("level") == "hbm")
    assert hbm_a["value"] == 900e9
