"""Regression tests for what the 10,000-case fuzz run (round 3, seeds 300-) found.

Each through the real CLI entry point: one line naming the file and the fix, exit 2,
no traceback, no raw control characters, inputs unchanged, nothing left behind.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import json
import lzma
import os
import struct
import subprocess
import sys

import pytest

from tests.fuzz.helpers import (
    BASE,
    DETAILS,
    REPORT,
    assert_one_line_error,
    base_rows,
    rooftui,
    write_rows,
)


@pytest.mark.parametrize("source", [BASE, DETAILS], ids=["raw", "details"])
def test_an_export_without_the_id_column_names_the_column(tmp_path, source):
    # found as exit 1 (KeyError 'ID'): seed 300, details-no-ID
    rows = base_rows(source)
    j = rows[0].index("ID")
    path = write_rows(tmp_path / "no-id.csv", [r[:j] + r[j + 1 :] for r in rows])
    assert_one_line_error(rooftui(tmp_path, "summary", path), "no-id.csv", "without the ID column")


# ---------------------------------------------------------------- .ncu-rep records


def _records(data: bytes) -> list[tuple[int, int]]:
    """(offset, body length) of each record after the signature."""
    out, offset = [], 4
    while offset < len(data):
        (length,) = struct.unpack_from("<I", data, offset)
        out.append((offset, length))
        offset += 4 + length
    return out


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _block_header(sources: int, results: int, payload: int) -> bytes:
    """A block header as ncu writes it (protobuf: NumSources 1, NumResults 2, PayloadSize 5)."""
    body = b"\x08" + _varint(sources) + b"\x10" + _varint(results) + b"\x28" + _varint(payload)
    return struct.pack("<I", len(body)) + body


def test_a_corrupt_ncu_rep_result_is_refused_not_shown_as_a_0_s_kernel(tmp_path):
    # before: the launch came back with no name and no time: "zero, missing or
    # non-finite duration", as if the kernel had run for 0 s
    data = bytearray(REPORT.read_bytes())
    offset, length = _records(bytes(data))[16]  # kernel ID 1's result (15: its block header)
    for at in (100, 5000, 12000):
        data[offset + 4 + at] ^= 0xFF
    (tmp_path / "flipped.ncu-rep").write_bytes(bytes(data))
    assert_one_line_error(
        rooftui(tmp_path, "summary", tmp_path / "flipped.ncu-rep"),
        "flipped.ncu-rep",
        "corrupt",
        "kernel ID 1 ",
        "no 0 s kernel",
    )


def test_an_ncu_rep_cut_between_two_results_of_one_block_says_truncated(tmp_path):
    # Two results in one block (NumResults 2): a cut after the first is inside the block.
    data = REPORT.read_bytes()
    records = _records(data)
    (h1, _), (r1, n1), (h2, _), (r2, n2) = records[15:19]
    merged = (
        data[:h1]
        + _block_header(0, 2, 8 + n1 + n2)
        + data[r1 : r1 + 4 + n1]
        + data[r2 : r2 + 4 + n2]
        + data[r2 + 4 + n2 :]
    )
    (tmp_path / "whole.ncu-rep").write_bytes(merged)
    assert rooftui(tmp_path, "summary", tmp_path / "whole.ncu-rep").code == 0
    cut = len(data[:h1] + _block_header(0, 2, 8 + n1 + n2)) + 4 + n1
    (tmp_path / "whole.ncu-rep").unlink()
    (tmp_path / "cut.ncu-rep").write_bytes(merged[:cut])
    assert_one_line_error(
        rooftui(tmp_path, "summary", tmp_path / "cut.ncu-rep"), "cut.ncu-rep", "truncated", "1 more record"
    )


def test_fewer_launches_read_than_the_blocks_hold_is_refused(tmp_path):
    from rooftui.errors import InputError
    from rooftui.ingest.ncu_rep import fetch_ncu_rep, to_raw_report

    fetched = fetch_ncu_rep(REPORT)
    assert fetched.results == 15  # the known-answer kernels
    fetched.results = 16  # as if ncu_report had skipped a result it could not parse
    with pytest.raises(InputError, match="its blocks hold 16 results, ncu_report read 15"):
        to_raw_report(fetched)


# ---------------------------------------------------------------- CSV cut at a row boundary

LIVE_LOG = (BASE.parent / "known_answer.ncu.log").read_text()  # ncu's own log of these 15 launches


@pytest.mark.parametrize("source", [BASE, DETAILS], ids=["raw", "details"])
def test_a_live_run_csv_cut_at_a_row_boundary_says_truncated(tmp_path, source):
    # ncu run live logs 'Profiling "k" - ID:' for each launch above the table; a cut
    # after a whole row (or a whole kernel's rows) is caught against that log.
    table = source.read_text()
    (tmp_path / "live.csv").write_text(LIVE_LOG + table)
    assert rooftui(tmp_path, "summary", tmp_path / "live.csv").code == 0
    (tmp_path / "live.csv").unlink()
    lines = table.splitlines(keepends=True)
    last_id = f'"{14}"'
    cut = "".join(line for line in lines if not line.startswith(last_id))  # ID 14's rows gone
    (tmp_path / "cut.csv").write_text(LIVE_LOG + cut)
    assert_one_line_error(
        rooftui(tmp_path, "summary", tmp_path / "cut.csv"),
        "cut.csv",
        "truncated",
        "up to ID 14",
        "ends at ID 13",
    )


@pytest.mark.parametrize("source", [BASE, DETAILS], ids=["raw", "details"])
def test_a_csv_cut_right_after_its_header_does_not_blame_the_filters_alone(tmp_path, source):
    header_lines = 1
    lines = source.read_text().splitlines(keepends=True)
    (tmp_path / "cut.csv").write_text("".join(lines[:header_lines]))
    line = assert_one_line_error(
        rooftui(tmp_path, "summary", tmp_path / "cut.csv"), "cut.csv", "no kernels", "cut short"
    )
    assert "copy it whole" in line


# ---------------------------------------------------------------- trace bombs


def _trace_file(tmp_path, extra_events=(), **top_level) -> object:
    from tests.fuzz.generators import _trace

    doc = _trace()
    doc["traceEvents"].extend(extra_events)
    doc.update(top_level)
    (tmp_path / "t.json").write_text(json.dumps(doc))
    return tmp_path / "t.json"


def _kernel(i: int, name: str = "k") -> dict:
    return {
        "ph": "X",
        "cat": "kernel",
        "name": name,
        "pid": 0,
        "tid": 7,
        "ts": 1000 + i,
        "dur": 1,
        "args": {"device": 0, "stream": 7, "correlation": 10_000 + i},
    }


def test_a_trace_with_more_events_than_the_limit_stops_with_one_line(tmp_path):
    path = _trace_file(tmp_path, [_kernel(i) for i in range(500)])
    line = assert_one_line_error(
        rooftui(tmp_path, "timeline", path, env={"ROOFTUI_MAX_TRACE_EVENTS": "400"}),
        "t.json",
        "more than 400 trace events",
        "ROOFTUI_MAX_TRACE_EVENTS",
    )
    assert "Traceback" not in line
    raised = rooftui(
        tmp_path,
        "timeline",
        path,
        "--format",
        "json",
        exact_stdout=True,
        env={"ROOFTUI_MAX_TRACE_EVENTS": "100000"},
    )
    assert raised.code == 0, raised.err


def test_flow_and_instant_events_do_not_count_against_the_limit(tmp_path):
    from tests.fuzz.generators import _trace

    kept = sum(e.get("ph") in ("X", "M") for e in _trace()["traceEvents"])
    flows = [
        {"ph": "s", "cat": "ac2g", "name": "f", "id": i, "pid": 0, "tid": 1, "ts": i} for i in range(300)
    ]
    path = _trace_file(tmp_path, flows)
    result = rooftui(tmp_path, "timeline", path, env={"ROOFTUI_MAX_TRACE_EVENTS": str(kept)})
    assert result.code == 0, result.err


def test_a_trace_of_distinct_giant_names_stops_at_the_name_limit(tmp_path, monkeypatch):
    from rooftui.timeline.readers import kineto

    monkeypatch.setattr(kineto, "MAX_NAME_CHARS", 10_000)
    path = _trace_file(tmp_path, [_kernel(i, f"{i}" + "n" * 200) for i in range(100)])
    assert_one_line_error(
        rooftui(tmp_path, "timeline", path), "t.json", "distinct event names or 10,000 characters of names"
    )


@pytest.mark.parametrize("where", ["tid", "thread name"])
def test_giant_thread_ids_and_names_count_against_the_name_limit(tmp_path, monkeypatch, where):
    from rooftui.timeline.readers import kineto

    monkeypatch.setattr(kineto, "MAX_NAME_CHARS", 10_000)
    if where == "tid":
        events = [
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "aten::add",
                "pid": 1,
                "tid": f"{i}" + "t" * 200,
                "ts": 1000 + i,
                "dur": 1,
            }
            for i in range(100)
        ]
    else:
        events = [
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": i, "args": {"name": "n" * 200}}
            for i in range(100)
        ]
    path = _trace_file(tmp_path, events)
    assert_one_line_error(rooftui(tmp_path, "timeline", path), "t.json", "10,000 characters of names")


def test_a_trace_of_many_distinct_short_names_stops_at_the_name_count(tmp_path, monkeypatch):
    from rooftui.timeline.readers import kineto

    monkeypatch.setattr(kineto, "MAX_NAMES", 150)
    path = _trace_file(tmp_path, [_kernel(i, f"k{i}") for i in range(200)])
    assert_one_line_error(rooftui(tmp_path, "timeline", path), "t.json", "more than 150 distinct event names")


def test_one_giant_event_stops_at_the_value_limit(tmp_path, monkeypatch):
    from rooftui.timeline.readers import json_stream

    monkeypatch.setattr(json_stream, "MAX_VALUE_CHARS", 50_000)
    giant = _kernel(0)
    giant["args"]["Input Dims"] = [[1.5] * 300_000]  # longer than one read of the stream
    path = _trace_file(tmp_path, [giant])
    assert_one_line_error(
        rooftui(tmp_path, "timeline", path), "t.json", "a single value runs past 50,000 characters"
    )


def test_top_level_values_besides_the_events_are_bounded_in_all(tmp_path, monkeypatch):
    from rooftui.timeline.readers import json_stream

    monkeypatch.setattr(json_stream, "MAX_OTHER_CHARS", 20_000)
    many = {f"key{i}": "v" * 1000 for i in range(30)}  # each small, together too much
    path = _trace_file(tmp_path, **many)
    assert_one_line_error(rooftui(tmp_path, "timeline", path), "t.json", "run past 20,000 characters")


def test_a_400_digit_device_name_loads_without_looking_up_a_file_too_long(tmp_path):
    # found as exit 1 (OSError ENAMETOOLONG looking for bundled ceilings named after the
    # device): seed 321, details-hostile-value in device__attribute_display_name
    def edit(header, rows):
        for row in rows[1:]:
            if row[header.index("Metric Name")] == "device__attribute_display_name":
                row[header.index("Metric Value")] = "9" * 400

    rows = base_rows(DETAILS)
    edit(rows[0], rows)
    path = write_rows(tmp_path / "d.csv", rows)
    result = rooftui(tmp_path, "summary", path, "--format", "json", exact_stdout=True)
    assert result.code == 0 and not result.problems, (result.problems, result.err)
    assert "9" * 400 in result.out  # JSON keeps the name exactly


# ---------------------------------------------------------------- compressed: end-of-stream marker


@functools.cache
def _whole_blocks_packed(suffix: str) -> bytes:
    """The known-answer report up to its last result's block header, compressed: one
    compression per container for the three cuts (the fastest level: the end-of-stream
    marker a cut removes is the same at every level)."""
    data = REPORT.read_bytes()
    whole_blocks = data[: _records(data)[-2][0]]  # up to the last result's block header
    compress = {
        ".xz": lambda raw: lzma.compress(raw, preset=0),
        ".gz": lambda raw: gzip.compress(raw, compresslevel=1),
        ".bz2": lambda raw: bz2.compress(raw, compresslevel=1),
    }[suffix]
    return compress(whole_blocks)


@pytest.mark.parametrize("suffix", [".xz", ".gz", ".bz2"])
@pytest.mark.parametrize("drop", [1, 4, 9])
def test_a_compressed_report_missing_its_last_bytes_says_truncated(tmp_path, suffix, drop):
    # Cut where the content itself is whole (after a whole .ncu-rep block, which the
    # report alone cannot tell): only the container's end-of-stream marker shows it.
    packed = _whole_blocks_packed(suffix)
    (tmp_path / f"r.ncu-rep{suffix}").write_bytes(packed[:-drop])
    assert_one_line_error(
        rooftui(tmp_path, "summary", tmp_path / f"r.ncu-rep{suffix}"), f"r.ncu-rep{suffix}", "truncated"
    )


# ---------------------------------------------------------------- round 6 (seed 8000)

_PLOT_THEN_LIST_MODULES = """
import json, sys
from rooftui.cli import main
for argv in json.loads(sys.argv[1]):
    try:
        main(argv)
    except SystemExit as exit_:
        print(exit_.code, sorted(m for m in sys.modules if m.split(".")[0] == "matplotlib")[:1])
    print(file=sys.stderr)  # each run's stderr ends at a blank line
"""


def test_plot_of_a_bad_export_refuses_before_matplotlib_is_imported(tmp_path):
    # seed 8000, header-below-data through `plot --svg --csv`: the error took two lines, as a
    # first import of matplotlib built its font cache in the run's XDG_CACHE_HOME and, on a
    # loaded machine (over 5 s), printed "Matplotlib is building the font cache" on stderr.
    # Both ways of asking for a figure run in one fresh interpreter, one after the other.
    rows = base_rows()
    path = write_rows(tmp_path / "moved.csv", [rows[2], rows[0], rows[1], *rows[3:]])
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "MPLCONFIGDIR": ""}
    runs = [["--svg", "r.svg"], ["--png", "r.png", "--csv", "r.csv"]]
    run = subprocess.run(
        [sys.executable, "-c", _PLOT_THEN_LIST_MODULES, json.dumps([["plot", str(path), *a] for a in runs])],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert run.stdout.splitlines() == ["2 []"] * len(runs), (run.stdout, run.stderr)
    errors = run.stderr.split("\n\n")
    assert len(errors) == len(runs) + 1 and errors[-1] == "", run.stderr
    for argv, error in zip(runs, errors):
        assert error.count("\n") == 0 and "above the header line" in error, (argv, error)
    assert not any(tmp_path.glob("r.*"))


@pytest.mark.parametrize("command", ["plot", "advise"])
def test_a_figure_without_a_usable_matplotlib_is_one_line(tmp_path, monkeypatch, command):
    # matplotlib is looked up before loading, imported only to draw: an install that is
    # found but cannot be imported still ends in one line naming the extra, not exit 1
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # the import fails
    report = tmp_path / "run.csv"
    report.write_bytes(BASE.read_bytes())
    option = "--svg" if command == "plot" else "--figure"
    result = rooftui(tmp_path, command, report, option, tmp_path / "out" / "figure.svg")
    assert_one_line_error(result, "needs matplotlib", "rooftui[plot]")
