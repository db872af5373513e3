"""`rooftui measure` as a command: no Textual on its path, and one process per GPU for --device all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rooftui.measure.runner import run_children

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "ceilings" / "h200.json"


def test_measure_never_loads_textual_or_plotext_until_show():
    code = (
        "import sys, runpy\n"
        "sys.argv = ['rooftui', 'measure', '--help']\n"
        "try:\n    runpy.run_module('rooftui', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "import rooftui.measure.runner, rooftui.measure.results, rooftui.measure.compute\n"
        "bad = [m for m in ('textual', 'plotext', 'textual_plotext') if m in sys.modules]\n"
        "print('LOADED', bad)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=60,
    )
    assert "LOADED []" in done.stdout, done.stdout + done.stderr


def test_device_all_runs_one_process_per_gpu_and_keeps_the_worst_exit_code(capfd):
    # what each child runs is `python -m rooftui.measure ARGS`; --show needs no GPU
    assert run_children([0, 1], lambda i: ["--show", str(SAMPLE)]) == 0
    assert capfd.readouterr().out.count("read bandwidth vs working set") == 2
    missing = str(ROOT / "no-such-file.json")
    assert run_children([0, 1], lambda i: ["--show", str(SAMPLE) if i == 0 else missing]) == 2
