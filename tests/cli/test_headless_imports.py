"""The headless commands and the Textual-free models never load Textual: one real process.

What gets imported can only be seen in a fresh interpreter, and starting one that imports
pandas and rooftui costs ~1.3 s of CPU; the checks share one. Each step prints the UI
modules loaded so far, so a step that loads one is named by the first line that shows it
(the later steps then show it too). These were six subprocess tests, one per command or
model (benchmarks/results/2026-12-02-suite-w26fuzz.md lists where each went).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pandas as pd

from tests.compare.conftest import AMP, FP32
from tests.conftest import ROOT
from tests.timeline.kineto_builder import write_naive
from tests.timeline.paths import NAIVE_TRACE
from tests.tui.conftest import SAMPLE

UI = ("textual", "textual_plotext", "plotext")
STEPS = [
    "measure --help (python -m rooftui)",
    "measure's runner, results, compute",
    "explorer model",
    "plot --csv",
    "compare model",
    "diff --format json",
    "timeline model",
    "timeline --format json",
]


def test_headless_commands_and_models_never_load_textual(tmp_path):
    rows, trace = tmp_path / "k.csv", write_naive(tmp_path / "naive.json.gz")
    code = textwrap.dedent(
        f"""
        import contextlib, io, runpy, sys

        def step(name):
            print(name, "|", sorted(n for n in sys.modules if n.split(".")[0] in {UI!r}))

        def quietly(argv):
            from rooftui.cli import main
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    main(argv)
                except SystemExit as exit_:
                    assert not exit_.code, (argv, exit_.code)

        sys.argv = ["rooftui", "measure", "--help"]
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                runpy.run_module("rooftui", run_name="__main__")
            except SystemExit:
                pass
        step({STEPS[0]!r})
        import rooftui.measure.runner, rooftui.measure.results, rooftui.measure.compute
        step({STEPS[1]!r})

        from rooftui.analysis import load_run
        from rooftui.views.tui.explorer_model import ExplorerModel
        from rooftui.views.tui.view_state import LoadedRun
        m = ExplorerModel(LoadedRun.from_run(load_run([{str(SAMPLE)!r}])))
        m.update_roofline(); m.roofline_picture(100, 20); m.detail(); m.status_line(80)
        step({STEPS[2]!r})
        quietly(["plot", {str(SAMPLE)!r}, "--top", "5", "--csv", {str(rows)!r}])
        step({STEPS[3]!r})

        from rooftui.analysis.compare import compare_runs
        from rooftui.views.tui.compare_model import CompareModel
        c = CompareModel(compare_runs(load_run([{str(FP32)!r}]), load_run([{str(AMP)!r}]), "a", "b"))
        c.rows("matched", 80); c.chart(80, 12); c.legend(80); c.pair_detail(); c.summary_line(80)
        step({STEPS[4]!r})
        quietly(["diff", {str(FP32)!r}, {str(AMP)!r}, "--format", "json"])
        step({STEPS[5]!r})

        from rooftui.timeline import analyze_trace
        from rooftui.views.tui.timeline_model import TimelineModel
        t = TimelineModel(analyze_trace({str(NAIVE_TRACE)!r}))
        t.gantt(100, 3); t.rows(120, 40); t.detail(); t.zoom(); t.step_line(); t.finding_rows()
        step({STEPS[6]!r})
        quietly(["timeline", {str(trace)!r}, "--format", "json"])
        step({STEPS[7]!r})
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{name} | []" for name in STEPS], done.stdout
    assert len(pd.read_csv(rows)) == 5  # plot --csv did write its five rows
