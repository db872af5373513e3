"""How many launches the deduplicated default's one full run would profile under each ncu
launch numbering, from a default's per-launch table (REPORT.raw.csv, its signatures as the
run formed them): ncu numbers launches per function name by default, per demangled name
with --kernel-name-base demangled (benchmarks/results/2026-12-01-profile-dedup-onerun.md).
For each, rooftui's greedy choice of invocation numbers (dedup.choose_invocations) and the
exact fewest launches one invocation expression can cover every signature with.

    python3 benchmarks/profile_dedup_cover_sim.py REPORT.raw.csv[.xz] ...

ncu's function name (--kernel-name-base function: no namespace, template arguments or
parameters) is rebuilt from the demangled name; on the committed round 9 tables the rebuilt
names give exactly the invocation numbers the real full runs used.
"""

from __future__ import annotations

import lzma
import sys
from collections import Counter
from pathlib import Path

from rooftui.profile import dedup, raw_export


def function_name(demangled: str) -> str:
    """ncu's function name for a demangled kernel name: outside <...> and (...), the last word,
    after the last '::'."""
    depth, kept = 0, []
    for ch in demangled:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            kept.append(ch)
    return "".join(kept).strip().split(" ")[-1].split("::")[-1]


def cover(names: list[str], signature_of: list[str], numbering: str) -> tuple[int, tuple[int, ...], int]:
    """(launches the greedy choice profiles, its invocation numbers, the exact fewest)."""
    seen: Counter[str] = Counter()
    found = []
    for i, name in enumerate(names):
        function = function_name(name) if numbering == "function" else name
        seen[function] += 1
        found.append(dedup.Launch(i, name, function, (name,), (0.0,), seen[function]))
    groups: dict[str, dedup.Signature] = {}
    for launch, label in zip(found, signature_of):
        groups.setdefault(label, dedup.Signature(len(groups) + 1, (launch.name,), (0.0,))).members.append(
            launch.index
        )
    signatures = list(groups.values())
    greedy = dedup.choose_invocations(found, signatures)
    cost = Counter(launch.invocation for launch in found)
    at = [{found[i].invocation for i in g.members} for g in signatures]
    best = [sum(cost[n] for n in greedy)]
    order = sorted(range(len(signatures)), key=lambda g: len(at[g]))

    def search(chosen: frozenset[int], spent: int) -> None:  # branch and bound
        if spent >= best[0]:
            return
        for g in order:
            if not at[g] & chosen:
                for n in sorted(at[g], key=lambda n: cost[n]):
                    search(chosen | {n}, spent + cost[n])
                return
        best[0] = spent

    search(frozenset(), 0)
    return len(dedup.FullRun(greedy).predicted(found)), greedy, best[0]


def main(paths: list[str]) -> None:
    for path in paths:
        opened = lzma.open(path, "rt") if path.endswith(".xz") else open(path)
        with opened as handle:
            table = raw_export.read_export(handle.read())
        names = [row[table.column("Kernel Name")] for row in table.rows]
        labels = [row[table.column("rooftui__signature")] for row in table.rows]
        print(f"{Path(path).name}: {len(names)} launches, {len(set(labels))} signatures")
        for numbering in ("function", "demangled"):
            launches, greedy, exact = cover(names, labels, numbering)
            print(f"  per {numbering} name: greedy {launches} launches {greedy}; exact fewest {exact}")


if __name__ == "__main__":
    main(sys.argv[1:])
