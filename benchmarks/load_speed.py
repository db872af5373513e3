"""How much CPU a load takes, this checkout against a base checkout, measured in turns.

    python benchmarks/load_speed.py --base COMMIT|DIR [--repeats N] [--launches N]

The base is a checkout folder, or a commit unpacked with ``git archive`` the way
``load_path.py`` does (its ``unpack``).

Inputs: the bundled sample (rooftui/data/sample/deepcam_amp.raw-base.csv.xz, 179
launches) and a large run made from it (``large_run``: its launches repeated, IDs
renumbered, to ``--launches``, 10,000 by default: what users bring). Per input and step,
the CPU time (user + system of the process, reader threads included; imports excluded):

- ``cold``: ``load_run`` with the report cache off (the CSV parsed, as a first opening);
- ``cached``: ``load_run`` from the report cache (a second opening, most tests' loads);
- ``from_run``: ``LoadedRun.from_run`` (what the explorer prepares before it shows);
- ``to_json``: ``views.summary.to_json`` of the launches (``summary --format json``).

Each repeat runs one child per tree, the two in turns (base first on even repeats), so
both meet the same load on a shared machine; the table gives each tree's median over
the repeats and the ratio this/base. Compare the ratios, not the seconds.
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

from load_path import unpack  # benchmarks/ is this script's folder, first on sys.path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "rooftui/data/sample/deepcam_amp.raw-base.csv.xz"
STEPS = ("cold", "cached", "from_run", "to_json")

# Run in each tree: every step of every input once (after a warm-up), CPU seconds as JSON.
CHILD = r"""
import json, os, resource, sys, tempfile
tree, out = sys.argv[1], sys.argv[2]
inputs = json.loads(sys.argv[3])
sys.path.insert(0, tree)
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp()
from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.views.summary import to_json
from rooftui.views.tui.view_state import LoadedRun

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def timed(step):
    start = cpu()
    value = step()
    return value, cpu() - start

times = {}
for name, path in inputs.items():
    run = load_run([path], LoadOptions(no_cache=True))  # warm-up: first-use costs
    LoadedRun.from_run(run)
    to_json(run, run.kernels)
    load_run([path])  # fills the cache
    _, cold = timed(lambda: load_run([path], LoadOptions(no_cache=True)))
    run, cached = timed(lambda: load_run([path]))
    _, prepared = timed(lambda: LoadedRun.from_run(run))
    _, json_doc = timed(lambda: to_json(run, run.kernels))
    times[name] = {"cold": cold, "cached": cached, "from_run": prepared, "to_json": json_doc}
json.dump(times, open(out, "w"))
"""


def large_run(path: Path, launches: int) -> Path:
    """The bundled sample's launches repeated (IDs 0..launches-1) into a raw CSV at ``path``."""
    rows = list(csv.reader(io.StringIO(lzma.open(ROOT / SAMPLE, "rt").read())))
    header, units, data = rows[0], rows[1], rows[2:]
    at = header.index("ID")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)  # as ncu writes its exports
        writer.writerow(header)
        writer.writerow(units)
        for launch in range(launches):
            row = list(data[launch % len(data)])
            row[at] = str(launch)
            writer.writerow(row)
    return path


def measure(tree: Path, inputs: dict[str, str], out: Path) -> dict[str, dict[str, float]]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("ROOFTUI_NO_CACHE", None)
    subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(out), json.dumps(inputs)], cwd=tree, env=env, check=True
    )
    times: dict[str, dict[str, float]] = json.loads(out.read_text())
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="a checkout folder, or a commit to unpack")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--launches", type=int, default=10_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(options.base)
        base = base.resolve() if base.is_dir() else unpack(options.base, Path(scratch))
        trees = {"base": base, "this": ROOT}
        large = large_run(Path(scratch) / f"large{options.launches}.raw-base.csv", options.launches)
        inputs = {"sample (179)": str(ROOT / SAMPLE), f"large ({options.launches:,})": str(large)}
        runs: dict[str, list[dict[str, dict[str, float]]]] = {"base": [], "this": []}
        for repeat in range(options.repeats):
            order = ("base", "this") if repeat % 2 == 0 else ("this", "base")
            for name in order:
                runs[name].append(measure(trees[name], inputs, Path(scratch) / f"{name}{repeat}.json"))
    load = os.getloadavg()[0]
    print(f"CPU ms, median of {options.repeats} (children in turns); load average now {load:.1f}")
    print(f"| input | step | base {trees['base'].name} | this | this/base |")
    print("|---|---|---|---|---|")
    for input_name in inputs:
        for step in STEPS:
            base, this = (statistics.median(t[input_name][step] for t in runs[side]) for side in runs)
            print(f"| {input_name} | {step} | {base * 1e3:.0f} | {this * 1e3:.0f} | {this / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
