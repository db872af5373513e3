"""Issue #25: the same report given twice is counted once with a note (Table III and the
total time as for one), and two exports of one run that disagree are refused. The answer
is known by construction: twice the same report must give exactly the one-report totals."""

from __future__ import annotations

import csv
import io
import json
import lzma
import os
import shutil

import pytest

from tests.fuzz.cache_and_duplicates import totals_alone
from tests.fuzz.helpers import BASE, REPORT, assert_one_line_error, rooftui

KNOWN = BASE.parent
MULTIGPU = KNOWN.parent / "multigpu"
TIME = "gpu__time_duration.sum"


def _summary(tmp_path, *paths):
    result = rooftui(tmp_path, "summary", "--format", "json", *paths, exact_stdout=True)
    assert result.code == 0, result.err
    return json.loads(result.out)


def _prepare(tmp_path, how):
    """The report given alone (a file of sample_data) and the two paths that give it twice."""
    one = tmp_path / "run.raw-base.csv"
    shutil.copy(BASE, one)
    if how == "same-path":
        return BASE, [one, one]
    if how == "relative-and-absolute":
        os.chdir(tmp_path)
        return BASE, ["run.raw-base.csv", one]
    if how == "copy":
        shutil.copy(BASE, tmp_path / "copy.csv")
        return BASE, [one, tmp_path / "copy.csv"]
    if how == "symlink":
        (tmp_path / "link.csv").symlink_to(one)
        return BASE, [one, tmp_path / "link.csv"]
    if how == "hard-link":
        os.link(one, tmp_path / "hard.csv")
        return BASE, [one, tmp_path / "hard.csv"]
    if how == "xz-and-plain":
        (tmp_path / "run.raw-base.csv.xz").write_bytes(lzma.compress(BASE.read_bytes()))
        return BASE, [tmp_path / "run.raw-base.csv.xz", one]
    if how == "ncu-rep-and-its-export":
        shutil.copy(REPORT, tmp_path / "run.ncu-rep")
        return REPORT, [tmp_path / "run.ncu-rep", one]
    if how == "raw-and-raw-base":
        shutil.copy(KNOWN / "known_answer.raw.csv", tmp_path / "run.raw.csv")
        return BASE, [tmp_path / "run.raw.csv", one]
    raise AssertionError(how)


@pytest.mark.parametrize(
    "how",
    [
        "same-path",
        "relative-and-absolute",
        "copy",
        "symlink",
        "hard-link",
        "xz-and-plain",
        "ncu-rep-and-its-export",
        "raw-and-raw-base",
    ],
)
def test_the_same_report_given_twice_is_counted_once_with_a_note(tmp_path, monkeypatch, how):
    monkeypatch.chdir(tmp_path)
    alone, twice = _prepare(tmp_path, how)
    expected = totals_alone(str(alone))  # `summary --format json` of the one report, once per process
    doc = _summary(tmp_path, *twice)
    assert doc["summary"]["kernels"] == expected["kernels"]
    assert doc["summary"]["time_s"] == pytest.approx(expected["time_s"], rel=1e-9)
    assert doc["summary"]["table3"] == expected["table3"]
    assert any("counted once" in note for note in doc["notes"]), doc["notes"]


def test_two_ranks_of_one_job_are_both_counted(tmp_path):
    ranks = [MULTIGPU / f"ddp.rank{r}.raw.csv.xz" for r in (0, 1)]
    doc = _summary(tmp_path, *ranks)
    alone = [totals_alone(str(r))["kernels"] for r in ranks]
    assert doc["summary"]["kernels"] == sum(alone)
    assert not any("counted once" in note for note in doc["notes"])


def test_two_exports_of_one_run_that_disagree_are_refused(tmp_path):
    rows = list(csv.reader(io.StringIO(BASE.read_text())))
    column = rows[0].index(TIME)
    rows[2][column] = str(float(rows[2][column].replace(",", "")) * 2)
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    (tmp_path / "edited.csv").write_text(out.getvalue())
    shutil.copy(BASE, tmp_path / "run.csv")
    result = rooftui(tmp_path, "summary", tmp_path / "run.csv", tmp_path / "edited.csv")
    assert_one_line_error(result, "hold the same run", "disagree", TIME)
