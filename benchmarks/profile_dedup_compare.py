"""Per phase, every FLOP total (per pipeline) and byte total (per level) of rooftui
profile's deduplicated default against the --exhaustive profile of the same step.

    python3 benchmarks/profile_dedup_compare.py DEFAULT EXHAUSTIVE [--repeat EXHAUSTIVE2]

DEFAULT is the default's REPORT.raw.csv (every launch); EXHAUSTIVE an --exhaustive report
(.ncu-rep, or its `ncu --import --csv --page raw --print-units base` export). Both go
through `rooftui summary --format csv`; phases are the ones rooftui assigns.

FP16 CUDA-core FLOPs are compared like for like: the default takes HFMA2 register moves
out (SourceCounters) and --exhaustive has no SourceCounters, so "flops_fp16_as_counted"
puts the default's moves back at the hfma weight of the FP16 rule the summary used
(rooftui.model.metrics, the weight rooftui.model.kernel_table took them out with).

--repeat: a second --exhaustive run of the same step. Bytes at L2 and HBM depend on the
cache state a replay starts from, so two exhaustive runs differ too; "repeat" is
EXHAUSTIVE / EXHAUSTIVE2 for each total, the run-to-run variation a deviation of the
default is set beside (nothing is widened by it: "within_1pct" is the 1% test alone).
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys

import pandas as pd

from rooftui.model.metrics import DEFAULT_FP16_RULE, cuda_core_terms

FLOPS = [
    "flops_fp64",
    "flops_fp32",
    "flops_fp16",
    "flops_tensor_fp64",
    "flops_tensor_tf32",
    "flops_tensor_fp16",
    "flops_tensor_bf16",
    "flops_tensor_fp8",
    "ops_tensor_int8",
]
BYTES = ["bytes_l1", "bytes_l2", "bytes_hbm"]
FP16_AS_COUNTED = "flops_fp16_as_counted"
# What must agree within 1%: every FLOP total (FP16 as ncu counted it) and byte total. The
# default's own FP16 (moves out) and the times are shown, not tested: each launch keeps its
# own time, and the moves are what the default corrects.
TESTED = [c for c in FLOPS if c != "flops_fp16"] + [FP16_AS_COUNTED, *BYTES]
SHOWN = ["launches", "time_s", *FLOPS, FP16_AS_COUNTED, *BYTES]
ALL = "all"


def hfma_weight(fp16_rule: str = DEFAULT_FP16_RULE) -> float:
    """FLOPs the FP16 rule gives one hfma, the weight each register move was taken out with."""
    metric, weight = cuda_core_terms(fp16_rule)["fp16"][-1]
    assert metric.endswith("hfma_pred_on.sum"), metric  # the rule's last term is the hfma counter
    return weight


def summary_table(path: str) -> pd.DataFrame:
    """One row per launch: ``rooftui summary --format csv PATH``."""
    done = subprocess.run(
        [sys.executable, "-m", "rooftui", "summary", "--format", "csv", path],
        capture_output=True,
        text=True,
        check=True,
    )
    return pd.read_csv(io.StringIO(done.stdout))


def with_fp16_as_counted(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with FP16 FLOPs as ncu's counters gave them: register moves put back
    (none where the table has no instruction-level data)."""
    moves = table["register_moves"] if "register_moves" in table else pd.Series(0.0, index=table.index)
    return table.assign(**{FP16_AS_COUNTED: table["flops_fp16"] + hfma_weight() * moves.fillna(0.0)})


def phase_totals(table: pd.DataFrame) -> pd.DataFrame:
    """Per phase (and ``all``): launches and the sum of each quantity, NaN where every
    launch is blank (not collected)."""
    table = with_fp16_as_counted(table)
    phases = {phase: part for phase, part in table.groupby(table["phase"].fillna(""), sort=True)}
    phases[ALL] = table
    rows = {}
    for phase, part in phases.items():
        row = {column: part[column].sum(min_count=1) for column in SHOWN if column != "launches"}
        rows[phase or "(none)"] = {"launches": len(part), **row}
    return pd.DataFrame.from_dict(rows, orient="index")[SHOWN]


def compare(
    default: pd.DataFrame, exhaustive: pd.DataFrame, repeat: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per (phase, quantity) either side has: both totals, default / exhaustive,
    exhaustive / repeat when a repeat is given, and whether a tested total is within 1%."""
    ours, theirs = phase_totals(default), phase_totals(exhaustive)
    again = phase_totals(repeat) if repeat is not None else None
    rows = []
    for phase in [*sorted((set(ours.index) | set(theirs.index)) - {ALL}), ALL]:
        for column in SHOWN:
            a = ours.at[phase, column] if phase in ours.index else float("nan")
            b = theirs.at[phase, column] if phase in theirs.index else float("nan")
            if (pd.isna(a) or a == 0) and (pd.isna(b) or b == 0):
                continue
            ratio = a / b if b and not pd.isna(b) else float("nan")
            row = {"phase": phase, "quantity": column, "default": a, "exhaustive": b, "ratio": ratio}
            if again is not None:
                c = again.at[phase, column] if phase in again.index else float("nan")
                row["repeat"] = b / c if c and not pd.isna(c) else float("nan")
            row["within_1pct"] = bool(abs(ratio - 1) <= 0.01) if column in TESTED else None
            rows.append(row)
    return pd.DataFrame(rows)


def worst(rows: pd.DataFrame, columns: list[str]) -> tuple[float, str]:
    """The largest |ratio - 1| among ``columns`` and where it is."""
    tested = rows[rows["quantity"].isin(columns)]
    if tested.empty:
        return float("nan"), "-"
    deviation = (tested["ratio"] - 1).abs()
    at = deviation.idxmax()
    return float(deviation[at]), f"{tested.at[at, 'phase']} {tested.at[at, 'quantity']}"


def ratio_table(rows: pd.DataFrame) -> str:
    """The ratios as a Markdown table, one row per phase, one column per quantity."""
    kept = rows[rows["quantity"].isin([*TESTED, "time_s"])]
    columns = [c for c in ["time_s", *TESTED] if c in set(kept["quantity"])]
    pivot = kept.pivot(index="phase", columns="quantity", values="ratio")
    lines = ["| phase | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for phase in [*sorted(set(pivot.index) - {ALL}), ALL]:
        cells = [f"{pivot.at[phase, c]:.4f}" if not pd.isna(pivot.at[phase, c]) else "–" for c in columns]
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("default")
    parser.add_argument("exhaustive")
    parser.add_argument("--repeat", help="a second --exhaustive report of the same step")
    args = parser.parse_args(argv)
    default, exhaustive = summary_table(args.default), summary_table(args.exhaustive)
    repeat = summary_table(args.repeat) if args.repeat else None
    rows = compare(default, exhaustive, repeat)
    print(f"launches: default {len(default)}, exhaustive {len(exhaustive)}", end="")
    print(f", repeat {len(repeat)}" if repeat is not None else "")
    print(f"FP16 as counted: the default's register moves put back at {hfma_weight():g} FLOPs each")
    with pd.option_context("display.width", 200, "display.max_rows", None):
        print(rows.to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    print(ratio_table(rows))
    for label, columns in (("FLOP", [c for c in TESTED if c not in BYTES]), ("byte", BYTES)):
        deviation, where = worst(rows, columns)
        print(f"largest deviation of a {label} total: {deviation:.3%} ({where})")
    if repeat is not None:
        noise = (rows[rows["quantity"].isin(BYTES)]["repeat"] - 1).abs()
        print(f"largest run-to-run variation of a byte total (exhaustive / repeat): {noise.max():.3%}")
    blank = default[FLOPS + BYTES].isna().all(axis=1).sum()
    print(f"launches with no counters in the default (not collected): {blank}")
    failed = rows[rows["within_1pct"] == False]  # noqa: E712 (None: not tested)
    print(
        "every FLOP and byte total within 1%" if failed.empty else f"{len(failed)} totals off by more than 1%"
    )
    return 0 if failed.empty else 1


if __name__ == "__main__":
    sys.exit(main())
