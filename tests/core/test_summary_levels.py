"""The text summary's AI columns: one per level the run has (SMEM only where collected),
every row's cells under their titles, and an L1 AI that TMA went around marked, not shown
as a number of 1e5-1e8 (#27). Checked against the JSON the same command writes."""

import json
from pathlib import Path

from rooftui.cli import main
from tests.sample_variants import without_smem_counters

SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
DEEPCAM = SAMPLES / "deepcam" / "deepcam_amp.raw-base.csv.xz"
GPT = SAMPLES / "known_answer" / "shared_memory" / "gpt_step.raw-base.csv.xz"


def table_and_json(capsys, monkeypatch, report: Path, top: int) -> tuple[list[str], list[dict]]:
    monkeypatch.setenv("COLUMNS", "200")
    main(["summary", str(report), "--top", str(top)])
    lines = capsys.readouterr().out.splitlines()
    main(["summary", str(report), "--top", str(top), "--format", "json"])
    kernels = json.loads(capsys.readouterr().out)["kernels"]
    header = next(i for i, line in enumerate(lines) if line.startswith("kernel "))
    return lines[header : header + 1 + top], kernels


def test_a_run_without_smem_counters_has_no_smem_column_and_every_bound_under_its_title(
    capsys, monkeypatch, tmp_path
):
    table, kernels = table_and_json(capsys, monkeypatch, without_smem_counters(tmp_path, DEEPCAM), 5)
    header = table[0]
    assert "SMEM" not in header
    for line, kernel in zip(table[1:], kernels):
        assert line.rstrip().endswith(f"{kernel['bound']} {100 * kernel['roof_fraction']:.0f}%"), line


def test_an_l1_that_tma_went_around_is_marked_and_no_l1_ai_beyond_1e4_is_left_bare(capsys, monkeypatch):
    table, kernels = table_and_json(capsys, monkeypatch, GPT, 30)
    header = table[0]
    assert " SMEM " in header
    marked = 0
    for line, kernel in zip(table[1:], kernels):
        shown = line.split()
        l1 = kernel["ai"]["l1"]
        if kernel["l1_bypassed"]:
            assert "TMA" in shown, line
            marked += 1
        else:
            assert "TMA" not in shown, line
            assert l1 is None or l1 <= 1e4, (kernel["name"], l1)
    assert marked >= 3  # the step's nvjet GEMMs
