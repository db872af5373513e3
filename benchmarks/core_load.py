"""How long `rooftui summary` takes on 100,000 invocations, next to a bare pandas read.

    python benchmarks/core_load.py [ROWS]

Synthesises a raw CSV (ncu's default auto-scaled units, all 541 columns) by
replicating the rows of the real AMP training-step export, then times in one run:
  1. pandas.read_csv of that file (the floor: parsing the text at all);
  2. rooftui's load_run (read, kernel table, ceilings, bounds, phases), cold;
  3. load_run + the grouped summary + Table III, cold;
  4. load_run with the report read from rooftui's report cache.
The report cache lives in a temporary XDG_CACHE_HOME, never the user's.
Prints the ratios to the bare read. Targets (issue 2): ≤ 2 s end to end on a
2-core machine and ≤ 2× the bare read.
"""

from __future__ import annotations

import lzma
import os
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rooftui.analysis import grouped_kernels, load_run  # noqa: E402
from rooftui.analysis.load_options import LoadOptions  # noqa: E402
from rooftui.analysis.summary import zero_ai_table  # noqa: E402

SOURCE = ROOT / "sample_data" / "deepcam" / "deepcam_amp.raw.csv.xz"


def synthesise(rows: int, out: Path) -> None:
    lines = lzma.open(SOURCE, "rt", encoding="utf-8").read().splitlines(keepends=True)
    header, units, body = lines[0], lines[1], lines[2:]
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(header)
        handle.write(units)
        for i in range(rows):
            row = body[i % len(body)]
            handle.write(f'"{i}"' + row[row.index(",") :])  # unique, increasing IDs


def best_of(repeats: int, work, clock=time.perf_counter) -> float:
    """The least of ``repeats`` timings of ``work()`` by ``clock`` (wall time; pass
    ``time.process_time`` for this process's CPU time)."""
    times = []
    for _ in range(repeats):
        start = clock()
        work()
        times.append(clock() - start)
    return min(times)


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        path = Path(tmp) / "big.raw.csv"
        synthesise(rows, path)
        size = path.stat().st_size / 1e6
        bare = best_of(3, lambda: pd.read_csv(path, skiprows=[1], thousands=",", low_memory=False))
        load = best_of(3, lambda: load_run([path], LoadOptions(no_cache=True)))

        def summary():
            run = load_run([path], LoadOptions(no_cache=True))
            grouped_kernels(run)
            zero_ai_table(run.kernels)

        total = best_of(3, summary)
        load_run([path])  # fills the cache
        cached = best_of(3, lambda: load_run([path]))
    print(f"{rows:,} invocations, {size:.0f} MB raw CSV (best of 3)")
    print(f"  pandas.read_csv (bare)        {bare:6.2f} s   1.00x")
    print(f"  rooftui load_run              {load:6.2f} s   {load / bare:.2f}x")
    print(f"  load + grouped summary + T3   {total:6.2f} s   {total / bare:.2f}x")
    print(f"  load_run from the cache       {cached:6.2f} s   {cached / bare:.2f}x")


if __name__ == "__main__":
    main()
