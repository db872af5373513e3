"""benchmarks/profile_dedup_compare.py's arithmetic, on a small pair of summary tables whose
totals are known by construction (the H200 runs it compares: benchmarks/results/
2026-12-02-profile-dedup-depth.md)."""

from __future__ import annotations

import importlib.util
import math

import pandas as pd
import pytest

from tests.profile.conftest import REPO


def _compare_module():
    spec = importlib.util.spec_from_file_location(
        "profile_dedup_compare", REPO / "benchmarks/profile_dedup_compare.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare_script = _compare_module()
NAN = float("nan")


def summary(rows: list[dict]) -> pd.DataFrame:
    """A `rooftui summary --format csv` table: every quantity the script reads, blank
    unless a row gives it."""
    columns = ["phase", "time_s", "register_moves", *compare_script.FLOPS, *compare_script.BYTES]
    return pd.DataFrame([{c: row.get(c, NAN) for c in columns} for row in rows])


# The default: a forward GEMM, a forward layer norm whose 50 HFMA2 register moves it took
# out of FP16 (100 FP16 FLOPs left), a backward copy, and an optimizer launch.
DEFAULT = summary(
    [
        {
            "phase": "forward",
            "time_s": 2.0,
            "flops_tensor_bf16": 1000.0,
            "bytes_l2": 400.0,
            "register_moves": 0.0,
        },
        {"phase": "forward", "time_s": 1.0, "flops_fp16": 100.0, "register_moves": 50.0, "bytes_l2": 100.0},
        {"phase": "backward", "time_s": 1.0, "bytes_l1": 300.0, "bytes_l2": 204.0, "register_moves": 0.0},
        {"phase": "optimizer", "time_s": 1.0, "flops_fp32": 80.0, "bytes_hbm": 100.0, "register_moves": 0.0},
    ]
)
# --exhaustive: no SourceCounters, so the layer norm's FP16 keeps the moves (100 + 4 x 50).
EXHAUSTIVE = summary(
    [
        {"phase": "forward", "time_s": 2.0, "flops_tensor_bf16": 1000.0, "bytes_l2": 398.0},
        {"phase": "forward", "time_s": 1.1, "flops_fp16": 300.0, "bytes_l2": 100.0},
        {"phase": "backward", "time_s": 1.0, "bytes_l1": 300.0, "bytes_l2": 200.0},
        {"phase": "optimizer", "time_s": 1.0, "flops_fp32": 80.0, "bytes_hbm": 100.0},
    ]
)
REPEAT = EXHAUSTIVE.assign(bytes_l2=[400.0, 100.0, 204.0, NAN])


def ratio(rows: pd.DataFrame, phase: str, quantity: str, column: str = "ratio") -> float:
    hit = rows[(rows["phase"] == phase) & (rows["quantity"] == quantity)]
    assert len(hit) == 1, (phase, quantity)
    return float(hit[column].iloc[0])


def test_register_moves_go_back_at_the_hfma_weight_the_summary_took_them_out_with():
    assert compare_script.hfma_weight() == 4.0  # the packed rule: hfma = 2 FMAs = 4 FLOPs
    totals = compare_script.phase_totals(DEFAULT)
    assert totals.at["forward", "flops_fp16"] == 100.0
    assert totals.at["forward", compare_script.FP16_AS_COUNTED] == 300.0
    rows = compare_script.compare(DEFAULT, EXHAUSTIVE)
    assert ratio(rows, "forward", compare_script.FP16_AS_COUNTED) == 1.0
    assert ratio(rows, "forward", "flops_fp16") == pytest.approx(1 / 3)


def test_totals_per_phase_and_for_the_whole_step():
    totals = compare_script.phase_totals(DEFAULT)
    assert list(totals.index) == ["backward", "forward", "optimizer", "all"]
    assert totals.at["forward", "launches"] == 2 and totals.at["all", "launches"] == 4
    assert totals.at["forward", "bytes_l2"] == 500.0
    assert totals.at["all", "bytes_l2"] == 704.0
    assert totals.at["all", "time_s"] == 5.0
    # blank in every launch of a phase: not collected, not 0
    assert math.isnan(totals.at["backward", "bytes_hbm"])
    assert totals.at["all", "bytes_hbm"] == 100.0


def test_each_total_is_tested_within_one_percent():
    rows = compare_script.compare(DEFAULT, EXHAUSTIVE)
    assert ratio(rows, "forward", "bytes_l2") == pytest.approx(500 / 498)
    assert ratio(rows, "backward", "bytes_l2") == pytest.approx(1.02)
    within = rows.set_index(["phase", "quantity"])["within_1pct"]
    assert within[("forward", "bytes_l2")] is True
    assert within[("backward", "bytes_l2")] is False
    assert within[("all", "bytes_l2")] is True  # 704 / 698
    assert within[("forward", "time_s")] is None  # shown, not tested: each launch keeps its own time
    # a quantity neither side has is left out, not shown as 0 / 0
    assert "flops_fp64" not in set(rows["quantity"])
    assert compare_script.worst(rows, compare_script.BYTES) == (pytest.approx(0.02), "backward bytes_l2")


def test_a_repeat_gives_the_exhaustive_runs_own_variation_beside_each_ratio():
    rows = compare_script.compare(DEFAULT, EXHAUSTIVE, REPEAT)
    assert ratio(rows, "backward", "bytes_l2", "repeat") == pytest.approx(200 / 204)
    assert ratio(rows, "forward", "bytes_l2", "repeat") == pytest.approx(498 / 500)
    # the 1% test is the same with or without a repeat
    assert list(rows["within_1pct"]) == list(compare_script.compare(DEFAULT, EXHAUSTIVE)["within_1pct"])


def test_ratio_table_has_a_row_per_phase_and_a_dash_for_what_a_phase_lacks():
    table = compare_script.ratio_table(compare_script.compare(DEFAULT, EXHAUSTIVE))
    lines = table.splitlines()
    assert lines[0] == (
        "| phase | time_s | flops_fp32 | flops_tensor_bf16 | flops_fp16_as_counted | "
        "bytes_l1 | bytes_l2 | bytes_hbm |"
    )
    assert lines[3] == "| forward | 0.9677 | – | 1.0000 | 1.0000 | – | 1.0040 | – |"
    assert lines[-1].startswith("| all | 0.9804 | 1.0000 | 1.0000 | 1.0000 | 1.0000 | 1.0086 | 1.0000 |")
