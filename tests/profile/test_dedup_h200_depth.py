"""What `rooftui profile`'s deduplicated default measured on an H200 against --exhaustive of
the same step (benchmarks/profile_dedup_depth_gpu.sh; per-launch tables and logs in
benchmarks/results/2026-12-02-profile-dedup-depth/, read here as rooftui loads them).
The independent answer is ncu's own counters on every launch: the --exhaustive profile."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.profile.conftest import REPO
from tests.profile.test_dedup_compare import compare_script

RESULTS = REPO / "benchmarks" / "results" / "2026-12-02-profile-dedup-depth"
FLOP_TOTALS = [c for c in compare_script.TESTED if c not in compare_script.BYTES]


def kernels(load_once, name: str) -> pd.DataFrame:
    """The launches of a committed table, read once per worker (``load_once``)."""
    return load_once(RESULTS / f"{name}.raw.csv.xz").kernels.reset_index(drop=True)


def at(rows: pd.DataFrame, phase: str, quantity: str, column: str = "ratio"):
    hit = rows[(rows["phase"] == phase) & (rows["quantity"] == quantity)]
    assert len(hit) == 1, (phase, quantity)
    return hit[column].iloc[0]


def within_one_percent(default: pd.DataFrame, exhaustive: pd.DataFrame, flops_within: float) -> pd.DataFrame:
    """The per-phase comparison, having checked that every phase's FLOP and byte totals are
    within 1 % of --exhaustive's and every FLOP total within ``flops_within``."""
    rows = compare_script.compare(default, exhaustive)
    tested = rows[rows["within_1pct"].notna()]
    assert set(tested["phase"]) == {"forward", "backward", "optimizer", "all"}
    assert tested["within_1pct"].all()
    flops = tested[tested["quantity"].isin(FLOP_TOTALS)]
    assert (flops["ratio"] - 1).abs().max() < flops_within
    return rows


def test_default_at_16_blocks_has_every_flop_and_byte_total_of_exhaustive_within_one_percent(load_once):
    default, exhaustive = kernels(load_once, "d16"), kernels(load_once, "x16")
    assert len(default) == len(exhaustive) == 579
    rows = within_one_percent(default, exhaustive, flops_within=1e-4)
    assert compare_script.worst(rows, compare_script.BYTES) == (
        pytest.approx(0.00549, abs=1e-5),
        "forward bytes_l2",
    )
    # register moves: what the default takes out of FP16 and --exhaustive cannot
    assert at(rows, "all", "flops_fp16") == pytest.approx(0.0194, abs=1e-4)


def test_two_exhaustive_runs_differ_only_in_the_bytes_that_depend_on_cache_state(load_once):
    first, second = kernels(load_once, "x8"), kernels(load_once, "x8.2")
    rows = compare_script.compare(second, first)
    flops = rows[rows["quantity"].isin(FLOP_TOTALS)]
    assert (flops["ratio"] - 1).abs().max() < 1e-6  # the optimizer's FP16: 36,456,472 vs 36,456,464
    assert compare_script.worst(rows, compare_script.BYTES) == (
        pytest.approx(0.00273, abs=1e-5),
        "forward bytes_l2",
    )
    # L1 bytes (sectors requested) repeat launch by launch; L2 (L1 misses) and HBM do not
    assert (first["bytes_l1"] == second["bytes_l1"]).sum() == 308
    assert (first["bytes_hbm"] == second["bytes_hbm"]).sum() == 13


def test_deepcam_backward_hbm_misses_one_percent_through_one_launch_whose_twin_reuses_its_data(load_once):
    default, exhaustive = kernels(load_once, "ddeepcam"), kernels(load_once, "xdeepcam")
    rows = compare_script.compare(default, exhaustive)
    assert rows[rows["within_1pct"] == False]["quantity"].tolist() == ["bytes_hbm"]  # noqa: E712
    assert at(rows, "backward", "bytes_hbm") == pytest.approx(0.98943, abs=1e-5)
    # Launch 153 (a backward add) inherited the counters of launch 45 (a forward add with the
    # same name, grid and instruction counts), which reads half as much from DRAM: the
    # signature sees the instructions, not how much of the data is reused.
    assert default.at[153, "bytes_hbm"] == default.at[45, "bytes_hbm"] == pytest.approx(1_795_840)
    assert exhaustive.at[153, "bytes_hbm"] == pytest.approx(2 * exhaustive.at[45, "bytes_hbm"], rel=0.01)
    own = default.copy()
    own.loc[153, compare_script.BYTES] = exhaustive.loc[153, compare_script.BYTES]
    fixed = compare_script.compare(own, exhaustive)
    assert fixed["within_1pct"].dropna().all()
    assert abs(at(fixed, "backward", "bytes_hbm") - 1) < 0.001
