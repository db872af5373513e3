"""Running rooftui in-process for the hostile-input tests, and building their inputs."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from tests.fuzz.generators import KNOWN, Case
from tests.fuzz.runner import Outcome, run_in_process

BASE = KNOWN / "known_answer.raw-base.csv"
DETAILS = KNOWN / "known_answer.details-base.csv"
REPORT = KNOWN / "known_answer.ncu-rep"
TIME = "gpu__time_duration.sum"


@dataclass
class Result:
    code: int
    out: str
    err: str
    problems: list[str]

    @property
    def error_line(self) -> str:
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1, self.err
        return lines[0]


def rooftui(
    folder: Path,
    *argv: str | Path,
    exact_stdout: bool = False,
    env: dict[str, str] | None = None,
    files: dict[str, bytes] | None = None,
) -> Result:
    """``rooftui ARGV`` in this process on files already in ``folder`` (or ``files``), with
    every check of the fuzz runner (exit code, one line, no raw escapes, inputs unchanged,
    nothing left behind)."""
    args = [str(a).replace(str(folder), "{dir}") for a in argv]
    present = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    case = Case("test", "test", {**present, **(files or {})}, args, exact_stdout, env or {})
    outcome: Outcome = run_in_process(case, folder)
    return Result(outcome.returncode, outcome.stdout, outcome.stderr, outcome.problems)


def assert_clean(result: Result) -> None:
    assert not result.problems, (result.problems, result.err)


def assert_one_line_error(result: Result, *words: str) -> str:
    assert result.code == 2, (result.code, result.err)
    assert_clean(result)
    line = result.error_line
    for word in words:
        assert word in line, line
    return line


def base_rows(path: Path = BASE) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text())))


def write_rows(path: Path, rows: list[list[str]]) -> Path:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue())
    return path


def edited_base(folder: Path, edit, name: str = "edited.csv", source: Path = BASE) -> Path:
    """The known-answer export with ``edit(header, rows)`` applied."""
    rows = base_rows(source)
    edit(rows[0], rows)
    return write_rows(folder / name, rows)
