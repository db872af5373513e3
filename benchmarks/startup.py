"""How long rooftui takes to start for commands that read no report, in one run.

    python benchmarks/startup.py [--repeats 15]

Times, in turn, fresh processes of `python -c pass` (the interpreter alone),
`rooftui --help`, `rooftui --version`, `rooftui metrics --arch sm_90`, and for
scale `python -c "import pandas"`; prints the median and the range of each.
Target (issue 14): `rooftui --help` <= 0.25 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import process_env, timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    python = sys.executable
    commands = {
        "python -c pass": [python, "-c", "pass"],
        "rooftui --help": [python, "-m", "rooftui", "--help"],
        "rooftui --version": [python, "-m", "rooftui", "--version"],
        "rooftui metrics --arch sm_90": [python, "-m", "rooftui", "metrics", "--arch", "sm_90"],
        "python -c 'import pandas'": [python, "-c", "import pandas"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    with tempfile.TemporaryDirectory(prefix="rooftui-bench-") as tmp:
        env = process_env(Path(tmp))
        for command in commands.values():  # compiles rooftui's bytecode once
            timed(command, env)
        for _ in range(args.repeats):
            for name, command in commands.items():
                times[name].append(timed(command, env)[0])
    bare = statistics.median(times["python -c pass"])
    print(f"fresh processes, {args.repeats} each, median (range)")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:30s} {median:.3f} s ({min(values):.3f}-{max(values):.3f})   "
            f"{median / bare:5.1f}x python -c pass"
        )


if __name__ == "__main__":
    main()
