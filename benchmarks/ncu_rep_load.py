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
  rooftui summary     the command (its default table), cold (ROOFTUI_NO_CACHE=1) and
                      from the report cache
  load_run            rooftui.analysis.load_run alone in a process that has imported
                      rooftui already, cold and from the cache
  peak memory         of the cold command's and the bare loop's whole process trees
                      (benchmarks._common.tree_memory), in runs apart from the timed ones

It prints the range over the rounds of each, then every round's wall and CPU time with
its ratios, the load average before and after (the cold command needs both cores of a
2-core machine, the bare loop one: another job on a core costs rooftui more), and the
peak memory. The report cache lives in a temporary XDG_CACHE_HOME, never the user's.
Targets (issue 14): cold <= 1.5x the bare loop; from the cache <= 0.3 s; memory <= 2x
the file.
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

from benchmarks._common import process_env, spread, timed, timed_cpu, tree_memory  # noqa: E402
from rooftui.ingest._ncu_rep_worker import _IDENTITY_METRICS  # noqa: E402
from rooftui.ingest.files import compression, open_binary  # noqa: E402
from rooftui.ingest.parallel import usable_cores  # noqa: E402
from rooftui.model.metrics import metrics_read  # noqa: E402

SAMPLE = ROOT / "sample_data" / "deepcam" / "deepcam_amp.ncu-rep.xz"

BARE = """
import sys, time
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
print(time.perf_counter() - start)
"""

LOAD_RUN = """
import sys, time
from rooftui.analysis import load_run
import pandas, rooftui.analysis.ceilings, rooftui.analysis.phases, rooftui.analysis.roofline
import rooftui.ingest.ncu_rep, rooftui.model.kernel_table  # imports are not the load
start = time.perf_counter()
run = load_run([sys.argv[1]])
print(time.perf_counter() - start, len(run.kernels))
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
        bare_loop = [python, "-c", BARE, str(report), names]
        summary = [python, "-m", "rooftui", "summary", str(report)]
        commands = {
            "bare ncu_report loop": (bare_loop, env),
            "rooftui summary, cold": (summary, cold),
            "rooftui summary, cached": (summary, env),
            "load_run, cold": ([python, "-c", LOAD_RUN, str(report)], cold),
            "load_run, cached": ([python, "-c", LOAD_RUN, str(report)], env),
        }
        load_before = os.getloadavg()[0]
        timed(summary, env)  # fills the report cache and the bytecode cache
        wall: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        load_times: dict[str, list[float]] = {"load_run, cold": [], "load_run, cached": []}
        bare_load: list[float] = []
        memory: dict[str, list[tuple[int, int]]] = {"bare ncu_report loop": [], "rooftui summary, cold": []}
        launches = 0
        for _ in range(args.repeats):
            for name, (command, command_env) in commands.items():
                took, used, out = timed_cpu(command, command_env)
                wall[name].append(took)
                cpu[name].append(used)
                if name == "bare ncu_report loop":
                    bare_load.append(float(out.split()[0]))
                if name in load_times:
                    seconds, launches = out.split()
                    load_times[name].append(float(seconds))
            for name in memory:  # apart from the timings: sampling takes CPU
                memory[name].append(tree_memory(*commands[name]))
        size = report.stat().st_size
        print(
            f"{args.report.name}: {launches} launches, {size / 1e6:.0f} MB uncompressed, "
            f"{args.repeats} rounds, {usable_cores()} usable cores, load average "
            f"{load_before:.2f} before and {os.getloadavg()[0]:.2f} after; wall time (CPU time "
            "of the process tree), ratios within a round"
        )
        bare, bare_cpu = wall["bare ncu_report loop"], cpu["bare ncu_report loop"]
        print(f"  {'bare ncu_report loop':28s} {spread(bare):>14s} ({spread(bare_cpu)})   1.00x")
        for name in ("rooftui summary, cold", "rooftui summary, cached"):
            ratios = [t / b for t, b in zip(wall[name], bare)]
            cpu_ratios = [t / b for t, b in zip(cpu[name], bare_cpu)]
            print(
                f"  {name:28s} {spread(wall[name]):>14s} ({spread(cpu[name])})   "
                f"{spread(ratios, 'x')} ({spread(cpu_ratios, 'x')}) of the bare loop"
            )
        print(
            f"  {'bare loop (in process)':28s} {spread(bare_load):>14s}   1.00x   "
            "(from load_report on: no interpreter start, no import)"
        )
        for name, values in load_times.items():
            ratios = [t / b for t, b in zip(values, bare_load)]
            print(
                f"  {name + ' (in process)':28s} {spread(values):>14s}   {spread(ratios, 'x')} "
                f"of the bare loop in process (its process: {spread(wall[name])})"
            )
        for round_number in range(args.repeats):
            print(
                f"  round {round_number + 1}: "
                + ", ".join(
                    f"{name} {wall[name][round_number]:.2f} s ({cpu[name][round_number]:.2f} s CPU"
                    + (
                        ""
                        if name == "bare ncu_report loop"
                        else f"; {wall[name][round_number] / bare[round_number]:.2f}x, CPU "
                        f"{cpu[name][round_number] / bare_cpu[round_number]:.2f}x"
                    )
                    + ")"
                    for name in ("bare ncu_report loop", "rooftui summary, cold", "rooftui summary, cached")
                )
            )
        for name, peaks in memory.items():
            pss = [p for p, _ in peaks]
            rss = [r for _, r in peaks]
            print(
                f"  peak memory, {name}: {spread([p / 1e6 for p in pss], 'MB', 0)} "
                f"= {spread([p / size for p in pss], 'x')} the file (PSS summed over the process "
                f"tree; RSS summed: {spread([r / 1e6 for r in rss], 'MB', 0)})"
            )


if __name__ == "__main__":
    main()
