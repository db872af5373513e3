"""Which cases of the CI fuzz corpus run the same lines of rooftui (the proof behind
``SAME_PATH_AS`` in tests/fuzz/test_fuzz_corpus.py).

    python benchmarks/fuzz_corpus_paths.py          # exit 1 if the map no longer holds

Each of the corpus's seeded cases (``cases(SEED, CI_CASES)``) runs as the test runs it
(``run_in_process``: the command in-process, then every rule of ``runner.check``) under a
line trace of rooftui's modules, in every thread and in every process the command starts
(the ``.ncu-rep`` reader child and the children it forks: a ``sitecustomize`` put on their
``PYTHONPATH`` traces them and writes what they ran when they end). Two cases whose traces
are the same set of (file, line) ran the same product code, and the runner checked the same
rules on their outcomes; the test runs one case of each such set. Cases with equal traces
are printed in sets, with each case's problems (none is expected), and each entry of
``SAME_PATH_AS`` is checked.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.core.line_trace import Lines, lines_run  # noqa: E402
from tests.fuzz.generators import cases  # noqa: E402
from tests.fuzz.runner import run_in_process  # noqa: E402
from tests.fuzz.test_fuzz_corpus import CI_CASES, SAME_PATH_AS, SEED  # noqa: E402

# Traces the processes a case starts (each writes its lines to TRACE_DIR/<pid> as it ends,
# os._exit included: the forked reader children end with it).
CHILD_TRACER = """
import os, sys, threading
_out = os.environ.get("FUZZ_CORPUS_TRACE_DIR")
if _out:
    sys.path.insert(0, CHECKOUT)  # tests.core.line_trace: the one tracer
    from tests.core.line_trace import line_tracer

    _seen = set()
    _tracer = line_tracer(_seen)

    def _dump():
        with open(os.path.join(_out, str(os.getpid())), "a") as f:
            f.writelines(f"{name}\\t{number}\\n" for name, number in _seen)

    _real_exit = os._exit

    def _exit(code):
        _dump()
        _real_exit(code)

    os._exit = _exit
    import atexit
    atexit.register(_dump)
    sys.settrace(_tracer)
    threading.settrace(_tracer)
"""


def lines_run_with_children(work, trace_dir: Path) -> Lines:
    """``lines_run(work)`` and the lines the processes it started wrote into ``trace_dir``."""
    seen = set(lines_run(work))
    for child in trace_dir.iterdir():
        for row in child.read_text().splitlines():
            name, number = row.split("\t")
            seen.add((name, int(number)))
        child.unlink()
    return frozenset(seen)


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch)
        (scratch_path / "site").mkdir()
        (scratch_path / "site" / "sitecustomize.py").write_text(
            CHILD_TRACER.replace("CHECKOUT", repr(str(ROOT)))
        )
        trace_dir = scratch_path / "children"
        trace_dir.mkdir()
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(scratch_path / "site"), os.environ.get("PYTHONPATH")) if p
        )
        os.environ["FUZZ_CORPUS_TRACE_DIR"] = str(trace_dir)
        os.environ["XDG_DATA_HOME"] = str(scratch_path / "data")  # never the user's ceilings
        traced: dict[int, Lines] = {}
        labels: dict[int, str] = {}
        for index, case in enumerate(cases(SEED, CI_CASES)):
            folder = scratch_path / str(index)
            folder.mkdir()
            outcome = None

            def work(case=case, folder=folder) -> None:
                nonlocal outcome
                outcome = run_in_process(case, folder)

            traced[index] = lines_run_with_children(work, trace_dir)
            labels[index] = (
                f"{case.kind}:{case.label} {' '.join(case.argv)[:60]} -> exit {outcome.returncode}"
            )
            if outcome.problems:
                print(f"case {index} broke a rule: {outcome.problems}")
    sets: dict[Lines, list[int]] = {}
    for index, lines in traced.items():
        sets.setdefault(lines, []).append(index)
    for indices in sets.values():
        if len(indices) > 1:
            print(f"{len(traced[indices[0]]):5d} lines, the same in cases {indices}:")
            for index in indices:
                print(f"      {index}: {labels[index]}")
    print(f"{len(sets)} different paths among {len(traced)} cases")
    wrong = [f"{case} -> {kept}" for case, (kept, _) in SAME_PATH_AS.items() if traced[case] != traced[kept]]
    for entry in wrong:
        print(f"not the same path: {entry}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
