"""The ``.ncu-rep`` record check (``rooftui.ingest.ncu_rep_records``) against an older commit:
the same answers, and the CPU each takes.

    python benchmarks/ncu_rep_records.py [BASE] [--rounds N]

BASE (default 848a2f9) is the commit whose ``ncu_rep_records.py`` is compared with this
checkout's, both imported into this process and fed the same bytes, in turns: every
committed ``.ncu-rep`` (decompressed), fed in 64 KiB pieces as a decompressing read
feeds it, and the empty-record bomb of tests/fuzz/test_hostile_inputs.py (1.1 million
records of no bytes, refused at the cap). Prints, per input, what each side found (they
must agree: exit 1 if not) and each side's CPU per check, the best of ``--rounds``.
"""

from __future__ import annotations

import argparse
import importlib.util
import lzma
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rooftui.errors import InputError  # noqa: E402
from rooftui.ingest import ncu_rep_records as this_tree  # noqa: E402

PIECE = 1 << 16
BOMB = b"NVR\0" + b"\0" * (4 * 1_100_000)


def base_module(commit: str) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{commit}:rooftui/ingest/ncu_rep_records.py"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "base_ncu_rep_records.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("base_ncu_rep_records", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(module: ModuleType, data: bytes) -> tuple[float, tuple]:
    """CPU seconds of one check of ``data``, and what it found."""
    started = time.process_time()
    chain = module.RecordChain(Path("r.ncu-rep"))
    try:
        for at in range(0, len(data), PIECE):
            chain.feed(data[at : at + PIECE])
        found: tuple = ("read", chain.finish(), chain.records, chain.results)
    except InputError as refused:
        found = ("refused", str(refused))
    return time.process_time() - started, found


def inputs() -> dict[str, bytes]:
    found = {}
    for folder in ("sample_data", "tests"):
        for path in sorted((ROOT / folder).rglob("*.ncu-rep*")):
            data = path.read_bytes()
            found[path.name] = lzma.decompress(data) if path.suffix == ".xz" else data
    found["empty-record bomb"] = BOMB
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base", nargs="?", default="848a2f9")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    base = base_module(args.base)
    differ = 0
    print(f"{'input':42} {'MB':>7} {'base ms':>9} {'this ms':>9} {'ratio':>6}  found")
    for name, data in inputs().items():
        best = {"base": float("inf"), "this": float("inf")}
        answers = {}
        for _ in range(args.rounds):  # the two sides in turns
            for side, module in (("base", base), ("this", this_tree)):
                seconds, answers[side] = check(module, data)
                best[side] = min(best[side], seconds)
        same = answers["base"] == answers["this"]
        differ += not same
        ratio = best["this"] / best["base"] if best["base"] else float("nan")
        shown = answers["this"] if same else f"DIFFER: {answers}"
        print(
            f"{name:42} {len(data) / 1e6:7.1f} {best['base'] * 1e3:9.2f} {best['this'] * 1e3:9.2f} "
            f"{ratio:6.3f}  {str(shown)[:60]}"
        )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
