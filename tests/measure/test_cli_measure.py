"""`rooftui measure` as a command: one process per GPU for --device all (no Textual on its
path: tests/cli/test_headless_imports.py)."""

from __future__ import annotations

from pathlib import Path

from rooftui.measure.runner import run_children

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "ceilings" / "h200.json"


def test_device_all_runs_one_process_per_gpu_and_keeps_the_worst_exit_code(capfd):
    # what each child runs is `python -m rooftui.measure ARGS`; --show needs no GPU. The first
    # child ends 2 (a missing file), the last 0 (it draws the sample's curves): the worst is
    # returned, not the last; and each child ran its own arguments.
    missing = str(ROOT / "no-such-file.json")
    assert run_children([0, 1], lambda i: ["--show", missing] if i == 0 else ["--show", str(SAMPLE)]) == 2
    out, err = capfd.readouterr()
    assert out.count("read bandwidth vs working set") == 1
    assert err.count("no-such-file.json' does not exist") == 1
