"""Several reports as one run: 8 copies of the AMP sample against one copy, in one run.

    python benchmarks/many_reports.py [--copies 8] [--repeats 3]

Decompresses sample_data/deepcam/deepcam_amp.ncu-rep.xz (179 launches, 153 MB) once
and copies it (separate files: a cache or page sharing between copies would flatter
the result); then times, in turn, N rounds of
  rooftui summary COPY1 --no-cache                  one report
  rooftui summary COPY1 ... COPY8 --no-cache        eight, read in parallel
  8 x rooftui summary COPYi --no-cache              eight, one command after another
Readers run one per report, as many at once as the machine has cores (and memory).
Target (issue 14): eight in <= 1.3x the time of one on a machine with >= 8 cores.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import process_env, spread, timed  # noqa: E402
from rooftui.ingest.files import open_binary  # noqa: E402
from rooftui.ingest.parallel import usable_cores  # noqa: E402

SAMPLE = ROOT / "sample_data" / "deepcam" / "deepcam_amp.ncu-rep.xz"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--skip-one-by-one",
        action="store_true",
        help="leave out the N commands one after another (the slowest part)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rooftui-bench-") as tmp:
        first = Path(tmp) / "rank0.ncu-rep"
        with open_binary(SAMPLE) as source, open(first, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        copies = [first]
        for rank in range(1, args.copies):
            copies.append(Path(tmp) / f"rank{rank}.ncu-rep")
            shutil.copyfile(first, copies[-1])
        env = process_env(Path(tmp), ROOFTUI_NO_CACHE="1")
        summary = [sys.executable, "-m", "rooftui", "summary", "--format", "json", "--no-cache"]
        step(f"{args.copies} copies made in {tmp}")
        step(f"first run (compiles rooftui's bytecode): {timed([*summary, str(first)], env)[0]:.2f} s")
        one, together, one_by_one = [], [], []
        for _ in range(args.repeats):
            one.append(timed([*summary, str(first)], env)[0])
            step(f"one report: {one[-1]:.2f} s")
            together.append(timed([*summary, *map(str, copies)], env)[0])
            step(f"{args.copies} as one run: {together[-1]:.2f} s")
            if not args.skip_one_by_one:
                one_by_one.append(sum(timed([*summary, str(copy)], env)[0] for copy in copies))
        print(
            f"{args.copies} copies of {SAMPLE.name} (153 MB each), {usable_cores()} usable cores, "
            f"{args.repeats} rounds"
        )
        print(f"  one report                    {spread(one)}   1.00x")
        print(
            f"  {args.copies} reports as one run        {spread(together)}   "
            f"{spread([t / o for t, o in zip(together, one)], 'x')} of one"
        )
        if one_by_one:
            print(
                f"  {args.copies} commands one after another {spread(one_by_one)}   "
                f"{spread([s / o for s, o in zip(one_by_one, one)], 'x')} of one"
            )


def step(what: str) -> None:
    """A line on stderr as each step ends, so that a run cut short still tells where it was."""
    print(f"[{time.strftime('%H:%M:%S')}] {what}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
