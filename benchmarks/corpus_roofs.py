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


def main() -> None:
    totals: Counter = Counter()
    for name, count in sorted(walk(Path(sys.argv[1])).items()):
        totals.update(count)
        print(f"SET {name}: " + ", ".join(f"{key} {value}" for key, value in count.items()))
    print("ALL: " + ", ".join(f"{key} {value}" for key, value in totals.items()))


if __name__ == "__main__":
    main()
