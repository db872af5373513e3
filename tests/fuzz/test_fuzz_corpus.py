"""The seeded fuzz corpus in CI (a few seconds), the last-resort handler, and a real terminal.

The long run (thousands of cases through the real CLI, with peak memory) is
``benchmarks/fuzz_run.py``; see tests/fuzz/README.md.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from tests.fuzz.generators import cases
from tests.fuzz.helpers import BASE, edited_base, rooftui
from tests.fuzz.runner import run_in_process

SEED = 20261130
CI_CASES = 60  # 5 per input kind (12 kinds with the sidecar, structure, profile-argument, cache and
# duplicate ones of #25)
# Cases that run exactly the lines of rooftui another case runs (a line trace of the case
# as run here, the processes it starts included: benchmarks/fuzz_corpus_paths.py, which fails
# if this map no longer holds), each with its label, so a change to the generators that
# gives another case at that index fails here until the trace is run again. The runner's
# rules are checked on the case kept (index -> the case kept, the label of the one left).
SAME_PATH_AS = {
    17: (5, "json-hostile-string:empirical/gbytes/metadata/units"),  # ERT ceilings, exit 0: both
    41: (16, "json-deep-nesting.bz2-flipped"),  # a flipped .bz2 stream: both refused on it
}


def test_no_fuzz_case_reaches_the_last_resort_handler_or_breaks_a_rule(tmp_path):
    failures = []
    for index, case in enumerate(cases(SEED, CI_CASES)):
        if index in SAME_PATH_AS:
            _, label = SAME_PATH_AS[index]
            assert case.label == label, (
                f"case {index} is not the one traced: run benchmarks/fuzz_corpus_paths.py"
            )
            continue
        folder = tmp_path / str(index)
        folder.mkdir()
        outcome = run_in_process(case, folder)
        if outcome.problems:
            failures.append(
                (index, case.kind, case.label, case.argv, outcome.problems, outcome.stderr[-300:])
            )
    assert not failures, failures


def test_an_unexpected_exception_is_one_line_exit_1_with_the_debug_hint(tmp_path, monkeypatch, capsys):
    import rooftui.analysis as analysis
    from rooftui.cli import main

    def broken(*args, **kwargs):
        raise RuntimeError("boom\x1b]0;x\x07\nsecond line")

    monkeypatch.setattr(analysis, "load_run", broken)
    with pytest.raises(SystemExit) as exit_:
        main(["summary", str(BASE)])
    err = capsys.readouterr().err
    assert exit_.value.code == 1
    assert err.count("\n") == 1 and "\x1b" not in err
    assert "internal error: RuntimeError: boom\\e]0;x" in err and "--debug" in err
    with pytest.raises(SystemExit):
        main(["summary", str(BASE), "--debug"])
    assert "Traceback" in capsys.readouterr().err


def test_summary_on_a_terminal_prints_an_osc52_kernel_name_escaped(tmp_path):
    def edit(header, rows):
        rows[2][header.index("Kernel Name")] = "pwn\x1b]52;c;cm0gLXJmIH4=\x07(int)"

    path = edited_base(tmp_path, edit)
    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}
    env.pop("NO_COLOR", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "rooftui", "summary", str(path)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=BASE.parents[2],
        close_fds=True,
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert child.wait(timeout=120) == 0, seen[-500:]
    assert b"\x1b]" not in seen  # no OSC sequence of any kind reached the terminal
    assert b"pwn\\e]52;c;cm0gLXJmIH4=" in seen


def test_the_fuzz_runner_would_see_a_raw_escape(tmp_path):
    """The checks themselves can fail: a raw ESC on stdout is reported."""
    from tests.fuzz.generators import Case
    from tests.fuzz.runner import Outcome, check

    outcome = Outcome(Case("t", "t", {}, []), 0, "x\x1b]52;c;x\x07", "")
    (tmp_path / "tmp").mkdir()
    (tmp_path / "out").mkdir()
    check(outcome, tmp_path, {})
    assert outcome.problems == ["raw control character on stdout"]
    assert rooftui(tmp_path, "summary", BASE).problems == []


def test_the_fuzz_runner_would_see_a_report_counted_twice_or_a_cache_error(tmp_path):
    """The cache and duplicate cases' checks can fail: doubled totals, a missing note, an
    error where nothing was wrong."""
    import json

    from tests.fuzz.cache_and_duplicates import RAW, _same_totals, totals_alone
    from tests.fuzz.generators import Case
    from tests.fuzz.runner import Outcome, check

    alone = totals_alone(str(RAW))
    doubled = {"summary": {**{k: alone[k] for k in ("table3",)}, "kernels": alone["kernels"] * 2}}
    doubled["summary"]["time_s"] = alone["time_s"] * 2
    once = {"summary": {k: alone[k] for k in ("kernels", "time_s", "table3")}, "notes": []}
    (tmp_path / "tmp").mkdir()
    (tmp_path / "out").mkdir()
    said = []
    for stdout, code in ((json.dumps(doubled), 0), (json.dumps(once), 0), ("", 2)):
        case = Case(
            "t", "t", {}, [], check_stdout=_same_totals(str(RAW), note="counted once"), must_succeed=True
        )
        outcome = Outcome(case, code, stdout, "x\n")
        check(outcome, tmp_path, {})
        said.append(outcome.problems)
    assert said == [
        ["silent damage: kernels differs from the report read alone"],
        ["silent damage: no 'counted once' note"],
        ["wrong refusal: an input with nothing wrong was refused"],
    ]
