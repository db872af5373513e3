"""Per phase, every FLOP total (per pipeline) and byte total (per level) of rooftui
profile's deduplicated default against the --exhaustive profile of the same step.

    python3 benchmarks/profile_dedup_compare.py DEFAULT.raw.csv EXHAUSTIVE.raw.csv

Both tables go through `rooftui summary --format csv`. FP16 CUDA-core FLOPs are
compared twice: as ncu counted them (the default's plus its HFMA2 register moves back at
the packed rule's 4 FLOPs each, since the exhaustive profile has no SourceCounters), and
as the default reports them, moves taken out.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pandas as pd

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
HFMA_FLOPS_PER_MOVE = 4.0  # the packed rule's hfma weight (rooftui.model.metrics.FP16_RULES)


def table(path: str) -> pd.DataFrame:
    done = subprocess.run(
        [sys.executable, "-m", "rooftui", "summary", "--format", "csv", path],
        capture_output=True,
        text=True,
        check=True,
    )
    return pd.read_csv(io.StringIO(done.stdout))


def main() -> None:
    default, exhaustive = table(sys.argv[1]), table(sys.argv[2])
    default["flops_fp16_as_counted"] = default["flops_fp16"] + HFMA_FLOPS_PER_MOVE * default[
        "register_moves"
    ].fillna(0.0)
    exhaustive["flops_fp16_as_counted"] = exhaustive["flops_fp16"]
    columns = ["time_s", *FLOPS, "flops_fp16_as_counted", *BYTES]
    print(f"launches: default {len(default)}, exhaustive {len(exhaustive)}; phases as rooftui assigns them")
    print(f"{'phase':10} {'quantity':24} {'default':>14} {'exhaustive':>14} {'ratio':>9}")
    worst = 0.0
    for phase in ["forward", "backward", "optimizer", "all"]:
        mine = default if phase == "all" else default[default["phase"] == phase]
        theirs = exhaustive if phase == "all" else exhaustive[exhaustive["phase"] == phase]
        for column in columns:
            a, b = mine[column].sum(min_count=1), theirs[column].sum(min_count=1)
            if pd.isna(a) and pd.isna(b) or (a == 0 and b == 0):
                continue
            ratio = a / b if b else float("inf")
            if column not in ("time_s", "flops_fp16"):
                worst = max(worst, abs(ratio - 1))
            print(f"{phase:10} {column:24} {a:14.6g} {b:14.6g} {ratio:9.4f}")
    print(f"largest deviation of a FLOP (as counted) or byte total: {worst:.2%}")
    blank = default[FLOPS + BYTES].isna().all(axis=1).sum()
    print(f"launches with no counters in the default (not collected): {blank}")


if __name__ == "__main__":
    main()
