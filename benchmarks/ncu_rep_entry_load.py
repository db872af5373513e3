"""Cold and warm ``.ncu-rep`` loads of two rooftui trees, side by side: wall time and the
parent's peak RSS, per bundled sample report.

    python benchmarks/ncu_rep_entry_load.py BEFORE_TREE AFTER_TREE [--rounds N] [REPORT ...]

A tree is a folder holding a ``rooftui`` package (``git archive COMMIT rooftui | tar -x
-C FOLDER``); each load runs in a fresh Python process with that folder first on
``PYTHONPATH`` and its working directory elsewhere, so the reader child imports that
tree too. REPORTs default to every ``sample_data/**/*.ncu-rep*``. Per report, round and
tree, in turn (before, after, before, ...: a busy machine slows both alike):

  cold   ``rooftui.ingest.parallel.read_paths([REPORT])`` with an empty report cache:
         the reader child reads the report with ``ncu_report`` (decompressing it first
         if compressed), then the parent makes the RawReport and caches it
  warm   the same call in a new process, from the cache the cold load filled

Time is that call's wall time (imports excluded); memory is the parent process's peak
RSS (``ru_maxrss``: interpreter, pandas and rooftui included) and what the call added
to the RSS the process had before it. The reader child's memory is not counted.
Medians over the rounds are printed, then every round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOAD = """
import json, resource, sys, time
import pandas, rooftui.ingest.ncu_rep, rooftui.ingest.cache
from rooftui.ingest.parallel import read_paths

def rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()

before = rss()
start = time.perf_counter()
(report,), = read_paths([sys.argv[1]], cache=True)
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"s": took, "peak": peak, "added": peak - before, "launches": len(report.kernels)}))
"""


def load(tree: Path, report: Path, cache: Path) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "ROOFTUI_NO_CACHE"}
    env.update(PYTHONPATH=str(tree), XDG_CACHE_HOME=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(report)],
        cwd=cache.parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("reports", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    reports = args.reports or sorted(ROOT.glob("sample_data/**/*.ncu-rep*"))
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    rows = []
    with tempfile.TemporaryDirectory(prefix="rooftui-entry-bench-") as scratch:
        for report in reports:
            found: dict[tuple[str, str], list[dict]] = {}
            for round_number in range(args.rounds):
                for name, tree in trees.items():
                    cache = Path(scratch) / f"{report.name}-{name}-{round_number}" / "cache"
                    cache.mkdir(parents=True)
                    found.setdefault((name, "cold"), []).append(load(tree, report.resolve(), cache))
                    found.setdefault((name, "warm"), []).append(load(tree, report.resolve(), cache))
            rows.append((report, found))
    load_average = os.getloadavg()
    print(f"{args.rounds} rounds; load average after: {load_average[0]:.2f}; medians (every round after)")
    print(
        f"{'report':44s} {'launches':>8s} {'':5s} {'before s':>9s} {'after s':>8s} "
        f"{'before MiB':>11s} {'after MiB':>10s} {'added before':>13s} {'added after':>12s}"
    )
    for report, found in rows:
        name = str(report.relative_to(ROOT)) if report.is_relative_to(ROOT) else str(report)
        for kind in ("cold", "warm"):
            b, a = found[("before", kind)], found[("after", kind)]
            assert {r["launches"] for r in b} == {r["launches"] for r in a}
            print(
                f"{name:44.44s} {b[0]['launches']:8d} {kind:5s} "
                f"{_median(b, 's'):9.3f} {_median(a, 's'):8.3f} "
                f"{_median(b, 'peak') / 2**20:11.1f} {_median(a, 'peak') / 2**20:10.1f} "
                f"{_median(b, 'added') / 2**20:13.1f} {_median(a, 'added') / 2**20:12.1f}"
                f"   rounds s: {_each(b)} | {_each(a)}"
            )


def _each(runs: list[dict]) -> str:
    return " ".join(f"{run['s']:.3f}" for run in runs)


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


if __name__ == "__main__":
    main()
