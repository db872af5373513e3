"""How long `rooftui advise` takes beyond loading, on 100,000 invocations.

    python benchmarks/advise.py [ROWS]

The report is core_load.py's synthetic one (the real AMP step's rows replicated to ROWS
invocations, every column). It is loaded once against the bundled H200 ceilings (with
their measured launch floor); then, best of 3, the advice alone (achievable times,
operation classes, budget, findings), and the advice plus the text, JSON and CSV
renderings; wall time and this process's CPU time (the wall time of a shared machine
moves with its load; CPU time much less). Target (issue 21): under 1 s beyond loading.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.core_load import best_of, synthesise  # noqa: E402
from rooftui.analysis import load_run  # noqa: E402
from rooftui.analysis.advise_run import advise  # noqa: E402
from rooftui.analysis.load_options import LoadOptions  # noqa: E402
from rooftui.sample import sample_ceilings  # noqa: E402
from rooftui.views.advise import advice_csv, advice_text  # noqa: E402


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        path = Path(tmp) / "big.raw.csv"
        synthesise(rows, path)
        start = time.perf_counter()
        run = load_run([path], LoadOptions(ceilings=sample_ceilings(), no_cache=True))
        load = time.perf_counter() - start
    alone = best_of(3, lambda: advise(run))
    alone_cpu = best_of(3, lambda: advise(run), clock=time.process_time)

    def everything() -> None:
        advice = advise(run)
        advice_text(advice, 80)
        json.dumps(advice.to_json())
        advice_csv(advice)

    rendered = best_of(3, everything)
    rendered_cpu = best_of(3, everything, clock=time.process_time)

    def table_output() -> None:
        advice = advise(run)
        advice_text(advice, 80)

    table_cpu = best_of(3, table_output, clock=time.process_time)
    advice = advise(run)
    budget = next(iter(advice.budgets.values()))
    print(f"{len(run.kernels):,} invocations; load_run (not counted) {load:.2f} s")
    print(f"  (os.getloadavg: {' '.join(f'{x:.1f}' for x in os.getloadavg())}, {os.cpu_count()} cores)")
    print("                                              wall (best of 3)   CPU (best of 3)")
    print(f"  advise (launches, classes, budget, findings)   {alone:6.2f} s         {alone_cpu:6.2f} s")
    print(f"  advise + the table (rooftui advise's default)       --            {table_cpu:6.2f} s")
    print(f"  advise + text + JSON + per-launch CSV          {rendered:6.2f} s         {rendered_cpu:6.2f} s")
    print(
        f"  speed of light {budget.speed_of_light_s:.4g} s of {budget.step_s:.4g} s; "
        f"{len(advice.findings)} findings"
    )


if __name__ == "__main__":
    main()
