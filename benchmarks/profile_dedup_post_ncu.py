"""rooftui's own work after ncu in ``rooftui profile --dedup``, step by step, on the committed
H200 outputs of the 2-, 4- or 8-block transformer step, without a GPU or ncu.

    python3 benchmarks/profile_dedup_post_ncu.py [--blocks 2|4|8] [--repeats 3] [--dedup-from FILE]

Inputs: the probe's export is the real one for 4 blocks
(tests/profile/data/transformer4_probe_call1.csv: 175 launches, 12 columns; for 2 and 8
blocks, the merged table cut to those 12 columns); the full run's export is the merged
table the H200 wrote (benchmarks/results/2026-12-01-profile-dedup-onerun/results.tar.xz,
dN.raw.csv, 535 columns), cut to ncu's columns and to the launches the plan predicts the
full run profiles. What is timed is what profile_deduplicated does in Python between
ncu's exports and the summary (parse the exports, plan, place the full run's rows, merge,
self-check, write the table), then the summary's load of the merged table. ``--dedup-from
FILE`` times another version of rooftui/profile/dedup.py (``git show
REV:rooftui/profile/dedup.py > FILE``).
Not timed (they need ncu and the .ncu-rep files, which were not kept): the three
``ncu --import`` exports and the SourceCounters read of the full report.
"""

from __future__ import annotations

import argparse
import importlib.util
import lzma
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.core_load import best_of  # noqa: E402
from rooftui.model.metrics import REGISTER_MOVES, architecture_for, required_metrics  # noqa: E402
from rooftui.profile import dedup  # noqa: E402

RESULTS = ROOT / "benchmarks/results/2026-12-01-profile-dedup-onerun/results.tar.xz"
PROBE_4 = ROOT / "tests/profile/data/transformer4_probe_call1.csv"


def merged_table(blocks: int) -> str:
    with lzma.open(RESULTS) as packed, tarfile.open(fileobj=packed) as tar:
        member = tar.extractfile(f"d{blocks}.raw.csv")
        assert member is not None
        return member.read().decode("utf-8")


def probe_columns(table_text: str) -> str:
    """The merged table cut to the columns of the real 4-block probe's export (12), as the
    probe of another block count would have them."""
    table = dedup.read_export(table_text)
    wanted = dedup.read_export(PROBE_4.read_text(encoding="utf-8")).header
    at = [table.column(c) for c in wanted]
    rows = [[row[i] for i in at] for row in table.rows]
    return dedup.write_export(dedup.Export(wanted, [table.units[i] for i in at], rows))


def steps(module, probe_text: str, full_text: str) -> tuple[dict[str, float], str]:
    """Each step's least time of one run, seconds, and the merged table."""
    from rooftui.profile.deduplicated import moves_column

    metrics = tuple(required_metrics(architecture_for("9.0")))
    probe = module.read_export(probe_text)
    plan = module.plan(probe)
    table = module.read_export(full_text)
    predicted = plan.run.predicted(plan.launches)
    ncu_columns = [n for n, c in enumerate(table.header) if not c.startswith("rooftui__")]  # ncu's own
    full_text = module.write_export(
        module.Export(
            [table.header[n] for n in ncu_columns],
            [table.units[n] for n in ncu_columns],
            [[table.rows[i][n] for n in ncu_columns] for i in predicted],
        )
    )
    full = module.read_export(full_text)
    assigned = module.assign_rows(plan, plan.run, full)
    sources = {i: (full, full.rows[r]) for i, r in assigned.items()}
    extra = {REGISTER_MOVES: moves_column(plan, {})}
    merged = module.merge(plan, probe, full, sources, extra)
    timings = {
        "parse the probe's export": time_of(lambda: module.read_export(probe_text)),
        "plan (signatures, --kernel-id)": time_of(lambda: module.plan(probe)),
        "parse the full run's export": time_of(lambda: module.read_export(full_text)),
        "place the full run's rows": time_of(lambda: module.assign_rows(plan, plan.run, full)),
        "merge": time_of(lambda: module.merge(plan, probe, full, sources, extra)),
        "self-check": time_of(lambda: module.self_check(plan, sources, module.checked_counters(metrics))),
        "write the table": time_of(lambda: module.write_export(merged.export)),
    }
    return timings, module.write_export(merged.export)


REPEATS = 3


def time_of(work) -> float:
    return best_of(REPEATS, work)


def load_module(path: str | None):
    if path is None:
        return dedup
    spec = importlib.util.spec_from_file_location("dedup_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, choices=(2, 4, 8), default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dedup-from", default=None)
    args = parser.parse_args()
    global REPEATS
    REPEATS = args.repeats
    table = merged_table(args.blocks)
    probe_text = PROBE_4.read_text(encoding="utf-8") if args.blocks == 4 else probe_columns(table)
    timings, merged = steps(load_module(args.dedup_from), probe_text, table)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "step.raw.csv"
        path.write_text(merged, encoding="utf-8")
        from rooftui.analysis import load_run
        from rooftui.analysis.load_options import LoadOptions

        options = LoadOptions(no_cache=True)
        start = time.perf_counter()
        load_run([path], options)
        timings["summary's load of the merged table (first, in-process)"] = time.perf_counter() - start
    for what, seconds in timings.items():
        print(f"{seconds * 1000:9.1f} ms  {what}")
    print(f"{sum(timings.values()) * 1000:9.1f} ms  in all ({args.blocks} blocks)")


if __name__ == "__main__":
    main()
