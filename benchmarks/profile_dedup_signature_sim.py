"""What a signature that sees DRAM traffic would have done to a deduplicated profile, worked
out offline from two per-launch tables of the same step: the default's (which launches it
profiled in full, their instruction counts) and an --exhaustive one (every launch's own
counters, standing in for both the probe's DRAM bytes and the full run's counters).

    python3 benchmarks/profile_dedup_signature_sim.py DEFAULT.raw.csv[.xz] EXHAUSTIVE.raw.csv[.xz]

Signatures are formed by rooftui.profile.dedup.signatures, the code the profile runs, from
the default's instruction counts with the exhaustive profile's dram__bytes.sum in the probe's
place; without those bytes (NaN) it forms the signatures the default had. Each launch then
gets the exhaustive counters of its signature's first launch that the default profiled in
full (a signature with none: its first launch, which a run with the rule would have to
profile: counted as "new"). Both rules go through the same arithmetic, so the difference
between their per-phase totals (benchmarks/profile_dedup_compare.py) is the rule's alone.
Not simulated: the probe's own DRAM bytes are another run's (1.2 % apart at most above 1 MB
between two runs, 2026-12-02-profile-dedup-depth.md), and the full run profiles whole
invocation numbers of every function (choose_invocations; shown as an estimate with each
kernel name taken for its function).
"""

from __future__ import annotations

import importlib.util
import lzma
import math
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rooftui.analysis import load_run
from rooftui.ingest.deduplicated import COUNTERS_FROM_COLUMN
from rooftui.profile import dedup

HERE = Path(__file__).parent


def _compare_module():
    spec = importlib.util.spec_from_file_location("profile_dedup_compare", HERE / "profile_dedup_compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read(path: str | Path) -> dedup.Export:
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return dedup.read_export(handle.read())


@dataclass
class Simulated:
    table: dedup.Export  # every launch, counters from its twin in the exhaustive table
    signatures: int
    new: list[int]  # launches a run with this rule would have to profile that the default did not
    profiled_estimate: int  # launches the one full run would profile (choose_invocations)


def simulate(default: dedup.Export, exhaustive: dedup.Export, traffic: bool) -> Simulated:
    """The default re-done with (``traffic``) or without the DRAM-bytes rule."""
    if len(default.rows) != len(exhaustive.rows):
        raise SystemExit(f"{len(default.rows)} launches in the default, {len(exhaustive.rows)} exhaustive")
    name = default.column("Kernel Name")
    for n, (a, b) in enumerate(zip(default.rows, exhaustive.rows)):
        if a[name] != b[exhaustive.column("Kernel Name")]:
            raise SystemExit(f"launch {n}: {a[name]!r} in the default, another kernel exhaustive")
    found = dedup.launches(default)
    for launch, row in zip(found, exhaustive.rows):
        launch.traffic = exhaustive.number(row, dedup.TRAFFIC) if traffic else math.nan
    groups = dedup.signatures(found)
    profiled = {n for n, row in enumerate(default.rows) if row[default.column(COUNTERS_FROM_COLUMN)] == "own"}
    new = [g.members[0] for g in groups if not profiled & set(g.members)]
    plan = dedup.Plan(found, groups, dedup.FullRun(dedup.choose_invocations(found, groups)))
    sources: dedup.Sources = {i: (exhaustive, exhaustive.rows[i]) for i in profiled | set(new)}
    merged = dedup.merge(plan, exhaustive, exhaustive, sources)
    return Simulated(merged.export, len(groups), new, len(plan.run.predicted(found)))


def kernels(export: dedup.Export) -> pd.DataFrame:
    """The table as rooftui loads it (phases, bytes per level)."""
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "simulated.raw.csv"
        path.write_text(dedup.write_export(export), encoding="utf-8")
        return load_run([path]).kernels.reset_index(drop=True)


def main(default_path: str, exhaustive_path: str) -> int:
    compare = _compare_module()
    default, exhaustive = read(default_path), read(exhaustive_path)
    truth = load_run([Path(exhaustive_path)]).kernels.reset_index(drop=True)
    failed = 0
    for label, traffic in (("instruction counts (today's rule)", False), ("+ DRAM bytes", True)):
        run = simulate(default, exhaustive, traffic)
        rows = compare.compare(kernels(run.table), truth)
        deviation, where = compare.worst(rows, compare.BYTES)
        flops, _ = compare.worst(rows, [c for c in compare.TESTED if c not in compare.BYTES])
        print(f"== signatures from {label}")
        print(
            f"{run.signatures} signatures; launches needing a full profile the default did not give: "
            f"{len(run.new)} {run.new}; one full run would profile ~{run.profiled_estimate} of "
            f"{len(default.rows)} launches"
        )
        print(compare.ratio_table(rows))
        print(f"largest byte deviation {deviation:.3%} ({where}); largest FLOP deviation {flops:.4%}")
        failed += traffic and deviation > 0.01
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
