"""Which launches of the public corpus get a binding roof, and why the others do not.

``python benchmarks/corpus_roofs.py /tmp/corpus`` loads every file of
tests/corpus/public_corpus.json (as tests/corpus/test_public_corpus.py does: ``--gpu
'Tesla V100-SXM2-16GB'`` for the paper's runs, which name no device: the paper ran them
on NERSC's Cori-GPU, whose V100s are SXM2 16 GB) and prints, per file and per set: launches, launches with a
time, with bytes at each level, the roofs the run has (and their source), launches with
a bound, and the reasons the others have none (``bound_reason``).
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = json.loads((ROOT / "tests/corpus/public_corpus.json").read_text())
PAPER_GPU = "Tesla V100-SXM2-16GB"  # NERSC Cori-GPU (docs.nersc.gov/cgpu/hardware)


def walk(corpus: Path) -> dict[str, Counter]:
    from rooftui.analysis.load_options import LoadOptions
    from rooftui.errors import RooftuiError
    from rooftui.model.columns import LEVELS

    by_set: dict[str, Counter] = {}
    for entry in MANIFEST:
        if entry["outcome"] == "refused":
            continue
        gpu = PAPER_GPU if entry["repo"] == "cyanguwa/DeepLearningProfiling" else None
        try:
            run = LoadOptions(gpu=gpu, no_cache=True, find_measured=False).load([corpus / entry["file"]])
        except RooftuiError as err:
            print(f"{entry['file']}: refused: {err}")
            continue
        k = run.kernels
        count = Counter(
            launches=len(k),
            time=int(k["time_s"].notna().sum()),
            bound=int((k["bound"].fillna("") != "").sum()),
        )
        for level in LEVELS:
            count[f"bytes_{level}"] = int(k[f"bytes_{level}"].notna().sum())
        if "bound_reason" in k:
            for reason, n in k.loc[k["bound"].fillna("") == "", "bound_reason"].value_counts().items():
                count[f"why: {_reason_key(reason)}"] += int(n)
        if "bound_basis" in k:
            for basis, n in k.loc[k["bound"].fillna("") != "", "bound_basis"].value_counts().items():
                count[f"basis: {basis}"] += int(n)
        roofs = "; ".join(
            sorted(
                f"{c.precision or c.level}={c.source}"
                for s in run.ceilings_by_device.values()
                for c in s.ceilings
            )
        )
        print(
            f"{entry['file']} [{entry.get('set')}, {entry.get('gpu')}]: "
            + ", ".join(f"{key} {value}" for key, value in count.items())
            + f" | roofs: {roofs or 'none'}"
        )
        by_set.setdefault(entry.get("set") or "?", Counter()).update(count)
    return by_set


def _reason_key(reason: str) -> str:
    """A reason without its numbers (the µs a cap could take), so like reasons count together."""
    return re.sub(r"\d[\d.,e+-]* µs", "N µs", reason)


def per_gpu_table(walk_output: str) -> str:
    """docs/corpus.md's table, per GPU model and ncu version, from this script's own output
    (its per-file lines): files loaded / refused, launch rows, with a time, with bytes at
    L1 / L2 / HBM, with a binding roof, and why the rest have none (reasons with counts)."""
    lines, roofs = {}, {}
    for line in walk_output.splitlines():
        found = re.match(r"^(\S.*?) \[.*\]: (.*?) \| roofs: (.*)$", line)
        if found:
            lines[found.group(1)] = found.group(2)
            roofs[found.group(1)] = dict(
                pair.split("=") for pair in found.group(3).split("; ") if "=" in pair
            )
    groups: dict[tuple[str, str], Counter] = {}
    sets: dict[tuple[str, str], set] = {}
    sources: dict[tuple[str, str], dict[str, set]] = {}
    for entry in MANIFEST:
        if not entry.get("gpu"):
            continue  # not an ncu export (text output, pandas tables): refused, no GPU
        key = (entry["gpu"].split(" (")[0], entry.get("ncu") or "?")
        count = groups.setdefault(key, Counter())
        sets.setdefault(key, set()).add(entry.get("set") or "?")
        if entry["outcome"] == "refused" or entry["file"] not in lines:
            count["refused"] += 1
            continue
        count["loaded"] += 1
        for roof, source in roofs[entry["file"]].items():
            kind = roof if roof in ("l1", "l2", "hbm") else "compute"
            sources.setdefault(key, {}).setdefault(kind, set()).add(source)
        for item in re.split(r", (?=launches |time |bound |bytes_\w+ |why: |basis: )", lines[entry["file"]]):
            name, _, value = item.rpartition(" ")
            if value.isdigit():
                count[name] += int(value)
    rows = [
        "| GPU | ncu | sets | files loaded / refused | launch rows | time | L1 / L2 / HBM bytes "
        "| roofs from (L1 / L2 / HBM / compute) | binding roof | why the others have none |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (gpu, ncu), count in sorted(groups.items()):
        why = "; ".join(
            f"{_short(name[5:])} {n}"
            for name, n in sorted(count.items(), key=lambda kv: -kv[1])
            if name.startswith("why: ")
        )
        rows.append(
            f"| {gpu} | {ncu} | {', '.join(sorted(sets[(gpu, ncu)]))} "
            f"| {count['loaded']} / {count['refused']} "
            f"| {count['launches']} | {count['time']} | {count['bytes_l1']} / {count['bytes_l2']} / "
            f"{count['bytes_hbm']} | {_sources(sources.get((gpu, ncu), {}))} "
            f"| {count['bound']} | {why or '-'} |"
        )
    return "\n".join(rows)


def _sources(found: dict[str, set]) -> str:
    """ "report / - / datasheet / report+datasheet": where each kind of roof came from."""
    return " / ".join("+".join(sorted(found.get(kind, ()))) or "-" for kind in ("l1", "l2", "hbm", "compute"))


def _short(reason: str) -> str:
    """A bound_reason in a few words for the table."""
    if reason.startswith("FLOP total partial ("):
        missing = reason[len("FLOP total partial (") :].split(" not collected")[0]
        why = reason.split("not capped: ")[-1]
        cap = (
            "cap exceeds the memory time"
            if "could take up to" in why
            else f"no cap for {why.split('cap ')[-1]}"
        )
        return f"partial ({missing} not collected; {cap})"
    return reason.split(":")[0]


def main() -> None:
    if sys.argv[1] == "--table":
        print(per_gpu_table(Path(sys.argv[2]).read_text()))
        return
    totals: Counter = Counter()
    for name, count in sorted(walk(Path(sys.argv[1])).items()):
        totals.update(count)
        print(f"SET {name}: " + ", ".join(f"{key} {value}" for key, value in count.items()))
    print("ALL: " + ", ".join(f"{key} {value}" for key, value in totals.items()))


if __name__ == "__main__":
    main()
