"""The load path against an older commit: the same numbers, and how much less CPU.

    python benchmarks/load_path.py check [BASE]     # exit 1 if anything differs
    python benchmarks/load_path.py time [BASE] [--rounds N]

BASE (a commit, default 53fa460, the start of this work) is unpacked with
``git archive`` into a temporary folder; this checkout is the other side.

``check`` loads every report of ``REPORTS`` in both trees, in child processes, and
compares (1) ``rooftui summary --format json`` of each, byte for byte, and (2) the kernel
table ``load_run`` gives (the same columns in the same order, the same dtypes, every
value equal, NaN where NaN), its notes, missing metrics and ceilings, with several
load options. A load path made faster must give exactly what it gave.

``time`` measures ``load_run`` (the report cache off, so each load reads its report as
a test's first load does, and on: the report read from the cache, as a second opening)
on the same reports in both trees, the two children taking turns ``--rounds`` times, and
prints each tree's CPU time (user + system of the child, its imports excluded) per load
and the ratio. Run the two sides at the same time because the machine is shared:
compare the ratio, not the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = "53fa460"
SAMPLES = ROOT / "sample_data"
# Committed reports of every form rooftui reads (raw and details CSV in both unit
# styles, .ncu-rep plain and compressed, a paper-style V100 export, two GPUs of a job,
# SourceCounters, summaries) and the bundled sample.
REPORTS = [
    "rooftui/data/sample/deepcam_amp.raw-base.csv.xz",
    "sample_data/known_answer/known_answer.raw.csv",
    "sample_data/known_answer/known_answer.raw-base.csv",
    "sample_data/known_answer/known_answer.details.csv",
    "sample_data/known_answer/known_answer.ncu-rep",
    "sample_data/known_answer/known_answer_basic.ncu-rep.xz",
    "sample_data/known_answer/known_answer_roofline.raw.csv",
    "sample_data/known_answer/known_answer_sourcecounters.ncu-rep.xz",
    "sample_data/known_answer/known_answer.spellings.raw-base.csv",
    "sample_data/deepcam/deepcam_fp32.raw.csv.xz",
    "sample_data/deepcam/deepcam_fp32.details.csv.xz",
    "sample_data/deeplab/deeplab_amp.raw-base.csv.xz",
    "sample_data/hopper_hmma/torch.raw-base.csv",
    "sample_data/hopper_hmma/register_moves.raw-base.csv",
    "sample_data/multigpu/single_gpu.raw.csv.xz",
    "sample_data/profile/deepcam_amp_rooftui.raw-base.csv.xz",
    "tests/ingest/data/nested_nvtx.raw-base.csv.xz",
]
# Runs given as one input (several reports, or one report with options).
GROUPS: list[tuple[list[str], dict]] = [
    (["sample_data/multigpu/ddp.rank0.raw.csv.xz", "sample_data/multigpu/ddp.rank1.raw.csv.xz"], {}),
    (["sample_data/known_answer/known_answer.raw.csv"], {"fp16_rule": "paper"}),
    (["sample_data/known_answer/known_answer.raw.csv"], {"ceilings": "sample_data/ceilings/h200.json"}),
    (["sample_data/deepcam/deepcam_fp32.raw.csv.xz"], {"infer_phases": False}),
    (["sample_data/known_answer/known_answer.raw.csv"], {"gpu": "A100"}),
]

# Run in each tree: load each input, write what it gave (pickled) or how long it took.
CHILD = r"""
import json, os, pickle, sys, tempfile, time, resource
tree, mode, spec, out = sys.argv[1:5]
sys.path.insert(0, tree)
os.chdir(tree)
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp()
from rooftui.analysis import grouped_kernels, load_run
from rooftui.analysis.load_options import LoadOptions
inputs = json.loads(spec)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
if mode == "check":
    results = []
    for paths, options in inputs:
        run = load_run(paths, LoadOptions(**options))
        results.append((run.kernels, grouped_kernels(run), [str(n) for n in run.notes],
                        run.missing_metrics, {k: repr(v) for k, v in run.ceilings_by_device.items()}))
    pickle.dump(results, open(out, "wb"))
else:
    rounds = int(os.environ["ROUNDS"])
    for paths, options in inputs:  # imports and first-use costs, not timed
        load_run(paths, LoadOptions(**options, no_cache=True))
    times = {}
    for cached in (False, True):
        for paths, options in inputs:
            load_run(paths, LoadOptions(**options, no_cache=not cached))  # fills the cache
        start = cpu()
        for _ in range(rounds):
            for paths, options in inputs:
                load_run(paths, LoadOptions(**options, no_cache=not cached))
        times["cached" if cached else "cold"] = (cpu() - start) / rounds / len(inputs)
    json.dump(times, open(out, "w"))
"""


def unpack(commit: str, into: Path) -> Path:
    tree = into / commit
    tree.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryFile() as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(tree, filter="data")
    return tree


def child(tree: Path, mode: str, inputs: list, out: Path, rounds: int = 1) -> subprocess.Popen:
    env = {**os.environ, "ROUNDS": str(rounds), "PYTHONPATH": str(tree)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tree), mode, json.dumps(inputs), str(out)], env=env
    )


def summary_json(tree: Path, report: str) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(tree), "NO_COLOR": "1", "COLUMNS": "120"}
    with tempfile.TemporaryDirectory() as cache:
        env["XDG_CACHE_HOME"] = env["XDG_DATA_HOME"] = cache
        done = subprocess.run(
            [sys.executable, "-m", "rooftui", "summary", "--format", "json", report],
            cwd=tree,
            env=env,
            capture_output=True,
        )
    return done.stdout + b"\nexit %d\n" % done.returncode + done.stderr


def check(base: Path) -> int:
    import pickle

    differ = 0
    for report in REPORTS:
        same = summary_json(base, report) == summary_json(ROOT, report)
        differ += not same
        print(f"summary --format json {'same' if same else 'DIFFERS'}: {report}")
    inputs = [([p], {}) for p in REPORTS] + GROUPS
    with tempfile.TemporaryDirectory() as scratch:
        outs = [Path(scratch) / "base.pickle", Path(scratch) / "this.pickle"]
        children = [child(tree, "check", inputs, out) for tree, out in zip((base, ROOT), outs)]
        if any(c.wait() for c in children):
            print("a load failed")
            return 1
        results = [pickle.loads(out.read_bytes()) for out in outs]
    for (paths, options), was, now in zip(inputs, *results):
        problems = [
            f"{what}: {problem}"
            for what, a, b in zip(("kernels", "grouped"), was, now)
            if (problem := _frame_differs(a, b))
        ]
        problems += [what for what, a, b in zip(("notes", "missing", "ceilings"), was[2:], now[2:]) if a != b]
        differ += bool(problems)
        print(
            f"kernel table {'same' if not problems else 'DIFFERS ' + ', '.join(problems)}: {paths} {options}"
        )
    print("all the same" if not differ else f"{differ} differ")
    return 1 if differ else 0


def _frame_differs(was, now) -> str:
    """How two frames differ ("" when they do not): columns, dtypes, or a value."""
    import pandas as pd

    if list(was.columns) != list(now.columns):
        return "columns"
    if list(was.dtypes) != list(now.dtypes):
        changed = [f"{c} {a} -> {b}" for c, a, b in zip(was.columns, was.dtypes, now.dtypes) if a != b]
        return "dtypes " + "; ".join(changed[:4]) + (" ..." if len(changed) > 4 else "")
    try:
        pd.testing.assert_frame_equal(was, now, check_exact=True)
    except AssertionError as err:
        return str(err).splitlines()[0]
    return ""


def time_both(base: Path, rounds: int) -> None:
    inputs = [([p], {}) for p in REPORTS if not p.endswith(("ncu-rep", "ncu-rep.xz"))]
    with tempfile.TemporaryDirectory() as scratch:
        sums = {"base": {"cold": 0.0, "cached": 0.0}, "this": {"cold": 0.0, "cached": 0.0}}
        for turn in range(rounds):  # the two take turns, so both meet the same load
            for name, tree in (
                (("base", base), ("this", ROOT)) if turn % 2 == 0 else (("this", ROOT), ("base", base))
            ):
                out = Path(scratch) / f"{name}{turn}.json"
                if child(tree, "time", inputs, out).wait():
                    raise SystemExit(f"the {name} tree failed to load")
                for key, seconds in json.loads(out.read_text()).items():
                    sums[name][key] += seconds / rounds
    print(f"load_run CPU per load, mean over {len(inputs)} reports and {rounds} turns each:")
    for key in ("cold", "cached"):
        was, now = sums["base"][key], sums["this"][key]
        print(f"  {key:6}  base {was * 1e3:6.1f} ms   this {now * 1e3:6.1f} ms   this/base {now / was:.2f}")
    print(f"load average now {os.getloadavg()[0]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("check", "time"))
    parser.add_argument("base", nargs="?", default=BASE)
    parser.add_argument("--rounds", type=int, default=4)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = unpack(options.base, Path(scratch))
        if options.what == "check":
            return check(base)
        time_both(base, options.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
