"""How long rooftui takes on one ``.ncu-rep``, next to a bare ``ncu_report`` loop reading
the same metrics, in one run on the same file.

    python benchmarks/ncu_rep_load.py [REPORT] [--repeats N]

REPORT defaults to the DeepCAM AMP sample (sample_data/deepcam/deepcam_amp.ncu-rep.xz,
179 launches); a compressed report is decompressed once into a temporary folder and
every command reads that copy. Each command runs in a fresh process, the commands in
turn, N rounds, so a busy machine slows them alike; ratios are taken within a round:

  bare ncu_report     python: import ncu_report, load the report, and for every launch
                      read its name, NVTX ranges and every metric rooftui reads, by name
                      (the fastest plain loop: no checks, no conversion, no output)
  rooftui summary     the command, cold (ROOFTUI_NO_CACHE=1) and from the report cache
  load_run            rooftui.analysis.load_run alone in a process that has imported
                      rooftui already, cold and from the cache, with its peak memory
                      (the parent's and the reader child's, each its own peak)

The report cache lives in a temporary XDG_CACHE_HOME, never the user's.
Targets (issue 14): cold <= 1.5x the bare loop; from the cache <= 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import process_env, spread, timed  # noqa: E402
from rooftui.ingest._ncu_rep_worker import _IDENTITY_METRICS  # noqa: E402
from rooftui.ingest.files import compression, open_binary  # noqa: E402
from rooftui.model.metrics import metrics_read  # noqa: E402

SAMPLE = ROOT / "sample_data" / "deepcam" / "deepcam_amp.ncu-rep.xz"

BARE = """
import resource, sys, time
import ncu_report

start = time.perf_counter()
names = sys.argv[2].split(",")
context = ncu_report.load_report(sys.argv[1])
demangled = ncu_report.IAction.NameBase_DEMANGLED
rows = []
for r in range(context.num_ranges()):
    result_range = context.range_by_idx(r)
    for a in range(result_range.num_actions()):
        action = result_range.action_by_idx(a)
        get = action.metric_by_name
        values = [action.name(demangled)]
        state = action.nvtx_state()
        if state is not None:
            for domain in state.domains():
                values.append(state.domain_by_id(domain).push_pop_ranges())
        for name in names:
            metric = get(name)
            if metric is not None:
                values.append(metric.as_string() if name == "device__attribute_display_name"
                              else metric.as_double())
        rows.append(values)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

LOAD_RUN = """
import resource, sys, time
from rooftui.analysis import load_run
import pandas, rooftui.analysis.ceilings, rooftui.analysis.phases, rooftui.analysis.roofline
import rooftui.ingest.ncu_rep, rooftui.model.kernel_table  # imports are not the load
start = time.perf_counter()
run = load_run([sys.argv[1]])
took = time.perf_counter() - start
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(took, own, child, len(run.kernels))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("report", nargs="?", type=Path, default=SAMPLE)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rooftui-bench-") as tmp:
        report = args.report
        if compression(report):
            report = Path(tmp) / report.stem
            with open_binary(args.report) as source, open(report, "wb") as out:
                shutil.copyfileobj(source, out, 1 << 20)
        env = process_env(Path(tmp))
        cold = {**env, "ROOFTUI_NO_CACHE": "1"}
        names = ",".join(dict.fromkeys([*_IDENTITY_METRICS, *metrics_read()]))
        python = sys.executable
        summary = [python, "-m", "rooftui", "summary", str(report), "--format", "json"]
        commands = {
            "bare ncu_report loop": ([python, "-c", BARE, str(report), names], env),
            "rooftui summary, cold": (summary, cold),
            "rooftui summary, cached": (summary, env),
            "load_run, cold": ([python, "-c", LOAD_RUN, str(report)], cold),
            "load_run, cached": ([python, "-c", LOAD_RUN, str(report)], env),
        }
        timed(summary, env)  # fills the report cache and the bytecode cache
        times: dict[str, list[float]] = {name: [] for name in commands}
        load_times: dict[str, list[float]] = {"load_run, cold": [], "load_run, cached": []}
        bare_load: list[float] = []
        bare_memory: list[int] = []
        memory: list[tuple[int, int]] = []
        launches = 0
        for _ in range(args.repeats):
            for name, (command, command_env) in commands.items():
                took, out = timed(command, command_env)
                times[name].append(took)
                if name == "bare ncu_report loop":
                    seconds, peak = out.split()
                    bare_load.append(float(seconds))
                    bare_memory.append(int(peak))
                if name in load_times:
                    seconds, own, child, launches = out.split()
                    load_times[name].append(float(seconds))
                    if name == "load_run, cold":
                        memory.append((int(own), int(child)))
        size = report.stat().st_size
        bare = times["bare ncu_report loop"]
        print(f"{args.report.name}: {launches} launches, {size / 1e6:.0f} MB uncompressed, "
              f"{args.repeats} rounds, {os.cpu_count()} cores")
        print(f"  {'bare ncu_report loop':28s} {spread(bare):>14s}   1.00x")
        for name in ("rooftui summary, cold", "rooftui summary, cached"):
            ratios = [t / b for t, b in zip(times[name], bare)]
            print(f"  {name:28s} {spread(times[name]):>14s}   {spread(ratios, 'x')} of the bare loop")
        print(f"  {'bare loop (in process)':28s} {spread(bare_load):>14s}   1.00x   "
              "(from load_report on: no interpreter start, no import)")
        for name, values in load_times.items():
            ratios = [t / b for t, b in zip(values, bare_load)]
            print(f"  {name + ' (in process)':28s} {spread(values):>14s}   {spread(ratios, 'x')} "
                  f"of the bare loop in process (its process: {spread(times[name])})")
        own = [o for o, _ in memory]
        child = [c for _, c in memory]
        both = [o + c for o, c in memory]
        print(f"  peak memory, cold load_run: parent {spread([o / 1e6 for o in own], 'MB', 0)}, "
              f"reader child {spread([c / 1e6 for c in child], 'MB', 0)}; together at most "
              f"{spread([b / 1e6 for b in both], 'MB', 0)} = {spread([b / size for b in both], 'x')} "
              f"the file size; the bare loop's {spread([b / 1e6 for b in bare_memory], 'MB', 0)}")


if __name__ == "__main__":
    main()
