"""Plateau detection, on made-up curves with known answers and on a sweep recorded on an H200."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftui.measure.bandwidth import SharedMemoryResult, Sweep, SweepPoint
from rooftui.measure.plateaus import find_plateaus, first_plateau, last_plateau
from rooftui.measure.results import bandwidth_ceilings

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "h200_sweeps.json").read_text())
MiB = 1 << 20


def curve(values, start=MiB):
    return [[start * 2**i, v] for i, v in enumerate(values)]


def test_two_flat_runs_with_a_drop_between_are_two_plateaus():
    c = curve([30, 31, 30, 29, 12, 9, 9.1, 8.9, 9.0])
    found = find_plateaus(c)
    assert [(p.first, p.last) for p in found] == [(0, 3), (5, 8)]
    assert found[0].value == 30.0
    assert found[1].value == 9.0
    assert (found[1].working_set_lo, found[1].working_set_hi) == (32 * MiB, 256 * MiB)


def test_a_transition_point_just_past_a_cache_is_not_part_of_the_next_plateau():
    # H200, 2026-11-29: 70 MiB (just past the 60 MiB L2) still read 5.10 TB/s from L2 hits
    c = curve([9.0, 9.0, 9.0, 5.10, 4.74, 4.72, 4.71, 4.69, 4.66, 4.65, 4.65])
    found = find_plateaus(c)
    assert [(p.first, p.last) for p in found] == [(0, 2), (4, 10)]
    assert found[1].value == 4.69


def test_a_steady_slope_has_no_plateau():
    assert find_plateaus(curve([100 * 0.85**i for i in range(10)])) == []


def test_one_noisy_point_does_not_split_a_plateau():
    c = curve([10, 10.2, 9.9, 10.1, 11.5, 10.0, 9.95, 10.05])
    found = find_plateaus(c)
    assert len(found) == 1
    assert (found[0].first, found[0].last) == (0, 7)


def test_device_memory_plateau_must_reach_the_largest_working_set():
    assert last_plateau(curve([30, 30, 30, 10, 5, 3])) is None
    assert last_plateau(curve([30, 30, 30, 10, 5, 5, 5])).value == 5


def test_unsorted_curve_is_refused():
    with pytest.raises(ValueError):
        find_plateaus([[2, 1.0], [1, 1.0], [3, 1.0]])


def test_recorded_h200_l1_sweep_gives_the_l1_plateau():
    l1 = first_plateau(RECORDED["curves"]["ld.global.ca"])
    # 132 SMs x 256 KiB of L1: the plateau ends before 33 MiB and sits near 128 B/clk/SM
    assert l1.working_set_hi < 33 * MiB
    assert 31.5e12 < l1.value < 32.5e12


def test_recorded_h200_l2_only_sweep_gives_l2_then_hbm():
    cg = RECORDED["curves"]["ld.global.cg"]
    l2, hbm = first_plateau(cg), last_plateau(cg)
    assert l2.working_set_hi <= RECORDED["l2_bytes"]  # 60 MiB of L2
    assert 8.5e12 < l2.value < 9.5e12
    assert hbm.working_set_lo > RECORDED["l2_bytes"]
    assert hbm.working_set_hi == cg[-1][0]
    assert 4.5e12 < hbm.value < 4.6e12  # the H200 target is >= 4.3 TB/s


def _sweep(loads, points):
    return Sweep(loads, [SweepPoint(int(ws), bw, 1.98e9, 1) for ws, bw in points])


def test_bandwidth_ceilings_from_the_recorded_sweeps_name_each_level_once():
    smem = SharedMemoryResult(3.2e13, 1.97e9, [0.02], 1, 528, 512, 1, "ok")
    ceilings, warnings = bandwidth_ceilings(
        _sweep("ld.global.ca", RECORDED["curves"]["ld.global.ca"]),
        _sweep("ld.global.cg", RECORDED["curves"]["ld.global.cg"]),
        smem,
    )
    assert warnings == []
    assert [c.level for c in ceilings] == ["l1", "smem", "l2", "hbm"]
    hbm = ceilings[-1]
    assert hbm.extra["curve"] == RECORDED["curves"]["ld.global.cg"]
    assert hbm.extra["clock_hz"] == 1.98e9


def test_a_sweep_that_never_leaves_the_cache_gives_no_hbm_ceiling():
    flat = [[MiB * 2**i, 9e12] for i in range(6)]
    ceilings, warnings = bandwidth_ceilings(_sweep("ld.global.ca", flat), _sweep("ld.global.cg", flat), None)
    assert [c.level for c in ceilings] == ["l1", "hbm"]
    assert warnings == ["no L2 plateau found in the ld.global.cg sweep; no L2 ceiling written"]
