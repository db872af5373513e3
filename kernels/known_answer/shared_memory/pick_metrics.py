"""The counters of ``ncu --query-metrics`` output that may count shared-memory or TMA
traffic, as ``NAME.sum`` for ``ncu --metrics`` (one discovery run on the GPU).

    python3 pick_metrics.py QUERY_METRICS.txt > candidates.txt
"""

from __future__ import annotations

import re
import sys

TOPIC = re.compile(r"shared|tma|dsmem|gmma|ldsm|ldgsts|bulk", re.IGNORECASE)
KIND = re.compile(r"bytes|wavefronts|inst_executed|requests|sectors|bank_(reads|writes)")
UNITS = ("l1tex__", "smsp__", "sm__", "lts__")
LIMIT = 160


def candidates(text: str) -> list[str]:
    names = []
    for line in text.splitlines():
        match = re.match(r"^([a-z0-9]+__[a-z0-9_]+)\s+(\w+)", line)
        if not match or match.group(2).lower() in ("ratio", "throughput"):
            continue
        name = match.group(1)
        if name.startswith(UNITS) and TOPIC.search(name) and KIND.search(name):
            names.append(name)
    # bytes first: what a byte level can use; then the rest until ncu's list stays small
    names = sorted(set(names), key=lambda n: (0 if "bytes" in n else 1 if "wavefronts" in n else 2, n))
    return [f"{n}.sum" for n in names[:LIMIT]]


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
        print(",".join(candidates(handle.read())))
