"""The load path against a base: the same outputs, and how much CPU each step takes.

    python benchmarks/load_path.py digest [--tree COMMIT|DIR] [--out FILE]
    python benchmarks/load_path.py compare A B                 # two digests
    python benchmarks/load_path.py compare --base COMMIT|DIR   # digest the base and this checkout
    python benchmarks/load_path.py speed --base COMMIT|DIR [--repeats N] [--launches N]
                                         [--committed] [--calls]

A base (or ``--tree``) is a checkout folder, or a commit unpacked with ``git archive``
into a temporary folder; the other side is this checkout. ``compare`` exits 1 if any
line differs.

``digest`` runs, in a child whose ``rooftui`` is the tree's (its working directory the
tree), for every committed report under sample_data/, rooftui/data/ and tests/ (``.csv``
and ``.ncu-rep``, compressed or not), every corpus fixture ``tests/corpus/fixtures.py``
writes, and the runs of ``OPTION_SETS`` (load options, several reports as one run):
``rooftui summary --format json`` and ``--format csv``, and the text tables of ``summary``
and ``summary --group --top 60`` at 120 columns (in process, through the real ``main``, as
the tests' ``run_cli``; stdout, stderr and exit code), the explorer's two
tables (``LoadedRun.from_run``: every launch and grouped by kernel, as CSV with floats as
repr writes them, plus every column's dtype) and the run's notes, missing metrics and
ceilings. It prints one line per input: the SHA-256 of each. The report cache is off
(``ROOFTUI_NO_CACHE``), so each report is parsed; ``COLUMNS`` and ``NO_COLOR`` are fixed.

``speed`` times, per input and step, the CPU (user + system of the process, reader
threads included; imports and a warm-up excluded) of:

- ``cold``: ``load_run`` with the report cache off (the CSV parsed, as a first opening);
- ``cached``: ``load_run`` from the report cache (a second opening, most tests' loads);
- ``from_run``: ``LoadedRun.from_run`` (what the explorer prepares before it shows);
- ``to_json``: ``views.summary.to_json`` (the document), ``json_text``:
  ``views.summary.dumps_json`` (the text ``summary --format json`` writes);
- with ``--calls``: in-process commands (``CALLS``) as the tests run them, each whole.

Inputs: the bundled sample (179 launches) and a large run made from it (``large_run``: its
launches repeated, IDs renumbered, to ``--launches``, 10,000 by default: what users
bring); with ``--committed`` also every committed CSV report of ``REPORTS``. Each repeat
runs one child per tree, the two in turns (base first on even repeats), so both meet the
same load on a shared machine; the table gives each tree's median over the repeats and the
ratio this/base. Compare the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import lzma
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("sample_data", "rooftui/data", "tests")
SUFFIXES = (".csv", ".ncu-rep")
COMPRESSED = ("", ".xz", ".gz", ".bz2", ".zst")
SAMPLE = "rooftui/data/sample/deepcam_amp.raw-base.csv.xz"
# Runs given with load options or as several reports: (reports, summary's options).
OPTION_SETS: list[tuple[list[str], list[str]]] = [
    (["sample_data/multigpu/ddp.rank0.raw.csv.xz", "sample_data/multigpu/ddp.rank1.raw.csv.xz"], []),
    (["sample_data/known_answer/known_answer.raw.csv"], ["--fp16-rule", "paper"]),
    (["sample_data/known_answer/known_answer.raw.csv"], ["--ceilings", "sample_data/ceilings/h200.json"]),
    (["sample_data/deepcam/deepcam_fp32.raw.csv.xz"], ["--no-infer-phases"]),
    (["sample_data/known_answer/known_answer.raw.csv"], ["--gpu", "A100"]),
]
# ``speed --committed``: committed CSV reports of every form (raw and details, both unit
# styles, a paper-style V100 export, SourceCounters, summaries).
REPORTS = [
    "sample_data/known_answer/known_answer.raw.csv",
    "sample_data/known_answer/known_answer.raw-base.csv",
    "sample_data/known_answer/known_answer.details.csv",
    "sample_data/known_answer/known_answer_roofline.raw.csv",
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
STEPS = ("cold", "cached", "from_run", "to_json", "json_text")
# ``speed --calls``: commands run in process ({report} and {out}: the input and a scratch folder).
CALLS = {
    "summary": ["summary", "{report}"],
    "summary --group": ["summary", "--group", "{report}"],
    "summary --format json": ["summary", "--format", "json", "{report}"],
    "summary --format csv": ["summary", "--format", "csv", "{report}"],
    "plot --svg": ["plot", "{report}", "--svg", "{out}/roofline.svg"],
    "advise": ["advise", "{report}"],
    "advise --figure": ["advise", "{report}", "--figure", "{out}/budget.svg"],
    "diff": ["diff", "{report}", "{report}"],
}


# --- digest and compare --------------------------------------------------------------


def committed_reports(tree: Path) -> list[str]:
    """Every committed ``.csv``/``.ncu-rep`` file (compressed or not) under ``FOLDERS``."""
    listed = subprocess.run(
        ["git", "ls-files", *FOLDERS], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    names = [name for name in listed if name.endswith(tuple(s + c for s in SUFFIXES for c in COMPRESSED))]
    return sorted(name for name in names if (tree / name).is_file())


def _sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:16]


def run_in_process(args: list[str], cwd: Path) -> str:
    """``rooftui ARGS`` in this process: stdout, exit code and stderr, as one text."""
    from click.testing import CliRunner

    from rooftui.cli import main

    previous = Path.cwd()
    with CliRunner().isolation(env={"NO_COLOR": "1", "COLUMNS": "120"}) as (out, err, _):
        os.chdir(cwd)
        try:
            main(args)
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.chdir(previous)
        return f"{out.getvalue().decode()}\nexit {code}\n{err.getvalue().decode()}"


def _tables(reports: list[str], summary_options: list[str], cwd: Path) -> tuple[str, str]:
    """The explorer's two tables of the run as CSV (floats as Python's repr writes them:
    exact) with their dtypes, and its notes, missing metrics and ceilings; the error's one
    line where it cannot be loaded (or the exception where loading it crashes)."""
    from rooftui.analysis import load_run
    from rooftui.analysis.load_options import LoadOptions
    from rooftui.errors import RooftuiError
    from rooftui.views.tui.view_state import LoadedRun

    options = dict(zip(summary_options[::2], summary_options[1::2]))
    load_options = LoadOptions(
        ceilings=options.get("--ceilings"),
        fp16_rule=options.get("--fp16-rule", "packed"),
        gpu=options.get("--gpu"),
        infer_phases="--no-infer-phases" not in summary_options,
    )
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        run = load_run(reports, load_options)
        loaded = LoadedRun.from_run(run)
    except RooftuiError as err:
        return f"error: {err}", ""
    except Exception as err:  # noqa: BLE001 -- a crash is an output too: both trees must give it
        return f"crash: {type(err).__name__}: {err}", ""
    finally:
        os.chdir(previous)
    parts = []
    for frame in (loaded.invocations, loaded.grouped):
        parts.append(repr(list(zip(frame.columns, map(str, frame.dtypes)))))
        parts.append(frame.to_csv())
    ceilings = {device: repr(ceilings) for device, ceilings in run.ceilings_by_device.items()}
    return "\n".join(parts), repr(([str(note) for note in run.notes], run.missing_metrics, ceilings))


def digest_here(out: Path) -> None:
    """Write the digest lines of the ``rooftui`` this process imports (see the docstring)."""
    tree = Path.cwd()
    inputs = [([name], [], tree) for name in committed_reports(tree)]
    lines = []
    with tempfile.TemporaryDirectory() as scratch:
        from tests.corpus.fixtures import write_all

        written = write_all(Path(scratch) / "corpus")
        inputs += [([str(path.relative_to(scratch))], [], Path(scratch)) for path in sorted(written.values())]
        inputs += [(reports, options, tree) for reports, options in OPTION_SETS]
        for reports, options, cwd in inputs:
            json_out = run_in_process(["summary", "--format", "json", *options, *reports], cwd)
            csv_out = run_in_process(["summary", "--format", "csv", *options, *reports], cwd)
            text_out = run_in_process(["summary", *options, *reports], cwd)
            grouped_out = run_in_process(["summary", "--group", "--top", "60", *options, *reports], cwd)
            tables, run = _tables(reports, options, cwd)
            name = " ".join([*reports, *options])
            lines.append(
                f"{name}  json {_sha(json_out)}  csv {_sha(csv_out)}  tables {_sha(tables)}"
                f"  run {_sha(run)}  text {_sha(text_out)}  grouped {_sha(grouped_out)}"
            )
            print(lines[-1], flush=True)
    out.write_text("\n".join(lines) + "\n")


def digest(tree: Path, out: Path) -> int:
    """``digest_here`` in a child that imports ``tree``'s rooftui, its working directory ``tree``."""
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "ROOFTUI_NO_CACHE": "1",
            "XDG_CACHE_HOME": home,
            "XDG_DATA_HOME": home,
            "XDG_CONFIG_HOME": home,
            "PYTHONDONTWRITEBYTECODE": "1",  # nothing written into the tree measured
        }
        code = f"import sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import load_path; "
        code += f"load_path.digest_here(__import__('pathlib').Path({str(out.resolve())!r}))"
        return subprocess.run([sys.executable, "-c", code], cwd=tree, env=env).returncode


def compare(first: Path, second: Path) -> int:
    a, b = first.read_text().splitlines(), second.read_text().splitlines()
    differ = [f"- {x}\n+ {y}" for x, y in zip(a, b) if x != y]
    if len(a) != len(b):
        differ.append(f"{len(a)} lines against {len(b)}")
    print("\n".join(differ) if differ else f"all {len(a)} the same")
    return 1 if differ else 0


# --- speed ---------------------------------------------------------------------------

# Run in each tree: every step of every input once (after a warm-up), CPU seconds as JSON.
CHILD = r"""
import json, os, resource, sys, tempfile
tree, out, calls = sys.argv[1], sys.argv[2], json.loads(sys.argv[4])
inputs = json.loads(sys.argv[3])
sys.path.insert(0, tree)
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp()
scratch = tempfile.mkdtemp()
from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.views.summary import dumps_json, to_json
from rooftui.views.tui.view_state import LoadedRun
sys.path.insert(0, os.environ["BENCHMARKS"])
from load_path import run_in_process

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
    dumps_json(run, run.kernels)
    load_run([path])  # fills the cache
    _, cold = timed(lambda: load_run([path], LoadOptions(no_cache=True)))
    run, cached = timed(lambda: load_run([path]))
    _, prepared = timed(lambda: LoadedRun.from_run(run))
    _, document = timed(lambda: to_json(run, run.kernels))
    _, text = timed(lambda: dumps_json(run, run.kernels))
    times[name] = dict(cold=cold, cached=cached, from_run=prepared, to_json=document, json_text=text)
    for call, args in calls.items():
        args = [arg.format(report=path, out=scratch) for arg in args]
        run_in_process(args, __import__("pathlib").Path(tree))  # warm-up
        times[name][call] = timed(lambda: run_in_process(args, __import__("pathlib").Path(tree)))[1]
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


def measure(tree: Path, inputs: dict[str, str], calls: dict, out: Path) -> dict[str, dict[str, float]]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    env["BENCHMARKS"] = str(ROOT / "benchmarks")
    env.pop("ROOFTUI_NO_CACHE", None)
    command = [sys.executable, "-c", CHILD, str(tree), str(out), json.dumps(inputs), json.dumps(calls)]
    subprocess.run(command, cwd=tree, env=env, check=True)
    times: dict[str, dict[str, float]] = json.loads(out.read_text())
    return times


def speed(base: Path, repeats: int, launches: int, committed: bool, calls: bool, scratch: Path) -> None:
    trees = {"base": base, "this": ROOT}
    large = large_run(scratch / f"large{launches}.raw-base.csv", launches)
    inputs = {"sample (179)": str(ROOT / SAMPLE), f"large ({launches:,})": str(large)}
    if committed:
        inputs |= {report: str(ROOT / report) for report in REPORTS}
    runs: dict[str, list[dict[str, dict[str, float]]]] = {"base": [], "this": []}
    for repeat in range(repeats):
        for name in ("base", "this") if repeat % 2 == 0 else ("this", "base"):
            out = scratch / f"{name}{repeat}.json"
            runs[name].append(measure(trees[name], inputs, CALLS if calls else {}, out))
    print(f"CPU ms, median of {repeats} (children in turns); load average now {os.getloadavg()[0]:.1f}")
    print(f"| input | step | base {trees['base'].name} | this | this/base |")
    print("|---|---|---|---|---|")
    for input_name in inputs:
        for step in (*STEPS, *(CALLS if calls else ())):
            was, now = (
                statistics.median(t[input_name][step] for t in runs[side]) for side in ("base", "this")
            )
            print(f"| {input_name} | {step} | {was * 1e3:.0f} | {now * 1e3:.0f} | {now / was:.2f} |")


# --- the command ---------------------------------------------------------------------


def unpack(commit: str, into: Path) -> Path:
    """The tree of ``commit`` (``git archive``) in a new folder under ``into``."""
    tree = into / commit
    tree.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryFile() as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(tree, filter="data")
    return tree


def tree_of(base: str, scratch: Path) -> Path:
    """A checkout folder as it is, else a commit unpacked under ``scratch``."""
    folder = Path(base)
    return folder.resolve() if folder.is_dir() else unpack(base, scratch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("digest", help="digest what the load path gives")
    make.add_argument("--tree", default=str(ROOT), help="a checkout folder or a commit (default: this one)")
    make.add_argument("--out", type=Path, default=Path("load_outputs.txt"))
    both = commands.add_parser("compare", help="two digests, or the base's against this checkout's")
    both.add_argument("digests", type=Path, nargs="*", help="two digest files")
    both.add_argument("--base", help="a checkout folder or a commit, digested beside this checkout")
    timing = commands.add_parser("speed", help="CPU per step, this checkout against the base")
    timing.add_argument("--base", required=True, help="a checkout folder or a commit")
    timing.add_argument("--repeats", type=int, default=5)
    timing.add_argument("--launches", type=int, default=10_000)
    timing.add_argument("--committed", action="store_true", help="also every committed CSV of REPORTS")
    timing.add_argument("--calls", action="store_true", help="also in-process commands (CALLS)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        if options.command == "digest":
            return digest(tree_of(options.tree, scratch), options.out)
        if options.command == "compare":
            if options.base is None and len(options.digests) == 2:
                return compare(*options.digests)
            if options.base is None or options.digests:
                parser.error("compare takes two digest files, or --base COMMIT|DIR")
            outs = [scratch / "base.txt", scratch / "this.txt"]
            for tree, out in zip((tree_of(options.base, scratch), ROOT), outs):
                if digest(tree, out):
                    return 1
            return compare(*outs)
        speed(
            tree_of(options.base, scratch),
            options.repeats,
            options.launches,
            options.committed,
            options.calls,
            scratch,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
