"""How much CPU one cold read of a report takes, this checkout against a base checkout.

    python benchmarks/read_cold.py --base DIR [--repeats N] [--reads N]

A cold read is ``rooftui.ingest.read_report`` with no report cache: what every test that
reads a report, every CLI run and a user's first opening pay. Per report, a fresh
process per tree (the two in turns, base first on even repeats: ABBA) times

- ``first``: the first read in the process, pandas already imported (what a command
  pays on top of its imports: rooftui's own imports and first-call costs);
- ``steady``: the median of ``--reads`` more reads of the same report.

CPU is user + system of the process and of the reader children it waited for (a
``.ncu-rep`` is read by a child process). Reports: the bundled sample (179 launches,
547 columns, xz), the known-answer raw export, DeepCAM AMP's details export, a
10,000-launch raw export made from the sample (``ncu_like_export``: its rows repeated,
IDs renumbered, every field quoted and lines ended as ncu writes them on Linux) and the
known-answer ``.ncu-rep``. The table gives each tree's median over the repeats and the
ratio this/base; compare the ratios, not the seconds (a shared machine moves both).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import lzma
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = {
    "sample (179, xz)": "rooftui/data/sample/deepcam_amp.raw-base.csv.xz",
    "known answer (raw)": "sample_data/known_answer/known_answer.raw-base.csv",
    "DeepCAM AMP details (xz)": "sample_data/deepcam/deepcam_amp.details.csv.xz",
    "known answer .ncu-rep": "sample_data/known_answer/known_answer.ncu-rep",
}
STEPS = ("first", "steady")

# Run in each tree: the first read of one report after importing pandas, then --reads more.
CHILD = r"""
import json, os, resource, statistics, sys
tree, path, reads = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, tree)

def cpu():
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

import pandas  # noqa: F401 - every command has it imported before it reads
from rooftui.ingest import read_report
start = cpu()
read_report(path)
first = cpu() - start
times = []
for _ in range(reads):
    start = cpu()
    read_report(path)
    times.append(cpu() - start)
print(json.dumps({"first": first, "steady": statistics.median(times or [first])}))
"""


def ncu_like_export(path: Path, launches: int) -> Path:
    """The bundled sample's rows repeated (IDs 0..launches-1) into a raw CSV at ``path``."""
    sample = ROOT / REPORTS["sample (179, xz)"]
    rows = list(csv.reader(io.StringIO(lzma.open(sample, "rt", newline="").read())))
    header, units, data = rows[0], rows[1], rows[2:]
    at = header.index("ID")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerows([header, units])
        writer.writerows(
            [
                [str(n) if i == at else cell for i, cell in enumerate(data[n % len(data)])]
                for n in range(launches)
            ]
        )
    return path


def measure(tree: Path, path: Path, reads: int, pycache: Path) -> dict[str, float]:
    """One fresh process of ``tree`` reading ``path``: its first and steady CPU seconds.
    Bytecode is compiled once into ``pycache`` (never into the tree), as an installed
    rooftui has it."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), ROOFTUI_NO_CACHE="1", PYTHONPYCACHEPREFIX=str(pycache))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(path), str(reads)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    times: dict[str, float] = json.loads(done.stdout)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="a checkout folder")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--reads", type=int, default=5)
    parser.add_argument("--launches", type=int, default=10_000)
    options = parser.parse_args()
    trees = {"base": options.base.resolve(), "this": ROOT}
    with tempfile.TemporaryDirectory() as scratch:
        large = ncu_like_export(Path(scratch) / f"large{options.launches}.raw-base.csv", options.launches)
        reports = {name: ROOT / path for name, path in REPORTS.items()}
        reports[f"{options.launches:,} launches (raw)"] = large
        pycache = {side: Path(scratch) / f"pycache-{side}" for side in trees}
        for side, tree in trees.items():  # compiles each tree's bytecode
            measure(tree, reports["known answer (raw)"], 0, pycache[side])
        runs: dict[str, dict[str, list[dict[str, float]]]] = {"base": {}, "this": {}}
        for repeat in range(options.repeats):
            order = ("base", "this") if repeat % 2 == 0 else ("this", "base")
            for name, path in reports.items():
                for side in order:
                    times = measure(trees[side], path, options.reads, pycache[side])
                    runs[side].setdefault(name, []).append(times)
    load = os.getloadavg()[0]
    print(f"CPU ms, median of {options.repeats} processes per tree (in turns); load average now {load:.1f}")
    print(f"| report | step | base {trees['base'].name} | this | this/base |")
    print("|---|---|---|---|---|")
    for name in reports:
        for step in STEPS:
            base, this = (statistics.median(t[step] for t in runs[side][name]) for side in ("base", "this"))
            print(f"| {name} | {step} | {base * 1e3:.1f} | {this * 1e3:.1f} | {this / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
