"""Instruction ceilings saved in a ceilings file (top-level ``instruction_ceilings``, written by
`rooftui measure`) are the ones the instruction roofline uses; a file without them still
works, its roofs derived at load as before, and the source says which.

The file here is written by hand with round numbers, so every roof is known without rooftui:
issue 1.0e12 warp inst/s; L2 8.96 TB/s ÷ 32 B = 2.8e11 sectors/s; HBM 4.48 TB/s ÷ 32 B =
1.4e11; L1 32 TB/s ÷ 32 B = 1.0e12 (not saved: derived at load).
"""

from __future__ import annotations

import json

import pytest

from rooftui.analysis import instruction_roofline, load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.errors import CeilingsError
from rooftui.ingest.ceilings import load_ceilings
from tests.conftest import KNOWN, run_cli

REPORT = KNOWN / "instructions" / "instructions.raw-base.csv"
ISSUE_SOURCE = "measured by rooftui measure: issue_mix kernel (by hand for this test)"


def ceilings_doc(instruction_ceilings: list | None = None) -> dict:
    doc = {
        "schema": "rooftui.ceilings/1",
        "device": {"name": "NVIDIA H200", "cc": "9.0", "sm_count": 132, "clocks_hz": {"sm": 1.98e9}},
        "source": "by hand",
        "ceilings": [
            {"name": "L1", "kind": "bandwidth", "level": "l1", "value": 32.0e12, "method": "empirical"},
            {"name": "L2", "kind": "bandwidth", "level": "l2", "value": 8.96e12, "method": "empirical"},
            {"name": "HBM", "kind": "bandwidth", "level": "hbm", "value": 4.48e12, "method": "empirical"},
            {"name": "FP32 FMA", "kind": "compute", "precision": "fp32", "value": 6.5e13},
        ],
    }
    if instruction_ceilings is not None:
        doc["instruction_ceilings"] = instruction_ceilings
    return doc


SAVED = [
    {
        "name": "issue",
        "value": 1.0e12,
        "unit": "warp inst/s",
        "source": ISSUE_SOURCE,
        "per_cycle_per_sm": 3.83,
    },
    {
        "name": "l2",
        "value": 2.8e11,
        "unit": "transactions/s",
        "source": "derived from measured L2 bandwidth (8.96 TB/s) ÷ 32 B per sector",
        "derived_from": {"ceiling": "L2", "bytes_per_s": 8.96e12, "bytes_per_transaction": 32},
    },
    {
        "name": "hbm",
        "value": 1.4e11,
        "unit": "transactions/s",
        "source": "derived from measured HBM bandwidth (4.48 TB/s) ÷ 32 B per sector",
        "derived_from": {"ceiling": "HBM", "bytes_per_s": 4.48e12, "bytes_per_transaction": 32},
    },
]


def write(tmp_path, doc: dict):
    path = tmp_path / "ceilings.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def roofs_with(path):
    run = load_run([REPORT], LoadOptions(ceilings=load_ceilings(path), find_measured=False))
    return instruction_roofline.ceilings_for(run, "NVIDIA H200")


def test_the_saved_issue_and_transaction_roofs_are_used_as_saved(tmp_path):
    path = write(tmp_path, ceilings_doc(SAVED))
    roofs = roofs_with(path)
    assert roofs.issue is not None and roofs.issue.value == 1.0e12
    assert roofs.issue.source == f"{ISSUE_SOURCE} (--ceilings file: {path})"
    assert roofs.issue.extra["per_cycle_per_sm"] == 3.83
    assert roofs.levels["l2"].value == 2.8e11
    assert roofs.levels["l2"].source.startswith("derived from measured L2 bandwidth (8.96 TB/s)")
    assert roofs.levels["hbm"].value == 1.4e11
    # L1 was not saved: derived at load from the file's L1 bandwidth, and the source says so
    assert roofs.levels["l1"].value == 1.0e12
    assert roofs.levels["l1"].source == (
        "L1 bandwidth (--ceilings file) ÷ 32 B per sector; derived at load (the ceilings saved none)"
    )


def test_a_file_without_them_still_works_and_every_roof_says_it_was_derived_at_load(tmp_path):
    roofs = roofs_with(write(tmp_path, ceilings_doc()))
    assert roofs.levels["l2"].value == 2.8e11 and roofs.levels["hbm"].value == 1.4e11
    assert all("derived at load" in roofs.levels[level].source for level in ("l1", "l2", "hbm"))
    assert roofs.issue is not None and roofs.issue.source.startswith("report peak")


def test_a_saved_rate_derived_from_another_bandwidth_than_the_files_is_derived_again(tmp_path):
    stale = [dict(SAVED[1], value=2.5e11, derived_from={"ceiling": "L2", "bytes_per_s": 8.0e12})]
    roofs = roofs_with(write(tmp_path, ceilings_doc(stale)))
    assert roofs.levels["l2"].value == 2.8e11  # 8.96 TB/s ÷ 32, not the stale 2.5e11
    assert "derived at load" in roofs.levels["l2"].source


def test_summary_json_carries_the_saved_roofs_with_their_sources(tmp_path):
    path = write(tmp_path, ceilings_doc(SAVED))
    done = run_cli("summary", str(REPORT), "--ceilings", str(path), "--format", "json")
    assert done.returncode == 0, done.stderr
    roofs = {
        r["name"]: r
        for r in json.loads(done.stdout)["instruction_ceilings_by_device"]["NVIDIA H200"]["roofs"]
    }
    assert roofs["issue"]["value"] == 1.0e12 and roofs["issue"]["unit"] == "warp inst/s"
    assert roofs["issue"]["source"].startswith(ISSUE_SOURCE)
    assert roofs["l2"]["derived_from"]["bytes_per_s"] == 8.96e12


@pytest.mark.parametrize(
    "entries, says",
    [
        ("all", '"instruction_ceilings" must be a list'),
        ([dict(SAVED[0], unit="FLOP/s")], '"unit" must be "warp inst/s" for issue'),
        ([dict(SAVED[1], unit="B/s")], '"unit" must be "transactions/s" for l2'),
        ([dict(SAVED[0], name="tensor")], '"name" must be one of'),
        ([dict(SAVED[0], value=0)], "value must be a positive, finite number"),
        ([dict(SAVED[0], source="")], '"source" must say where the value came from'),
        ([SAVED[0], SAVED[0]], "a second issue roof"),
        ([dict(SAVED[1], derived_from={"bytes_per_s": "fast"})], "bytes_per_s must be a number"),
    ],
)
def test_a_damaged_instruction_ceiling_is_refused_in_one_line(tmp_path, entries, says):
    path = write(tmp_path, ceilings_doc(entries))
    with pytest.raises(CeilingsError, match=says):
        load_ceilings(path)
    done = run_cli("summary", str(REPORT), "--ceilings", str(path))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and str(path) in done.stderr


def test_measure_writes_what_the_loader_reads_back(tmp_path):
    from rooftui.measure.results import ceilings_document, read_ceilings, write_json

    original = load_ceilings(write(tmp_path, ceilings_doc(SAVED)))
    out = tmp_path / "written.json"
    write_json(out, ceilings_document(original, {"seconds": 1.0}))
    for back in (load_ceilings(out), read_ceilings(out)):
        assert [(r.name, r.value, r.unit, r.source) for r in back.instruction_roofs] == [
            (r.name, r.value, r.unit, r.source) for r in original.instruction_roofs
        ]
        assert back.instruction_roofs[1].extra["derived_from"]["bytes_per_s"] == 8.96e12
