"""`rooftui summary` prints where each kernel sits on the instruction roofline when the report
holds the instruction counters: warp instructions/s, the instruction intensity at the level
whose roof is lowest, and the binding roof with the share of it reached. Every cell is read
back from the printed text and checked against the same command's JSON; every line fits the
terminal (80 and 120 columns); a report without the counters prints no such table.
"""

from __future__ import annotations

import json
import re

import pytest

from rooftui.model.instructions import instruction_metrics
from rooftui.sample import sample_paths
from tests.conftest import run_cli
from tests.sample_variants import without_columns

# The bundled sample: a DeepCAM AMP step profiled with the instruction counters.
[DEEPCAM] = sample_paths()
TITLE = "Instruction roofline"
ROW = re.compile(
    r"^.*?\s(?P<id>\d+)\s+(?P<rate>[\d.]+)(?P<prefix>[kMGT]?)\s+(?P<level>L1|L2|HBM) (?P<intensity>[\d.]+)"
    r"\s+(?P<bound>issue|L1|L2|HBM) (?P<percent>\d+)%\s*$"
)
SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
LABEL = {"issue": "Warp issue", "L1": "L1", "L2": "L2", "HBM": "HBM"}


def instruction_rows(text: str) -> list[dict[str, str]]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(TITLE))
    assert lines[start + 1].split()[:2] == ["kernel", "ID"]
    rows = []
    for line in lines[start + 2 :]:
        if line.startswith("warp inst/s:"):
            return rows
        match = ROW.match(line)
        assert match, line
        rows.append(match.groupdict())
    raise AssertionError("no legend under the instruction table")


@pytest.fixture(scope="module")
def by_id():
    done = run_cli("summary", str(DEEPCAM), "--format", "json", "--top", "0")
    assert done.returncode == 0, done.stderr
    return {kernel["id"]: kernel["instructions"] for kernel in json.loads(done.stdout)["kernels"]}


@pytest.mark.parametrize("columns", [80, 120])
def test_each_row_reads_the_same_numbers_as_the_json_and_fits_the_width(columns, by_id):
    done = run_cli("summary", str(DEEPCAM), env={"COLUMNS": str(columns)})
    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= columns
    rows = instruction_rows(done.stdout)
    assert len(rows) == 30  # the kernel table's 30 heaviest launches
    for row in rows:
        entry = by_id[int(row["id"])]
        rate = float(row["rate"]) * SCALE[row["prefix"]]
        assert rate == pytest.approx(entry["warp_instruction_rate"], rel=5e-3), row
        assert LABEL[row["level"]] == entry["level"], row
        level = row["level"].lower()
        assert float(row["intensity"]) == pytest.approx(entry["intensity"][level], rel=5e-2, abs=5e-4), row
        assert LABEL[row["bound"]] == entry["bound"], row
        assert int(row["percent"]) == round(100 * entry["roof_fraction"]), row


def test_the_binding_roof_is_the_lowest_memory_roof_unless_the_issue_rate_is_lower(by_id):
    bounds = {entry["bound"] for entry in by_id.values() if entry["bound"]}
    assert "Warp issue" in bounds and "L2" in bounds  # both kinds occur in this step
    for entry in by_id.values():
        if entry["bound"] not in (None, "Warp issue"):
            assert entry["bound"] == entry["level"]


def test_a_report_without_the_instruction_counters_prints_no_instruction_table(tmp_path):
    # The same step as `rooftui profile` collects it without --instructions: every column of
    # the counters that option adds is dropped (they are in no other list of rooftui's).
    added = {metric.split(".")[0] for metric in instruction_metrics()}
    plain = without_columns(tmp_path, lambda name: name.split(".")[0] in added, DEEPCAM)
    done = run_cli("summary", str(plain), "--top", "3")
    assert done.returncode == 0, done.stderr
    assert TITLE not in done.stdout
