"""Issue #25: the crashes and hangs of the third fuzz round, one named test per class,
through the real CLI entry point with the fuzz runner's checks."""

from __future__ import annotations

import json

import pytest

from rooftui.errors import InputError
from tests.fuzz.helpers import BASE, assert_clean, assert_one_line_error, rooftui

CEILINGS = BASE.parents[1] / "ceilings" / "h200.json"
LONG = "x" * 300  # one name over the 255 bytes a file system allows


def _huge(value):
    if isinstance(value, dict):
        return {
            k: (1e308 if isinstance(v, (int, float)) and not isinstance(v, bool) else _huge(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [1e308 if isinstance(v, (int, float)) and not isinstance(v, bool) else _huge(v) for v in value]
    return value


def test_measure_show_with_a_1e308_ceiling_prints_the_table_not_a_crash(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps(_huge(json.loads(CEILINGS.read_text()))))
    result = rooftui(tmp_path, "measure", "--show", tmp_path / "c.json")
    assert result.code == 0, result.err
    assert_clean(result)
    assert "the chart is not drawn" in result.out


def _trace_text(tmp_path, device_id: str) -> str:
    from tests.fuzz.generators import _trace

    doc = _trace()
    doc["deviceProperties"] = [{"id": 0, "name": "NVIDIA H200"}]
    return json.dumps(doc).replace('"id": 0', f'"id": {device_id}', 1)


def test_a_trace_whose_device_id_is_no_number_is_read(tmp_path):
    (tmp_path / "t.json").write_text(_trace_text(tmp_path, '"a"'))
    result = rooftui(tmp_path, "timeline", tmp_path / "t.json")
    assert result.code == 0, result.err
    assert_clean(result)


def test_a_trace_with_a_5000_digit_number_is_one_line(tmp_path):
    (tmp_path / "t.json").write_text(_trace_text(tmp_path, "9" * 5000))
    assert_one_line_error(
        rooftui(tmp_path, "timeline", tmp_path / "t.json"), "t.json", "a number too long to read"
    )


@pytest.mark.parametrize("command", ["diff", "summary", "plot"])
def test_a_path_that_cannot_be_stat_ed_is_one_line(tmp_path, command):
    report = tmp_path / "r.csv"
    report.write_bytes(BASE.read_bytes())
    missing = tmp_path / LONG / "a.csv"
    argv = [report, missing] if command == "diff" else [missing]
    if command == "plot":
        argv = [missing, "--csv", tmp_path / "out.csv"]
    assert_one_line_error(rooftui(tmp_path, command, *argv), "too long")


def test_load_run_on_a_path_that_cannot_be_stat_ed_raises_an_input_error(tmp_path):
    from rooftui.analysis import load_run

    with pytest.raises(InputError, match="too long"):
        load_run([str(tmp_path / LONG / "a.csv")])


@pytest.mark.parametrize(
    "argv",
    [["open", "{report}"], ["{report}"], ["profile", "--open", "--", "true"]],
    ids=["open", "default", "profile-open"],
)
def test_the_explorer_without_a_terminal_is_one_line_suggesting_a_text_command(tmp_path, argv):
    report = tmp_path / "r.csv"
    report.write_bytes(BASE.read_bytes())
    argv = [str(report) if a == "{report}" else a for a in argv]
    line = assert_one_line_error(rooftui(tmp_path, *argv), "needs a terminal")
    assert "summary" in line


@pytest.mark.parametrize(
    ("screen", "text_form"),
    [
        ("diff-tui", "`rooftui diff` without --tui"),
        ("compare", "`rooftui diff BEFORE AFTER`"),
        ("timeline-tui", "`rooftui timeline TRACE` without --tui"),
    ],
)
def test_the_compare_and_timeline_screens_without_a_terminal_are_one_line_naming_the_text_form(
    tmp_path, screen, text_form
):
    from tests.fuzz.generators import _trace

    report = tmp_path / "r.csv"
    report.write_bytes(BASE.read_bytes())
    (tmp_path / "t.json").write_text(json.dumps(_trace()))
    argv = {
        "diff-tui": ["diff", report, report, "--tui"],
        "compare": [report, report, "--compare"],
        "timeline-tui": ["timeline", tmp_path / "t.json", "--tui"],
    }[screen]
    line = assert_one_line_error(rooftui(tmp_path, *argv), "needs a terminal")
    assert text_form in line
