"""The counters of ``ncu --query-metrics`` output that may count the traffic between L1
and L2 (one discovery run on the GPU), as ``NAME.sum`` for ``ncu --metrics``:
L2 tag sectors, requests and bytes by source unit or node, operation and lookup result,
and what L1 received from and sent to the crossbar.

    python3 pick_metrics.py QUERY_METRICS.txt > candidates.txt
"""

from __future__ import annotations

import re
import sys

L2 = re.compile(
    r"^lts__t_(sectors|requests|bytes)"
    r"(_src(unit|node)_[a-z0-9]+)?"
    r"(_op_(read|write|atom|red))?"
    r"(_lookup_(hit|miss))?$"
)
L1_SIDE = re.compile(r"^l1tex__m_(xbar2l1tex_read|l1tex2xbar_write)_(sectors|bytes)$")


def candidates(text: str) -> list[str]:
    names = set()
    for line in text.splitlines():
        match = re.match(r"^([a-z0-9]+__[a-z0-9_]+)\s", line)
        if match and (L2.match(match.group(1)) or L1_SIDE.match(match.group(1))):
            names.add(match.group(1))
    # requests and bytes only in their plain and per-source forms: sectors carry the splits
    keep = [n for n in names if "sectors" in n or not re.search(r"_op_|_lookup_", n)]
    return [f"{n}.sum" for n in sorted(keep)]


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
        print(",".join(candidates(handle.read())))
