"""A deduplicated profile says, per launch, whether its counters are its own or a twin's,
from which twin and by which signature (JSON, CSV, the detail pane), and the summary prints
how many launches were profiled and inherited and the self-check's bound.

The table and its sidecar are what ``rooftui profile --dedup`` wrote on the H200 (4-block
transformer step, 175 launches; tests/profile/data/make_dedup_h200.py keeps the columns
rooftui reads, values unchanged). The expected answers are the sidecar's own per-launch
facts (``launches``: profiled, counters_from, signature) and its self-check, written by
the profile run, not by the loader under test.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from tests.conftest import run_cli

DATA = Path(__file__).parent / "data" / "dedup_h200"
TABLE = DATA / "d4.raw.csv.xz"
SIDECAR = json.loads((DATA / "d4.signatures.json").read_text(encoding="utf-8"))
LAUNCHES = SIDECAR["launches"]  # per launch: id, profiled, counters_from, signature


def expected(launch: dict) -> dict:
    """What the JSON should say of one launch, from the sidecar's facts."""
    if launch["profiled"]:
        return {"how": "profiled", "twin": None, "twin_ncu_id": None, "signature": launch["signature"]}
    if launch["counters_from"] is None:
        return {"how": "not_collected", "twin": None, "twin_ncu_id": None, "signature": launch["signature"]}
    twin = launch["counters_from"]
    return {"how": "inherited", "twin": twin, "twin_ncu_id": twin, "signature": launch["signature"]}


@pytest.fixture(scope="module")
def summary_json() -> dict:
    done = run_cli("summary", "--format", "json", TABLE)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_json_marks_every_launch_as_the_profile_run_recorded(summary_json):
    by_id = {k["id"]: k["counters_from"] for k in summary_json["kernels"]}
    assert len(by_id) == len(LAUNCHES) == 175
    assert {launch["id"]: expected(launch) for launch in LAUNCHES} == by_id


def test_the_h200_step_had_118_launches_profiled_and_57_inherited(summary_json):
    hows = [k["counters_from"]["how"] for k in summary_json["kernels"]]
    assert (hows.count("profiled"), hows.count("inherited"), hows.count("not_collected")) == (118, 57, 0)


def test_the_summary_note_counts_launches_and_prints_the_self_check_bound(summary_json):
    check = SIDECAR["self_check"]
    inherited_signatures = {x["signature"] for x in LAUNCHES if not x["profiled"]}
    (note,) = [n for n in summary_json["notes_detail"] if n["kind"] == "deduplicated"]
    assert "118 launches profiled in full, 57 inherited" in note["text"]
    assert f"from {len(inherited_signatures)} of {len(SIDECAR['signatures'])} signatures" in note["text"]
    assert f"{check['launches_compared']} launches profiled in full beside their twin" in note["text"]
    assert f"bytes within {check['bytes']:.2%}" in note["text"]  # 0.41% on the H200
    assert f"FLOP counters within {check['flops']:.2%}" in note["text"]
    assert f"worst single counter {check['worst']:.1%} ({check['worst_what']})" in note["text"]
    assert note["fix"] == "rooftui profile --exhaustive profiles every launch"


def test_the_text_summary_prints_the_note():
    done = run_cli("summary", TABLE)
    assert done.returncode == 0, done.stderr
    assert "57 inherited the counters of a twin" in done.stderr
    assert f"bytes within {SIDECAR['self_check']['bytes']:.2%}" in done.stderr


def test_the_csv_has_each_launchs_provenance_columns():
    done = run_cli("summary", "--format", "csv", TABLE)
    assert done.returncode == 0, done.stderr
    rows = {int(r["id"]): r for r in csv.DictReader(io.StringIO(done.stdout))}
    for launch in LAUNCHES:
        want = expected(launch)
        row = rows[launch["id"]]
        assert row["counters_from"] == want["how"]
        assert row["counters_signature"] == launch["signature"]
        twin = "" if want["twin"] is None else f"{float(want['twin'])}"
        assert row["counters_twin"] == twin


def test_the_detail_pane_names_an_inherited_launchs_twin():
    from rooftui.analysis import load_run
    from rooftui.views.tui.detail_text import describe

    run = load_run([TABLE])
    launch = next(x for x in LAUNCHES if not x["profiled"])
    row = run.kernels.loc[run.kernels["ncu_id"] == launch["id"]].iloc[0]
    console = Console(width=161, color_system=None, record=True)
    console.print(describe(row, run.ceilings, None, False, 160))
    want = f"its twin's, launch {launch['counters_from']} (dedup signature {launch['signature']})"
    assert want in console.export_text()


def test_without_its_sidecar_the_table_still_marks_launches_and_says_the_check_is_unknown(tmp_path):
    shutil.copy(TABLE, tmp_path / TABLE.name)
    done = run_cli("summary", "--format", "json", tmp_path / TABLE.name)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    (note,) = [n["text"] for n in doc["notes_detail"] if n["kind"] == "deduplicated"]
    assert "Self-check not known: d4.signatures.json is not beside it" in note
    assert sum(k["counters_from"]["how"] == "inherited" for k in doc["kernels"]) == 57


def test_a_damaged_sidecar_is_named_not_a_traceback(tmp_path):
    shutil.copy(TABLE, tmp_path / TABLE.name)
    (tmp_path / "d4.signatures.json").write_text('{"self_check": ', encoding="utf-8")
    done = run_cli("summary", "--format", "json", tmp_path / TABLE.name)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    (note,) = [n["text"] for n in doc["notes_detail"] if n["kind"] == "deduplicated"]
    assert "Self-check not known: d4.signatures.json cannot be read (JSONDecodeError" in note


def test_a_report_profiled_in_full_gains_nothing():
    report = Path(__file__).parents[2] / "sample_data" / "known_answer" / "known_answer.raw.csv"
    done = run_cli("summary", "--format", "json", report)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert all(k["counters_from"] is None for k in doc["kernels"])
    assert not [n for n in doc["notes_detail"] if n["kind"] == "deduplicated"]
    header = run_cli("summary", "--format", "csv", report).stdout.splitlines()[0].split(",")
    assert not [c for c in header if c.startswith("counters_")]


def test_a_ranks_launches_point_at_rank_0s_row_of_the_same_launch():
    from rooftui.analysis.deduplicated import add_counters_from

    # rank 0 profiled in full (no provenance column), rank 1 given rank 0's row N
    # (rooftui.profile.dedup.rank_from_twin writes "rank 0:N"), ids offset per report
    kernels = pd.DataFrame(
        {
            "report": ["r.rank0.ncu-rep"] * 3 + ["r.rank1.raw.csv"] * 3,
            "rank": ["0"] * 3 + ["1"] * 3,
            "ncu_id": [0, 1, 2, 0, 1, 2],
            "id": [0, 1, 2, 3, 4, 5],
        }
    )
    raw = pd.DataFrame({"rooftui__counters_from": [None] * 3 + ["rank 0:0", "rank 0:1", "rank 0:2"]})
    table, notes = add_counters_from(kernels, raw)
    assert table["counters_from"].tolist() == [""] * 3 + ["inherited"] * 3
    assert table["counters_twin"].tolist()[3:] == [0.0, 1.0, 2.0]
    assert "3 given another rank's counters launch by launch" in notes[0]
