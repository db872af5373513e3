"""The per-architecture metric table."""

import pytest

from rooftui.model.metrics import architecture_for, required_metrics


@pytest.mark.parametrize(
    "cc, name",
    [
        ("7.0", "Volta"),
        ("7.5", "Turing"),
        ("8.0", "Ampere"),
        ("8.6", "Ampere"),
        ("8.9", "Ada"),
        ("9.0", "Hopper"),
        ("10.0", "Blackwell"),
        ("12.0", "Blackwell"),
        ("11.0", "Blackwell"),
        ("13.0", "Blackwell"),
    ],
)
def test_compute_capability_picks_its_architecture_or_the_newest_older_one(cc, name):
    assert architecture_for(cc).name == name


def test_volta_uses_the_papers_rule_and_hopper_the_ops_path_counters():
    volta = required_metrics(architecture_for("7.0"))
    hopper = required_metrics(architecture_for("9.0"))
    assert "sm__inst_executed_pipe_tensor.sum" in volta
    assert not any(m.startswith("sm__ops_path") for m in volta)
    assert "sm__ops_path_tensor_src_fp16.sum" in hopper
    assert "sm__inst_executed_pipe_tensor.sum" not in hopper
    for names in (volta, hopper):
        assert "gpu__time_duration.sum" in names and "dram__bytes.sum" in names
        assert len(names) == len(set(names))


def test_the_import_contracts_hold():
    """The import-linter contracts in pyproject.toml (lint-imports), run as a test: the
    data layer never imports Textual, the layers import downwards only."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports())"
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:]
