"""Commands that need no data start without pandas, numpy or Textual (0.3-0.5 s of imports)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rooftui.ingest.cache import cache_dir
from tests.conftest import KNOWN, ROOT, run_cli

PROBE = """
import sys
from rooftui.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    assert done.code in (0, None), done.code
heavy = sorted(m for m in ("pandas", "numpy", "textual") if m in sys.modules)
print("heavy:", ",".join(heavy) or "none", file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["metrics", "--arch", "sm_90"],
        ["summary", "--help"],
        ["plot", "--help"],
        ["open", "--help"],
    ],
    ids=" ".join,
)
def test_commands_without_data_import_no_pandas_numpy_or_textual(args):
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "heavy: none"


REFUSED_PROBE = PROBE.replace("(0, None)", "(2,)")


@pytest.mark.parametrize(
    "args",
    [
        ["summary", "gone.csv"],
        ["diff", KNOWN / "known_answer.raw.csv", "gone.csv"],
        ["diff", "gone.csv", KNOWN / "known_answer.raw.csv"],
        ["advise", "gone.csv"],
    ],
    ids=lambda args: " ".join(map(str, args)).replace(str(KNOWN) + "/", ""),
)
def test_a_missing_report_is_refused_before_pandas_numpy_or_textual(args):
    """The one-line refusal of a report that is not there costs no data imports (diff
    used to start reading A, and import pandas, before it looked for B)."""
    done = subprocess.run(
        [sys.executable, "-c", REFUSED_PROBE, *map(str, args)], capture_output=True, text=True, cwd=ROOT
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 0 and lines[0] == "rooftui: gone.csv: no such file — check the path", (
        done.stderr
    )
    assert lines[-1] == "heavy: none"


def test_no_cache_option_reads_afresh_and_stores_nothing():
    result = run_cli("summary", KNOWN / "known_answer.raw.csv", "--no-cache", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert not cache_dir().exists()
    result = run_cli("summary", KNOWN / "known_answer.raw.csv", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert len(list(cache_dir().glob("*.report"))) == 1


SPY = """
import sys
import rooftui.ingest.parallel as parallel
started = parallel.start_reading
def spy(*args, **kwargs):
    print("pandas before the readers:", "pandas" in sys.modules, file=sys.stderr)
    return started(*args, **kwargs)
parallel.start_reading = spy
from rooftui.cli import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("command", ["summary", "diff"])
def test_report_readers_start_before_pandas_is_imported(command):
    """The .ncu-rep reader processes read while the command imports pandas."""
    reports = [KNOWN / "known_answer.ncu-rep"] * (2 if command == "diff" else 1)
    done = subprocess.run(
        [sys.executable, "-c", SPY, command, *map(str, reports), "--no-cache", "--format", "csv"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "pandas before the readers: False" in done.stderr.splitlines()


def test_help_lists_each_subcommand_with_its_own_summary():
    """`rooftui --help` lists subcommands without importing them (SUMMARIES): each summary
    must be the first paragraph of the command's own help, word for word."""
    from rooftui.cli import SUBCOMMANDS, SUMMARIES, cli

    for name in SUBCOMMANDS:
        command = cli.commands[name]  # imports it
        first_paragraph = (command.help or "").split("\n\n")[0]
        assert SUMMARIES[name].split() == first_paragraph.split(), name
