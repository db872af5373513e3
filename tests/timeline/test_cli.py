"""The ``rooftui timeline`` command through the real ``main`` (in-process: click's
CliRunner), as a user runs it; a subprocess only where the process itself is checked."""

from __future__ import annotations

import gzip
import json
import subprocess

import pytest

from tests.conftest import run_cli
from tests.timeline.kineto_builder import KinetoTraceBuilder, naive_step
from tests.timeline.paths import REPO


def rooftui(*args: str) -> subprocess.CompletedProcess:
    return run_cli("timeline", *args, cwd=REPO)


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_json_output_lists_the_findings(built_naive):
    result = rooftui(str(built_naive), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["steps"] == 3
    assert {f["kind"] for f in report["findings"]} == {
        "gpu_idle",
        "data_loading_overlap",
        "launch_bound",
        "pageable_copy",
    }


def test_table_output_names_the_item_behind_the_blocking_copy(built_naive):
    result = rooftui(str(built_naive))
    assert result.returncode == 0, result.stderr
    assert "Blocking device→host copy into pageable memory" in result.stdout
    assert "aten::item > aten::_local_scalar_dense" in result.stdout
    assert "costliest: step 1, +782 µs, lasting 16 µs" in result.stdout
    assert "GPU idle 70% of step time" in result.stdout


def test_a_clean_trace_says_so(built_fixed):
    result = rooftui(str(built_fixed))
    assert result.returncode == 0, result.stderr
    assert "No stalls found." in result.stdout


def test_missing_file(tmp_path):
    assert_one_line_error(rooftui(str(tmp_path / "absent.json.gz")), "absent.json.gz", "no such file")


def test_truncated_json(tmp_path, built_naive):
    text = gzip.decompress(built_naive.read_bytes()).decode()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    assert_one_line_error(rooftui(str(cut)), "cut.json", "the trace is truncated")


def test_truncated_gzip(tmp_path, built_naive):
    data = built_naive.read_bytes()
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(data[: len(data) // 2])
    assert_one_line_error(rooftui(str(cut)), "cut.json.gz", "truncated")


@pytest.mark.parametrize("content", ["not json at all\n", "[1, 2, 3]", '{"no": "events"}'])
def test_not_a_kineto_trace(tmp_path, content):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert_one_line_error(rooftui(str(bad)), "bad.json", "not a Kineto JSON trace")


def test_a_trace_with_no_gpu_events(tmp_path):
    b = KinetoTraceBuilder()
    naive_step(b, 1, 0.0)
    b.events = [e for e in b.events if e.get("cat") not in ("kernel", "gpu_memcpy")]
    path = b.write(tmp_path / "cpu_only.json")
    assert_one_line_error(rooftui(str(path)), "cpu_only.json", "no GPU events", "ProfilerActivity.CUDA")


def test_tui_flag_opens_the_timeline_app_on_the_analysis(monkeypatch, built_naive):
    monkeypatch.setattr("rooftui.cli.terminal.has_terminal", lambda: True)  # in a terminal
    import rooftui.views.tui.screens.timeline as timeline_screen
    from rooftui.cli import main

    opened = []
    monkeypatch.setattr(
        timeline_screen, "run_timeline_app", lambda analysis, **options: opened.append((analysis, options))
    )
    main(["timeline", str(built_naive), "--tui", "--ascii"])
    ((analysis, options),) = opened
    assert options == {"ascii_mode": True}
    assert [step.number for step in analysis.steps] == [1, 2, 3]


def test_tui_flag_with_a_missing_file_is_still_one_line(tmp_path):
    assert_one_line_error(rooftui(str(tmp_path / "absent.json"), "--tui"), "no such file")


def test_an_empty_file(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert_one_line_error(rooftui(str(empty)), "empty.json", "the file is empty")


def test_a_folder(tmp_path):
    folder = tmp_path / "traces.json"
    folder.mkdir()
    assert_one_line_error(rooftui(str(folder)), "traces.json", "is a folder")
