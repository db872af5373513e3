"""`rooftui measure --add-issue-rate FILE`: the issue rate measured alone, added to a ceilings
file without changing its roofs, and read back by every command (no GPU needed here: the
measurement itself is stood in for by an issue roof built by hand)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rooftui.analysis import load_run
from rooftui.analysis.instruction_roofline import ceilings_for
from rooftui.analysis.load_options import LoadOptions
from rooftui.errors import CeilingsError
from rooftui.ingest.ceilings import read_json_object
from rooftui.measure.results import read_ceilings, with_issue_rate, write_json
from rooftui.model.instructions import InstructionRoof
from tests.conftest import KNOWN, ROOT, run_cli

BUNDLED = ROOT / "rooftui" / "data" / "ceilings" / "nvidia-h200_cc9.0.json"
ISSUE = InstructionRoof(
    "issue", "Warp issue", 1.0427e12, "warp inst/s", "measured by hand", {"clock_hz": 1.98e9}
)
RECORD = {"device": "NVIDIA H200", "clocks_reported": [{"time": 1_796_000_000.0}]}


def added(tmp_path: Path) -> tuple[dict, dict, Path]:
    before = read_json_object(BUNDLED)
    after = with_issue_rate(before, read_ceilings(BUNDLED), ISSUE, RECORD)
    path = tmp_path / "c.json"
    write_json(path, after)
    return before, json.loads(path.read_text()), path


def test_the_files_roofs_stay_as_they_were_and_each_transaction_rate_is_its_bandwidth_over_32_b(tmp_path):
    before, after, _ = added(tmp_path)
    assert after["ceilings"] == before["ceilings"] and after["launch_floor"] == before["launch_floor"]
    assert after.get("measured_at") == before.get("measured_at")  # when the roofs were measured
    roofs = {roof["name"]: roof for roof in after["instruction_ceilings"]}
    assert roofs["issue"]["value"] == 1.0427e12 and roofs["issue"]["measured_at"].startswith("2026-11-30")
    assert "measured 2026-11-30 with rooftui measure --add-issue-rate" in roofs["issue"]["source"]
    bandwidth = {c["level"]: c["value"] for c in before["ceilings"] if c["kind"] == "bandwidth"}
    for level, per in (("l1", 32), ("l2", 32), ("hbm", 32), ("smem", 128)):
        assert roofs[level]["value"] == bandwidth[level] / per
        assert roofs[level]["derived_from"]["bytes_per_s"] == bandwidth[level]


def test_a_run_using_those_bandwidths_reads_the_saved_rates_back(tmp_path):
    _, _, path = added(tmp_path)
    run = load_run([KNOWN / "instructions" / "instructions.raw-base.csv"], LoadOptions(ceilings=path))
    roofs = ceilings_for(run, "NVIDIA H200")
    assert roofs.issue is not None and roofs.issue.value == 1.0427e12
    assert roofs.issue.source.startswith("measured by hand; measured 2026-11-30")
    for roof in (*roofs.levels.values(), roofs.shared):
        assert roof is not None and "derived at load" not in roof.source, roof.source


def test_an_issue_rate_from_another_gpu_model_is_refused_naming_both():
    with pytest.raises(CeilingsError, match="measured on NVIDIA H100.*roofs of NVIDIA H200"):
        with_issue_rate(
            read_json_object(BUNDLED), read_ceilings(BUNDLED), ISSUE, {**RECORD, "device": "NVIDIA H100"}
        )


def test_add_issue_rate_without_a_gpu_or_with_a_bad_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = run_cli("measure", "--add-issue-rate", str(bad), "--out", str(tmp_path / "o.json"))
    assert done.returncode == 2 and "bad.json" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.json").exists()
    started = time.monotonic()
    done = run_cli("measure", "--add-issue-rate", str(BUNDLED), "--out", str(tmp_path / "o.json"))
    if done.returncode == 0:  # a machine with a GPU: the file it wrote holds the roofs read back
        assert (
            json.loads((tmp_path / "o.json").read_text())["ceilings"] == read_json_object(BUNDLED)["ceilings"]
        )
    else:
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert time.monotonic() - started < 60
