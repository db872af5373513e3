"""What the signature that sees DRAM bytes did on an H200 (benchmarks/results/
2026-12-02-profile-dedup-signature.md): the DeepCAM step's default against --exhaustive of
the same call, and the offline simulation on round 8's tables. The independent answer is
ncu's own counters on every launch: the --exhaustive profiles."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.profile.conftest import REPO
from tests.profile.test_dedup_compare import compare_script
from tests.profile.test_dedup_h200_depth import RESULTS as DEPTH
from tests.profile.test_dedup_h200_depth import at
from tests.profile.test_dedup_traffic import _sim_module

RESULTS = REPO / "benchmarks" / "results" / "2026-12-02-profile-dedup-signature"
FLOP_TOTALS = [c for c in compare_script.TESTED if c not in compare_script.BYTES]


def kernels(load_once, name: str) -> pd.DataFrame:
    """The launches of a committed table, read once per worker (``load_once``)."""
    return load_once(RESULTS / f"{name}.raw.csv.xz").kernels.reset_index(drop=True)


def test_deepcam_default_has_every_total_within_one_percent_and_backward_hbm_within_a_tenth(load_once):
    default, exhaustive = kernels(load_once, "ddeepcam"), kernels(load_once, "xdeepcam")
    rows = compare_script.compare(default, exhaustive)
    assert rows["within_1pct"].dropna().all()
    assert abs(at(rows, "backward", "bytes_hbm") - 1) < 0.001  # was 0.98943 (round 8)
    flops = rows[rows["quantity"].isin(FLOP_TOTALS)]
    assert (flops["ratio"] - 1).abs().max() < 2e-4
    assert compare_script.worst(rows, compare_script.BYTES) == (
        pytest.approx(0.00264, abs=1e-5),
        "backward bytes_l2",
    )


def test_the_two_adds_that_reuse_less_data_got_signatures_and_profiles_of_their_own():
    sim = _sim_module()
    table = sim.read(RESULTS / "ddeepcam.raw.csv.xz")
    signature = [row[table.column("rooftui__signature")] for row in table.rows]
    source = [row[table.column("rooftui__counters_from")] for row in table.rows]
    assert len(set(signature)) == 128  # 126 without the DRAM bytes
    assert source.count("own") == 156
    assert signature[153] != signature[45] and signature[160] != signature[58]
    assert source[153] == source[160] == "own"


@pytest.mark.parametrize(("step", "added", "worst"), [("deepcam", 2, 1e-4), ("16", 0, 0.0093)])
def test_simulated_on_round_8s_tables_the_rule_adds_few_signatures_and_keeps_bytes_within_one_percent(
    step, added, worst, load_once
):
    sim = _sim_module()
    default, exhaustive = sim.read(DEPTH / f"d{step}.raw.csv.xz"), sim.read(DEPTH / f"x{step}.raw.csv.xz")
    before = sim.simulate(default, exhaustive, traffic=False)
    after = sim.simulate(default, exhaustive, traffic=True)
    assert after.signatures - before.signatures == added
    truth = load_once(DEPTH / f"x{step}.raw.csv.xz").kernels.reset_index(drop=True)
    rows = compare_script.compare(sim.kernels(after.table), truth)
    deviation, _ = compare_script.worst(rows, compare_script.BYTES)
    assert deviation < worst
