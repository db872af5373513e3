"""Roofline geometry in log10 coordinates, checked by hand on a tiny table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rooftui.views.tui.roofline_model import build_figure
from tests.tui.synthetic import CEILINGS, kernel_table

PIPELINES = ["fp64", "fp32", "tensor_fp16"]


@pytest.fixture
def table():
    return kernel_table(repeat=2)  # 5 kernels x 2 launches; memset_zero does no FLOP


def roofs(figure):
    return {roof.key: roof for roof in figure.roofs}


def test_equal_compute_peaks_share_one_labelled_roof(table):
    figure = build_figure(table, CEILINGS, pipelines=PIPELINES)
    compute = [r for r in figure.roofs if r.kind == "compute"]
    assert [r.key for r in compute] == ["tensor_fp16", "fp64+fp32"]
    assert compute[1].label == "FP64 · FP32 67 TFLOP/s (spec)"
    assert compute[0].label == "Tensor FP16 989 TFLOP/s (spec)"


def test_slopes_end_at_the_highest_roof_and_roofs_start_at_the_fastest_slope(table):
    figure = build_figure(table, CEILINGS, pipelines=PIPELINES)
    hbm, fp64 = roofs(figure)["hbm"], roofs(figure)["fp64+fp32"]
    assert hbm.xs[1] == pytest.approx(math.log10(9.89e14 / 4.0e12))
    assert hbm.ys[1] == pytest.approx(math.log10(9.89e14))
    # along the slope, log FLOP/s = log AI + log bandwidth
    assert hbm.ys[0] - hbm.xs[0] == pytest.approx(math.log10(4.0e12))
    assert fp64.xs == (pytest.approx(math.log10(6.7e13 / 3.3e13)), figure.x_range[1])
    assert hbm.label == "HBM 4 TB/s (empirical)"


def test_each_kernel_is_three_points_at_one_flop_rate_and_zero_ai_is_left_out(table):
    figure = build_figure(table, CEILINGS, pipelines=PIPELINES)
    for level in ("l1", "l2", "hbm"):
        xs = np.concatenate([s.xs for s in figure.points if s.level == level])
        assert len(xs) == 8  # 10 launches less the two memset_zero
    assert figure.note == ""
    assert [(gone.why, gone.launches, gone.text) for gone in figure.not_plotted] == [
        ("zero-AI", 2, "2 zero-AI launches not plotted")
    ]
    selected = build_figure(table, CEILINGS, pipelines=PIPELINES, selected=table.iloc[1]).selected
    dgemm = table.iloc[1]
    assert selected == [
        ("l1", math.log10(dgemm["ai_l1"]), math.log10(dgemm["flop_rate"])),
        ("l2", math.log10(dgemm["ai_l2"]), math.log10(dgemm["flop_rate"])),
        ("hbm", math.log10(dgemm["ai_hbm"]), math.log10(dgemm["flop_rate"])),
    ]


def test_the_heaviest_are_emphasised_and_beyond_the_limit_kernels_merge_per_cell(table):
    figure = build_figure(
        table, CEILINGS, pipelines=PIPELINES, individual_limit=3, heavy_count=1, cells=(20, 10)
    )
    hbm = {s.emphasis: s for s in figure.points if s.level == "hbm"}
    heaviest = table.iloc[6]  # second dgemm launch, 10 ms
    assert hbm["heavy"].xs.tolist() == [math.log10(heaviest["ai_hbm"])]
    assert len(hbm["normal"].xs) == 2
    assert 1 <= len(hbm["merged"].xs) <= 5
    assert figure.note == "3 heaviest drawn one by one, 5 more merged per cell"
    # merged points sit at cell centres
    width = (figure.x_range[1] - figure.x_range[0]) / 20
    offsets = (hbm["merged"].xs - figure.x_range[0]) / width - 0.5
    assert np.allclose(offsets, np.round(offsets))


def test_levels_switched_off_draw_neither_slope_nor_points(table):
    figure = build_figure(table, CEILINGS, levels=("hbm",), pipelines=PIPELINES)
    assert {r.key for r in figure.roofs if r.kind == "bandwidth"} == {"hbm"}
    assert {s.level for s in figure.points} == {"hbm"}


def test_without_compute_roofs_the_slopes_run_to_the_edge(table):
    figure = build_figure(table, CEILINGS, pipelines=[])
    assert all(r.kind == "bandwidth" for r in figure.roofs)
    assert roofs(figure)["l1"].xs[1] == figure.x_range[1]


def test_ticks_are_decades_and_thin_out_when_crowded(table):
    figure = build_figure(table, CEILINGS, pipelines=PIPELINES, cells=(120, 30))
    assert [label for _, label in figure.x_ticks] == ["0.01", "0.1", "1", "10", "100", "1k", "10k"]
    narrow = build_figure(table, CEILINGS, pipelines=PIPELINES, cells=(20, 30))
    assert len(narrow.x_ticks) < len(figure.x_ticks)
    assert [label for _, label in figure.y_ticks][-1] == "1P"
