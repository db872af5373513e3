"""Commands that need no data start without pandas, numpy or Textual (0.3-0.5 s of imports)."""

from __future__ import annotations

import json
import subprocess
import sys

from rooftui.ingest.cache import cache_dir
from tests.conftest import KNOWN, ROOT, run_cli

# Runs `rooftui ARGS` for each case of a JSON list (argv[1]) in this one process, in turn:
# each case is [ARGS, the exit code it must end with]. Prints, per case, what it wrote to
# stderr and which of the heavy modules were loaded by then. Modules stay loaded from one
# case to the next, so "none" after the last case holds for every case before it too.
# Then, with argv[2:] given, runs `rooftui ARGV[2:]` with a spy that says whether pandas
# was loaded when the report readers started.
PROBE = """
import contextlib, io, json, sys
import rooftui.ingest.parallel as parallel
from rooftui.cli import main
started = parallel.start_reading
def spy(*args, **kwargs):
    print("pandas before the readers:", "pandas" in sys.modules, file=sys.stderr)
    return started(*args, **kwargs)
parallel.start_reading = spy
found = []
for args, code in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(args)
            ended = 0
        except SystemExit as done:
            ended = done.code or 0
    heavy = sorted(m for m in ("pandas", "numpy", "textual") if m in sys.modules)
    found.append([err.getvalue(), ended, ",".join(heavy) or "none"])
print(json.dumps(found))
if sys.argv[2:]:
    main(sys.argv[2:])
"""


def run_in_one_process(cases: list[tuple[list, int]], then: list | None = None):
    """``PROBE`` in a new Python process: the process and, per case, (stderr, exit code,
    heavy modules loaded by then)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([[list(map(str, args)), code] for args, code in cases])]
        + list(map(str, then or [])),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done, json.loads(done.stdout.splitlines()[0])


WITHOUT_DATA = [
    ["--help"],
    ["--version"],
    ["metrics", "--arch", "sm_90"],
    ["summary", "--help"],
    ["plot", "--help"],
    ["open", "--help"],
]
MISSING = [
    ["summary", "gone.csv"],
    ["diff", KNOWN / "known_answer.raw.csv", "gone.csv"],
    ["diff", "gone.csv", KNOWN / "known_answer.raw.csv"],
    ["advise", "gone.csv"],
]


def test_commands_without_data_or_with_a_missing_report_import_no_pandas_numpy_or_textual():
    """Commands that need no data, and the one-line refusal of a report that is not there,
    cost no data imports (diff used to start reading A, and import pandas, before it looked
    for B); then, in the same process, summary's .ncu-rep reader process starts before
    pandas is imported (it reads while the command imports pandas)."""
    report = KNOWN / "known_answer.ncu-rep"
    done, found = run_in_one_process(
        [(args, 0) for args in WITHOUT_DATA] + [(args, 2) for args in MISSING],
        then=["summary", report, "--no-cache", "--format", "csv"],
    )
    for args, (stderr, code, heavy) in zip(WITHOUT_DATA + MISSING, found):
        case = " ".join(map(str, args))
        assert heavy == "none", case
        if args in MISSING:
            lines = stderr.strip().splitlines()
            assert code == 2 and lines == ["rooftui: gone.csv: no such file — check the path"], (case, stderr)
        else:
            assert code == 0, (case, stderr)
    assert len(found) == len(WITHOUT_DATA + MISSING)
    assert "pandas before the readers: False" in done.stderr.splitlines()


def test_no_cache_option_reads_afresh_and_stores_nothing():
    result = run_cli("summary", KNOWN / "known_answer.raw.csv", "--no-cache", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert not cache_dir().exists()
    result = run_cli("summary", KNOWN / "known_answer.raw.csv", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert len(list(cache_dir().glob("*.report"))) == 1


def test_diffs_report_readers_start_before_pandas_is_imported():
    """The .ncu-rep reader processes of both reports read while diff imports pandas
    (summary's: test_commands_without_data_or_with_a_missing_report_import_no_pandas_numpy_or_textual)."""
    report = KNOWN / "known_answer.ncu-rep"
    done, found = run_in_one_process([], then=["diff", report, report, "--no-cache", "--format", "csv"])
    assert found == []
    assert "pandas before the readers: False" in done.stderr.splitlines()


def test_help_lists_each_subcommand_with_its_own_summary():
    """`rooftui --help` lists subcommands without importing them (SUMMARIES): each summary
    must be the first paragraph of the command's own help, word for word."""
    from rooftui.cli import SUBCOMMANDS, SUMMARIES, cli

    for name in SUBCOMMANDS:
        command = cli.commands[name]  # imports it
        first_paragraph = (command.help or "").split("\n\n")[0]
        assert SUMMARIES[name].split() == first_paragraph.split(), name
