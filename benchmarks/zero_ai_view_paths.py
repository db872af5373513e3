"""Which forms of a sample run the same code in the zero-AI views (the proof behind
``SAME_VIEW_PATH`` in tests/core/test_zero_ai_agrees.py).

    python benchmarks/zero_ai_view_paths.py     # exit 1 if the map no longer holds

Each committed form (``SAMPLES``) is loaded, then the test's own view checks
(``views_agree_with_table3``: the summary's JSON per launch, grouped and per kernel name,
the explorer's status-line totals and zero-AI filter, the summary text) run under a line
trace of rooftui's modules. Two forms whose traces are the same set of (file, line) run the
same code for the rule the views check, so the test checks the views on one of them and
the reading (Table III against ncu's counters and the known answers) on both. Forms with
equal traces are printed in sets, and each entry of ``SAME_VIEW_PATH`` is checked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["ROOFTUI_NO_CACHE"] = "1"  # never the user's report cache

from rooftui.analysis import load_run  # noqa: E402
from rooftui.analysis.load_options import LoadOptions  # noqa: E402
from rooftui.analysis.summary import zero_ai_table  # noqa: E402
from tests.core.line_trace import Lines, lines_run  # noqa: E402
from tests.core.test_zero_ai_agrees import SAME_VIEW_PATH, SAMPLES, views_agree_with_table3  # noqa: E402


def view_lines(path: Path) -> Lines:
    run = load_run([path], LoadOptions())
    table3 = zero_ai_table(run.kernels).iloc[-1]
    zero, zero_time = int(table3["zero_ai"]), float(table3["zero_ai_time_s"])
    return lines_run(lambda: views_agree_with_table3(run, len(run.kernels), zero, zero_time))


def main() -> int:
    traced = {path.name: view_lines(path) for path in SAMPLES}
    sets: dict[Lines, list[str]] = {}
    for name, lines in traced.items():
        sets.setdefault(lines, []).append(name)
    for names in sets.values():
        print(f"{len(traced[names[0]]):5d} lines: {', '.join(names)}")
    wrong = [f"{form} -> {kept}" for form, kept in SAME_VIEW_PATH.items() if traced[form] != traced[kept]]
    for entry in wrong:
        print(f"not the same view path: {entry}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
