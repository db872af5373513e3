"""Where the test suite's time goes: one pytest run, its wall and CPU time, and each
test's time summed by directory and by kind of test.

    python benchmarks/suite_time.py [--label NAME] [PYTEST ARGS...]

runs ``python -m pytest PYTEST ARGS --junitxml=...`` (``-n 0 -p no:randomly`` gives
each test's time without workers competing for the cores) and prints:

- wall time, CPU time (user + system of pytest and every process it waited for, from
  ``getrusage(RUSAGE_CHILDREN)``) and the 1-minute load average at the start and end
  (the machine is shared: compare runs made under the same load);
- each test's time (pytest's ``call`` + ``setup`` + ``teardown``, from the JUnit XML)
  summed per directory of ``tests/`` and per kind, read from the test function's
  source: ``tmux`` (drives the real command in tmux), ``snapshot`` (SVG snapshots),
  ``pilot`` (starts a Textual app), ``subprocess`` (runs a real process),
  ``cli`` (``rooftui`` in-process, click's CliRunner), ``other`` (data, model, analysis).

Wall time on a shared 2-core machine moves with the load; CPU time far less.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The first of these a test's source holds decides its kind (helpers called by name count).
KINDS = (
    ("tmux", ("(terminal,", "(terminal)", "Tmux(")),
    ("snapshot", ("snap_compare",)),
    ("pilot", ("run_test(", ".run(headless", "app.run(", "pilot")),
    ("subprocess", ("run_cli_process", "subprocess.", "Popen", "sys.executable")),
    ("cli", ("run_cli(", "CliRunner")),
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="run")
    parser.add_argument("--read", type=Path, help="summarise this JUnit XML; run nothing")
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("BEFORE", "AFTER"),
        help="two files of per-test CPU (cpu_per_test.py): their sums per directory; run nothing",
    )
    options, pytest_args = parser.parse_known_args(argv)
    if options.read:
        summarise(read_junit(options.read))
        return 0
    if options.compare:
        compare(*options.compare)
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "junit.xml"
        command = [sys.executable, "-m", "pytest", *pytest_args, f"--junitxml={report}"]
        load_before = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_after = os.getloadavg()[0]
        summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "(no output)"
        tests = read_junit(report) if report.exists() else []
        failed = failed_tests(report) if report.exists() else []
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    print(f"# {options.label}: python -m pytest {' '.join(pytest_args)}")
    print(f"pytest said: {summary} (exit code {done.returncode})")
    print(f"wall {wall:.1f} s; CPU user {user:.1f} s + system {system:.1f} s = {user + system:.1f} s")
    print(f"load average (1 min) {load_before:.2f} at the start, {load_after:.2f} at the end")
    for test_id in failed:
        print(f"failed: {test_id}")
    summarise(tests)
    return done.returncode


def summarise(tests: list[tuple[str, float]]) -> None:
    total = sum(seconds for _, seconds in tests)
    print(f"{len(tests)} tests, {total:.1f} s summed\n")
    by_directory: dict[str, float] = defaultdict(float)
    by_kind: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for test_id, seconds in tests:
        by_directory[directory_of(test_id)] += seconds
        kind = kind_of(test_id)
        by_kind[kind] += seconds
        counts[kind] += 1
    print_table("directory", by_directory, total)
    print_table("kind", by_kind, total, counts)
    print("slowest 30:")
    for test_id, seconds in sorted(tests, key=lambda t: -t[1])[:30]:
        print(f"  {seconds:6.2f} s  {kind_of(test_id):10}  {test_id}")


def read_cpu(path: Path) -> dict[str, float]:
    """Test id -> CPU seconds, from a file ``cpu_per_test.py`` wrote (its per-process
    lines, ``#process ...``, left out)."""
    seconds: dict[str, float] = {}
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        test_id, _, value = line.rpartition("\t")
        seconds[test_id] = float(value)
    return seconds


def compare(before_path: Path, after_path: Path) -> None:
    """Per-test CPU of two runs summed per directory and per file that changed most."""
    before, after = read_cpu(before_path), read_cpu(after_path)
    print(f"tests: {len(before)} before, {len(after)} after")
    print("| directory | before s | after s |")
    print("|---|---|---|")
    for name, part in (("directory", directory_of), ("file", lambda test_id: test_id.split("::")[0])):
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for which, run in enumerate((before, after)):
            for test_id, seconds in run.items():
                sums[part(test_id)][which] += seconds
        rows = sorted(sums.items(), key=lambda item: item[1][1] - item[1][0])
        if name == "file":
            print("\n| file (most changed) | before s | after s |\n|---|---|---|")
            rows = rows[:12]
        for key, (was, now) in rows if name == "file" else sorted(sums.items()):
            print(f"| {key} | {was:.1f} | {now:.1f} |")
    print(f"| all | {sum(before.values()):.1f} | {sum(after.values()):.1f} |")


def print_table(what: str, seconds_of: dict[str, float], total: float, counts: dict | None = None) -> None:
    print(f"| {what} | tests | s | share |" if counts else f"| {what} | s | share |")
    print("|---|---|---|---|" if counts else "|---|---|---|")
    for key, seconds in sorted(seconds_of.items(), key=lambda item: -item[1]):
        share = f"{seconds / total:.0%}" if total else "–"
        middle = f" {counts[key]} |" if counts else ""
        print(f"| {key} |{middle} {seconds:.1f} | {share} |")
    print()


def read_junit(path: Path) -> list[tuple[str, float]]:
    """(test id as ``tests/dir/file.py::name[params]``, seconds) of each test case."""
    tests = []
    for case in ElementTree.parse(path).iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        name = case.get("name", "")
        # a test in a class: the class is the classname's last part
        file = module + ".py"
        if not (ROOT / file).exists() and "/" in module:
            file = module.rsplit("/", 1)[0] + ".py"
        tests.append((f"{file}::{name}", float(case.get("time", 0.0))))
    return tests


def failed_tests(path: Path) -> list[str]:
    """The ids of the test cases the JUnit XML records as failed or in error."""
    return [
        f"{case.get('classname', '')}::{case.get('name', '')}"
        for case in ElementTree.parse(path).iter("testcase")
        if case.find("failure") is not None or case.find("error") is not None
    ]


def directory_of(test_id: str) -> str:
    return str(Path(test_id.split("::")[0]).parent)


def kind_of(test_id: str) -> str:
    file, name = test_id.split("::")[0], test_id.split("::")[-1].split("[")[0]
    source = function_source(file, name)
    for kind, words in KINDS:
        if any(word in source for word in words):
            return kind
    return "other"


@cache
def module_functions(file: str) -> dict[str, str]:
    """Each top-level function's source in ``file``, and the sources of the module's
    functions it calls by name (one level: a check run in turn by a test)."""
    try:
        text = (ROOT / file).read_text()
        tree = ast.parse(text)
    except (OSError, SyntaxError):
        return {}
    own = {
        node.name: ast.get_source_segment(text, node) or ""
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    return {
        name: source + "".join(other for called, other in own.items() if called != name and called in source)
        for name, source in own.items()
    }


def function_source(file: str, name: str) -> str:
    return module_functions(file).get(name, "")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
