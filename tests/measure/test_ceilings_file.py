"""The ceilings file `rooftui measure` writes: schema round trip, ERT's roofline.json, --show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rooftui.errors import CeilingsError
from rooftui.ingest.ceilings import load_ceilings
from rooftui.measure.results import ceilings_document, ert_document, read_ceilings, write_json
from rooftui.measure.runner import expand_out
from rooftui.model.ceilings import SCHEMA, Ceiling, CeilingSet, Device
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "ceilings" / "h200.json"


def small_set() -> CeilingSet:
    curve = [[1 << 20, 3.2e13], [2 << 20, 3.21e13], [4 << 20, 3.19e13]]
    return CeilingSet(
        device=Device("NVIDIA H200", "9.0", 132, {"sm": 1.98e9, "memory": 3.201e9}),
        ceilings=(
            Ceiling(
                "L1",
                "bandwidth",
                3.2e13,
                "empirical",
                level="l1",
                extra={"clock_hz": 1.98e9, "curve": curve, "loads": "ld.global.ca"},
            ),
            Ceiling("HBM", "bandwidth", 4.56e12, "empirical", level="hbm", extra={"curve": curve}),
            Ceiling(
                "FP64 FMA",
                "compute",
                3.34e13,
                "empirical",
                precision="fp64",
                extra={"clock_hz": 1.98e9, "fraction_of_theoretical": 0.999},
            ),
            Ceiling("Tensor INT8", "compute", 1.9e15, "empirical", precision="tensor_int8"),
        ),
        source="rooftui measure 0.1.0",
    )


def test_written_file_reads_back_equal_with_every_extra(tmp_path):
    original = small_set()
    path = tmp_path / "c.json"
    write_json(path, ceilings_document(original, {"seconds": 17.3}))
    doc = json.loads(path.read_text())
    assert doc["schema"] == SCHEMA
    assert doc["ceilings"][3]["unit"] == "OP/s"
    assert doc["ceilings"][0]["unit"] == "B/s"
    back = read_ceilings(path)
    assert back == original  # dataclass equality: names, kinds, values, levels, precisions
    assert back.device.clocks_hz == original.device.clocks_hz
    assert [c.extra for c in back.ceilings] == [c.extra for c in original.ceilings]


def test_written_file_loads_with_the_shared_loader(tmp_path):
    path = tmp_path / "c.json"
    write_json(path, ceilings_document(small_set(), {"seconds": 17.3}))
    loaded = load_ceilings(path)
    assert loaded == small_set()
    assert loaded.bandwidth("l1").extra["curve"] == small_set().bandwidth("l1").extra["curve"]


def test_sample_h200_file_loads_with_the_shared_loader():
    loaded = load_ceilings(SAMPLE)
    mine = read_ceilings(SAMPLE)
    assert loaded == mine
    assert {c.level for c in loaded.ceilings if c.kind == "bandwidth"} == {"l1", "smem", "l2", "hbm"}


def test_a_file_of_another_kind_is_refused_in_one_line(tmp_path):
    path = tmp_path / "roofline.json"
    path.write_text(json.dumps({"empirical": {}}))
    with pytest.raises(CeilingsError, match="not a rooftui.ceilings/1 file"):
        read_ceilings(path)


def test_ert_roofline_json_lists_gbytes_and_gflops():
    doc = ert_document(small_set())
    assert doc["empirical"]["gbytes"]["data"] == [["L1", 32000.0], ["DRAM", 4560.0]]
    assert doc["empirical"]["gflops"]["data"] == [
        ["FP64 FMA GFLOPs", 33400.0],
        ["Tensor INT8 GOPs", 1900000.0],
    ]


def test_out_pattern_fills_host_and_device():
    path = expand_out("ceil_%h_%d.json", 3)
    assert path.name.endswith("_3.json") and "%" not in path.name


def test_sample_h200_file_meets_the_issue_targets():
    c = read_ceilings(SAMPLE)
    assert c.device.name == "NVIDIA H200"
    assert c.bandwidth("hbm").value >= 4.3e12
    for precision in ("fp64", "fp32"):
        assert c.compute(precision).extra["fraction_of_theoretical"] >= 0.95
    assert c.compute("tensor_fp16").value >= 800e12
    assert c.bandwidth("l1").extra["clock_hz"] > 1e9 and c.bandwidth("l2").extra["clock_hz"] > 1e9
    doc = json.loads(SAMPLE.read_text())
    assert doc["measurement"]["seconds"] <= 60


def test_show_draws_the_curves_and_the_ceilings():
    done = run_cli("measure", "--show", SAMPLE, env={"COLUMNS": "120", "LINES": "40"})
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "read bandwidth vs working set" in out
    assert "ld.global.ca" in out and "ld.global.cg" in out  # both sweeps, labelled
    assert "GiB" in out and "TB/s" in out  # our own log-scale tick labels
    for name in ("L1", "L2", "HBM", "Shared memory", "FP64 FMA", "Tensor FP16"):
        assert name in out


def test_show_lists_the_instruction_ceilings_the_h200_run_saved():
    run = ROOT / "benchmarks" / "results" / "2026-12-01-issue-rate-h200" / "h200_ceilings.json"
    done = run_cli("measure", "--show", run, env={"COLUMNS": "120", "LINES": "40"})
    assert done.returncode == 0, done.stderr
    issue = next(line for line in done.stdout.splitlines() if "Warp issue (instructions)" in line)
    assert "922.8 Gwarp inst/s" in issue and "issue_rate.cu:issue_mix" in issue and "88.3%" in issue
    l2 = next(line for line in done.stdout.splitlines() if "L2 (instructions)" in line)
    assert "281.3 Gtxn/s" in l2 and "L2 ÷ 32 B" in l2  # 9.002 TB/s ÷ 32 B per sector
