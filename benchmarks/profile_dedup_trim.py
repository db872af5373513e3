"""Keep only the columns tests/profile/test_dedup.py reads from a probe export.

    python3 benchmarks/profile_dedup_trim.py probe4.csv > tests/profile/data/transformer4_probe_call1.csv

``probe4.csv``: call 1 of benchmarks/profile_dedup_explore.sh ($OUT/probe4.csv, ncu's raw
page in base units, 175 launches and ~300 columns, most of them device attributes).
"""

from __future__ import annotations

import csv
import sys

KEPT = (
    "ID",
    "Kernel Name",
    "Grid Size",
    "Block Size",
    "Stream",
    "gpu__time_duration.sum",
    "smsp__inst_executed.sum",
    "sm__inst_executed_pipe_tensor.sum",
    "launch__grid_size",
    "launch__block_size",
    "launch__shared_mem_per_block_dynamic",
)


def main() -> None:
    with open(sys.argv[1], newline="") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    keep = [i for i, column in enumerate(header) if column in KEPT or column.startswith("thread Domain")]
    writer = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for row in rows:
        writer.writerow([row[i] for i in keep])


if __name__ == "__main__":
    main()
