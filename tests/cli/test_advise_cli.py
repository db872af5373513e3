"""`rooftui advise`: the budget and the top findings within 80 columns, JSON and CSV for
scripts, and one line with exit code 2 for bad input."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT, run_cli

SAMPLE = ROOT / "rooftui" / "data" / "sample"
TRACE = ROOT / "sample_data" / "timeline" / "naive.json.gz"


def test_advise_on_the_bundled_sample_prints_the_budget_and_ten_findings_within_80_columns():
    done = run_cli("advise")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0] == "Step budget, NVIDIA H200: a bound on the step, not a forecast"
    assert any(line.lstrip().startswith("speed-of-light step") for line in lines)
    ranks = [line[:3] for line in lines if line[:3] in {f"{n:>2}." for n in range(1, 11)}]
    assert ranks == [f"{n:>2}." for n in range(1, 11)]


def test_advise_json_carries_the_floor_the_budget_and_findings_ranked_by_gain(advise_json_top_5):
    done, _ = advise_json_top_5  # its figure: test_advise_figure.py
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema"] == "rooftui.advise/1"
    budget = doc["budget"]["NVIDIA H200"]
    assert budget["is_bound"] and budget["speed_of_light_s"] >= budget["floor_sum_s"] > 0
    assert (
        budget["bars"][0]["label"] == "measured step" and budget["bars"][-1]["label"] == "speed-of-light step"
    )
    assert doc["launch_floor"]["NVIDIA H200"]["per_launch_s"] == pytest.approx(1.536e-06)
    gains = [f["gain_s"] for f in doc["findings"]]
    assert len(gains) == 5 and gains == sorted(gains, reverse=True)
    assert {"kernel", "operation_class", "phase", "nvtx"} == set(doc["roll_ups"])


def test_advise_csv_has_one_row_per_launch_with_its_verdict():
    done = run_cli(
        "advise",
        SAMPLE / "deepcam_amp.raw-base.csv.xz",
        "--ceilings",
        SAMPLE / "h200_ceilings.json",
        "--format",
        "csv",
    )
    lines = done.stdout.splitlines()
    assert lines[0].split(",")[-3:] == ["limit_source", "advise_reason", "verdict"]
    assert len(lines) == 1 + 179


def test_with_a_trace_the_step_and_its_gpu_idle_time_come_from_the_trace():
    done = run_cli("advise", "--trace", TRACE, "--format", "json")
    bars = {bar["label"]: bar for bar in json.loads(done.stdout)["budget"]["NVIDIA H200"]["bars"]}
    assert bars["GPU idle / host-bound"]["seconds"] > 0
    assert "naive.json.gz" in bars["measured step"]["built_from"]


def test_a_missing_trace_is_one_line_and_exit_code_2(tmp_path):
    done = run_cli("advise", "--trace", tmp_path / "nope.json")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
