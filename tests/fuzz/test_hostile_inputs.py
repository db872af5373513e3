"""One named regression test per failure class of issue #15 (hostile and damaged input).

Each runs the real CLI entry point in-process with the fuzz runner's checks: exit code
0 or 2, one line per error, no raw escape bytes, inputs unchanged, nothing left behind.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import math
import os
import shutil
import stat
from pathlib import Path

import pytest

from rooftui.errors import InputError
from rooftui.ingest.files import open_text
from rooftui.ingest.raw_csv import read_raw_csv
from tests.fuzz.generators import record_offsets
from tests.fuzz.helpers import (
    BASE,
    DETAILS,
    REPORT,
    TIME,
    assert_clean,
    assert_one_line_error,
    base_rows,
    edited_base,
    rooftui,
    write_rows,
)

OSC52 = "evil\x1b]52;c;cm0gLXJmIH4=\x07(int)"
CEILINGS = BASE.parents[1] / "ceilings" / "h200.json"


def _named(folder, name):
    def edit(header, rows):
        rows[2][header.index("Kernel Name")] = name

    return edited_base(folder, edit)


# ---------------------------------------------------------------- escape codes and markup


def test_summary_table_shows_an_osc52_kernel_name_escaped(tmp_path):
    result = rooftui(tmp_path, "summary", _named(tmp_path, OSC52))
    assert_clean(result)
    assert "evil\\e]52;c;cm0gLXJmIH4=" in result.out
    assert "\x1b" not in result.out


def test_summary_table_shows_rich_markup_in_names_literally(tmp_path):
    # three launches renamed in one export, one table: markup read as markup would be a
    # MarkupError (exit 1) or a name shown without its brackets
    names = ["[lambda(int) (instance 1)]", "a[/x]b", "[bold]x[/bold]"]

    def edit(header, rows):
        for row, name in zip(rows[2:], names):
            row[header.index("Kernel Name")] = name

    result = rooftui(tmp_path, "summary", edited_base(tmp_path, edit), "--top", "40")
    assert_clean(result)
    for name in names:
        assert name in result.out, name


def test_diff_shows_hostile_names_escaped_and_literally(tmp_path):
    a = _named(tmp_path, OSC52 + "[/x]")
    result = rooftui(tmp_path, "diff", a, BASE)
    assert_clean(result)
    assert "\x1b" not in result.out and "[/x]" in result.out


def test_json_and_csv_keep_the_exact_name(tmp_path):
    path = _named(tmp_path, OSC52)
    as_json = rooftui(tmp_path, "summary", path, "--format", "json", exact_stdout=True)
    assert_clean(as_json)
    assert OSC52 in [k["demangled"] for k in json.loads(as_json.out)["kernels"]]
    as_csv = rooftui(tmp_path, "summary", path, "--format", "csv", exact_stdout=True)
    assert "\x1b]52" in as_csv.out


def test_a_newline_in_a_file_name_keeps_the_error_on_one_line(tmp_path):
    path = tmp_path / "bad\nname\x1b[2J.csv"
    path.write_text("x")
    line = assert_one_line_error(rooftui(tmp_path, "summary", path), "bad\\nname\\e[2J.csv")
    assert "\x1b" not in line


def test_timeline_shows_hostile_trace_names_escaped(tmp_path):
    from tests.fuzz.generators import _trace

    doc = _trace()
    doc["traceEvents"][-2]["name"] = "kernel\x1b]0;title\x07[/x]"
    (tmp_path / "t.json").write_text(json.dumps(doc))
    result = rooftui(tmp_path, "timeline", tmp_path / "t.json")
    assert_clean(result)


def test_measure_show_escapes_ceiling_and_device_names(tmp_path):
    doc = json.loads(CEILINGS.read_text())
    doc["device"]["name"] = "GPU\x1b]52;c;aGk=\x07[/x]"
    doc["ceilings"][0]["name"] = "L1\x1b[31m[/bold]"
    (tmp_path / "c.json").write_text(json.dumps(doc))
    result = rooftui(tmp_path, "measure", "--show", tmp_path / "c.json")
    assert_clean(result)
    assert "GPU\\e]52" in result.out


# ---------------------------------------------------------------- tracebacks become one line


@pytest.mark.parametrize(
    "suffix,compress", [(".xz", lzma.compress), (".gz", gzip.compress), (".bz2", bz2.compress)]
)
def test_a_truncated_compressed_csv_says_truncated_on_one_line(tmp_path, suffix, compress):
    packed = compress(BASE.read_bytes())
    path = tmp_path / f"cut.csv{suffix}"
    path.write_bytes(packed[: len(packed) // 2])
    assert_one_line_error(rooftui(tmp_path, "summary", path), f"cut.csv{suffix}", "truncated")


@pytest.mark.parametrize("suffix", [".xz", ".gz", ".bz2"])
def test_a_damaged_or_plain_file_named_compressed_is_one_line(tmp_path, suffix):
    path = tmp_path / f"plain.csv{suffix}"
    shutil.copy(BASE, path)
    assert_one_line_error(rooftui(tmp_path, "summary", path), f"plain.csv{suffix}", "not a valid")


def test_a_duplicated_header_is_refused(tmp_path):
    def edit(header, rows):
        for row in rows:
            row.insert(5, row[4])

    assert_one_line_error(
        rooftui(tmp_path, "summary", edited_base(tmp_path, edit)), "column 'Kernel Name' twice"
    )


def test_a_prof_line_inside_the_table_is_refused(tmp_path):
    lines = BASE.read_text().splitlines(keepends=True)
    lines.insert(6, "==PROF== Connected to process 1\n")
    (tmp_path / "p.csv").write_text("".join(lines))
    assert_one_line_error(rooftui(tmp_path, "summary", tmp_path / "p.csv"), "ncu message line")


@pytest.mark.parametrize("bad_id", ["", "x", "1.5", "-1", "9" * 40])
def test_an_id_that_is_no_launch_number_is_refused(tmp_path, bad_id):
    def edit(header, rows):
        rows[3][header.index("ID")] = bad_id

    assert_one_line_error(rooftui(tmp_path, "summary", edited_base(tmp_path, edit)), "table row 2")


def test_odd_cc_and_400_digit_stream_are_left_blank_with_notes(tmp_path):
    def edit(header, rows):
        rows[2][header.index("CC")] = "9.0.1"
        rows[3][header.index("Stream")] = "9" * 400

    result = rooftui(tmp_path, "summary", edited_base(tmp_path, edit), "--format", "json", exact_stdout=True)
    assert_clean(result)
    assert "CC: 1 value(s)" in result.err and "stream: 1 value(s)" in result.err


def test_an_empty_kernel_name_loads(tmp_path):
    assert_clean(rooftui(tmp_path, "summary", _named(tmp_path, "")))


def test_a_details_export_without_kernel_name_or_unit_names_the_column(tmp_path):
    rows = base_rows(DETAILS)
    for column in ("Kernel Name", "Metric Unit"):
        j = rows[0].index(column)
        path = write_rows(tmp_path / f"no-{column[:6]}.csv", [r[:j] + r[j + 1 :] for r in rows])
        assert_one_line_error(rooftui(tmp_path, "summary", path), f"without the {column} column")


def test_skip_invalid_when_every_kernel_is_invalid_is_one_line(tmp_path):
    def edit(header, rows):
        for row in rows[2:]:
            row[header.index(TIME)] = "0"

    assert_one_line_error(rooftui(tmp_path, "summary", edited_base(tmp_path, edit), "--skip-invalid"))


def test_a_field_over_128_kib_loads(tmp_path):
    result = rooftui(tmp_path, "summary", _named(tmp_path, "k" * 200_000))
    assert_clean(result)


@pytest.mark.parametrize(
    "text",
    [
        '{"schema": "rooftui.ceilings/1", "ceilings": ' + "[" * 1000 + "]" * 1000 + "}",
        '{"schema": "rooftui.ceilings/1", "ceilings": [{"kind": "bandwidth", "level": "hbm", "value": '
        + "9" * 5000
        + "}]}",
        '{"schema": "rooftui.ceilings/1", "device": [], "ceilings": []}',
        '{"schema": "rooftui.ceilings/1", "ceilings": [{"kind": "compute", "precision": 7, "value": 1}]}',
        '{"empirical": {"gbytes": {"data": [["L1"]]}, "gflops": {"data": 5}}}',
    ],
)
def test_malformed_ceilings_are_one_line(tmp_path, text):
    (tmp_path / "c.json").write_text(text)
    assert_one_line_error(rooftui(tmp_path, "summary", BASE, "--ceilings", tmp_path / "c.json"), "c.json")
    assert_one_line_error(rooftui(tmp_path, "measure", "--show", tmp_path / "c.json"), "c.json")


@pytest.mark.parametrize("value", [0, -1, "NaN", "Infinity", "true", '"12"', "1e999"])
def test_zero_negative_nan_boolean_and_string_ceilings_are_refused(tmp_path, value):
    text = CEILINGS.read_text().replace("32136010680579.445", str(value), 1)
    (tmp_path / "c.json").write_text(text)
    assert_one_line_error(
        rooftui(tmp_path, "summary", BASE, "--ceilings", tmp_path / "c.json"), "ceilings[0].value"
    )
    ert = json.loads((CEILINGS.parent / "h200.roofline.json").read_text())
    (tmp_path / "ert.json").write_text(json.dumps(ert).replace("32136.010680579446", str(value), 1))
    assert_one_line_error(
        rooftui(tmp_path, "summary", BASE, "--ceilings", tmp_path / "ert.json"), "empirical.gbytes.data[0][1]"
    )


def test_measure_show_on_non_utf8_and_non_positive_curves_is_one_line(tmp_path):
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe{\x00")
    assert_one_line_error(rooftui(tmp_path, "measure", "--show", tmp_path / "bin.json"))
    for bad in ("0", "-5", "Infinity"):
        doc = CEILINGS.read_text().replace("2162688", bad, 1)
        (tmp_path / "c.json").write_text(doc)
        assert_one_line_error(rooftui(tmp_path, "measure", "--show", tmp_path / "c.json"), "c.json")


def _trace_with(tmp_path, change):
    from tests.fuzz.generators import _trace

    doc = _trace()
    change(doc["traceEvents"])
    (tmp_path / "t.json").write_text(json.dumps(doc))
    return tmp_path / "t.json"


@pytest.mark.parametrize(
    "field,value", [("name", 7), ("name", None), ("ts", 2**63), ("dur", 2**64), ("dur", -1e9), ("dur", 1e15)]
)
def test_trace_events_with_bad_fields_are_skipped(tmp_path, field, value):
    def change(events):
        kernels = [e for e in events if e.get("cat") == "kernel"]
        kernels[0][field] = value

    result = rooftui(
        tmp_path, "timeline", _trace_with(tmp_path, change), "--format", "json", exact_stdout=True
    )
    assert_clean(result)
    doc = json.loads(result.out)
    shares = [v for k, v in _walk(doc) if "idle_share" in k]
    assert shares and all(0 <= s <= 1 for s in shares)


def _walk(node, key=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v, key)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield key, node


def test_zero_length_profiler_steps_do_not_divide_by_zero(tmp_path):
    def change(events):
        for e in events:
            if str(e.get("name")).startswith("ProfilerStep"):
                e["dur"] = 0

    assert_clean(rooftui(tmp_path, "timeline", _trace_with(tmp_path, change)))


def test_trace_nested_5000_deep_is_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"traceEvents": [' + "[" * 5000 + "]" * 5000 + "]}")
    result = rooftui(tmp_path, "timeline", path)
    assert result.code in (0, 2)
    assert_clean(result)


def test_a_path_over_255_bytes_is_one_line(tmp_path):
    assert_one_line_error(rooftui(tmp_path, "summary", tmp_path / ("a" * 300 + ".csv")), "too long")


def test_an_invalid_phase_pattern_is_one_line(tmp_path):
    assert_one_line_error(rooftui(tmp_path, "summary", BASE, "--phase", "x=["), "--phase x=[")


# ---------------------------------------------------------------- silent damage


def test_one_bad_cell_blanks_that_cell_only_and_says_where(tmp_path):
    def edit(header, rows):
        rows[4][header.index("dram__bytes.sum")] = "garbage"

    path = edited_base(tmp_path, edit)
    report = read_raw_csv(path)
    hbm = report.kernels["dram__bytes.sum"]
    assert math.isnan(hbm.iloc[2]) and hbm.notna().sum() == len(hbm) - 1
    assert any("dram__bytes.sum" in n and "ID 2" in n and "garbage" in n for n in report.notes)


def test_negative_and_infinite_counters_are_blanked_with_a_note(tmp_path):
    def edit(header, rows):
        rows[2][header.index("dram__bytes.sum")] = "-5"
        rows[3][header.index("lts__t_bytes.sum")] = "inf"

    report = read_raw_csv(edited_base(tmp_path, edit))
    assert math.isnan(report.kernels["dram__bytes.sum"].iloc[0])
    assert math.isnan(report.kernels["lts__t_bytes.sum"].iloc[1])
    assert sum("no count left blank" in n for n in report.notes) == 2


def test_an_unknown_unit_is_an_error_in_both_csv_readers(tmp_path):
    (tmp_path / "d.csv").write_text(DETAILS.read_text().replace('"ns"', '"furlong"'))
    assert_one_line_error(rooftui(tmp_path, "summary", tmp_path / "d.csv"), "'furlong'")
    scaled = BASE.parent / "known_answer.raw.csv"
    (tmp_path / "r.csv").write_text(scaled.read_text().replace('"ms"', '"furlong"'))
    assert_one_line_error(rooftui(tmp_path, "summary", tmp_path / "r.csv"), "'furlong'")


def test_a_duplicated_row_is_refused_not_counted_twice(tmp_path):
    def edit(header, rows):
        rows.insert(5, list(rows[5]))

    assert_one_line_error(
        rooftui(tmp_path, "summary", edited_base(tmp_path, edit)), "appears in more than one row"
    )


def test_a_details_export_cut_at_a_row_boundary_says_truncated(tmp_path):
    lines = DETAILS.read_text().splitlines(keepends=True)
    (tmp_path / "cut.csv").write_text("".join(lines[:-3]))
    assert_one_line_error(rooftui(tmp_path, "summary", tmp_path / "cut.csv"), "truncated", "metric rows")


def test_a_raw_export_missing_rows_in_the_middle_says_so(tmp_path):
    def edit(header, rows):
        del rows[5]

    result = rooftui(tmp_path, "summary", edited_base(tmp_path, edit))
    assert_clean(result)
    assert "launch IDs go from 2 to 4" in result.err


def test_an_ncu_rep_cut_right_after_a_record_header_says_truncated(tmp_path):
    data = REPORT.read_bytes()
    offsets = record_offsets(data)
    # the last record is a result; the one before it is its header
    (tmp_path / "cut.ncu-rep").write_bytes(data[: offsets[-1]])
    assert_one_line_error(rooftui(tmp_path, "summary", tmp_path / "cut.ncu-rep"), "truncated", "announces")


# ---------------------------------------------------------------- memory and time


def test_a_csv_decompression_bomb_stops_at_the_cap(tmp_path):
    bomb = lzma.compress(BASE.read_bytes() + b"\n" * (8 << 20), preset=0)  # any level: a few KB
    (tmp_path / "bomb.csv.xz").write_bytes(bomb)
    assert_one_line_error(
        rooftui(tmp_path, "summary", tmp_path / "bomb.csv.xz"),
        "more than 2,097,152 bytes",
        "ROOFTUI_MAX_INPUT_BYTES",
    )


def test_a_line_without_newline_stops_at_the_line_cap(tmp_path, monkeypatch):
    import rooftui.ingest.files as files

    monkeypatch.setattr(files, "MAX_LINE_BYTES", 1 << 16)
    path = tmp_path / "long.csv"
    path.write_bytes(BASE.read_bytes() + b"x" * (1 << 18))
    with pytest.raises(Exception, match="line longer than 65,536 bytes"):
        with open_text(path) as handle:
            handle.read()


def test_a_ceilings_whitespace_bomb_stops_at_the_cap(tmp_path):
    (tmp_path / "c.json.gz").write_bytes(gzip.compress(b" " * (6 << 20) + b"{}"))
    assert_one_line_error(
        rooftui(tmp_path, "summary", BASE, "--ceilings", tmp_path / "c.json.gz"), "more than"
    )


def test_an_ncu_rep_of_empty_records_stops_at_the_record_cap(tmp_path):
    (tmp_path / "bomb.ncu-rep.xz").write_bytes(lzma.compress(b"NVR\0" + b"\0" * (4 * 1_100_000), preset=0))
    assert_one_line_error(
        rooftui(
            tmp_path, "summary", tmp_path / "bomb.ncu-rep.xz", env={"ROOFTUI_MAX_INPUT_BYTES": str(8 << 20)}
        ),
        "more than 1,000,000 records",
    )


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/proc/self/status"])
def test_pipes_devices_and_proc_files_are_refused_up_front(tmp_path, special):
    if special == "fifo":
        special = tmp_path / "pipe.csv"
        os.mkfifo(special)
    for argv in (
        ["summary", special],
        ["measure", "--show", special],
        ["timeline", special],
        ["summary", BASE, "--ceilings", special],
    ):
        assert_one_line_error(rooftui(tmp_path, *argv), "not a regular file")


def test_a_report_in_shared_memory_is_a_file_like_any_other(tmp_path):
    """/dev/shm is tmpfs: its files are regular files, a usual place for scratch copies
    (was refused as a device, seen on the GPU machine)."""
    from rooftui.ingest.files import _check_regular

    _check_regular(Path("/dev/shm/rank0.ncu-rep"), stat.S_IFREG)  # no error
    with pytest.raises(InputError, match="not a regular file"):
        _check_regular(Path("/dev/zero"), stat.S_IFREG)
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):  # through the CLI where the machine has one
        copy = shm / f"rooftui-test-{os.getpid()}.raw-base.csv"
        shutil.copy(BASE, copy)
        try:
            result = rooftui(tmp_path, "summary", copy)
            assert (result.code, result.problems) == (0, []), result.err
            assert "daxpy" in result.out
        finally:
            copy.unlink()


# ---------------------------------------------------------------- outputs


def test_plot_never_writes_over_its_input(tmp_path):
    path = tmp_path / "in.csv"
    shutil.copy(BASE, path)
    assert_one_line_error(rooftui(tmp_path, "plot", path, "--csv", path), "one of this command's inputs")
    assert path.read_bytes() == BASE.read_bytes()


@pytest.mark.parametrize(
    "target,words", [("{dir}/missing/x.csv", "no such folder"), ("/dev/full", "no space left")]
)
def test_plot_into_a_missing_folder_or_a_full_device_is_one_line(tmp_path, target, words):
    shutil.copy(BASE, tmp_path / "in.csv")
    assert_one_line_error(
        rooftui(tmp_path, "plot", tmp_path / "in.csv", "--csv", target.replace("{dir}", str(tmp_path))), words
    )


def test_plot_writes_all_outputs_or_none(tmp_path):
    shutil.copy(BASE, tmp_path / "in.csv")
    result = rooftui(
        tmp_path,
        "plot",
        tmp_path / "in.csv",
        "--svg",
        tmp_path / "out" / "a.svg",
        "--csv",
        tmp_path / "missing" / "b.csv",
    )
    assert result.code == 2 and not list((tmp_path / "out").iterdir())


def test_svg_text_is_made_valid_xml(tmp_path):
    from xml.etree import ElementTree

    from rooftui.cli.outputs import make_xml_valid

    path = tmp_path / "x.svg"
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg"><text>a\x1b]52;c;x\x07b</text></svg>')
    make_xml_valid(path)
    assert ElementTree.parse(path).getroot()[0].text == "a\\x1b]52;c;x\\x07b"


# ---------------------------------------------------------------- misleading messages


@pytest.mark.parametrize(
    "change",
    [
        lambda data: b"\xef\xbb\xbf" + data,  # a UTF-8 BOM
        lambda data: data.rstrip(b"\n"),  # no final newline
        lambda data: data + b"==PROF== Disconnected from process 548\n",  # a trailing ncu line
        lambda data: data.replace(b"\n", b"\r\n"),  # CRLF
    ],
)
def test_harmless_variations_of_an_export_load_whole(tmp_path, change):
    (tmp_path / "v.csv").write_bytes(change(BASE.read_bytes()))
    result = rooftui(tmp_path, "summary", tmp_path / "v.csv", "--format", "json", exact_stdout=True)
    assert_clean(result)
    assert json.loads(result.out)["summary"]["kernels"] == 15


# ---------------------------------------------------------------- decompress once (#14 item 2)


def _many_launches(source, copies: int) -> bytes:
    """``source``'s launches repeated ``copies`` times with new, increasing IDs (> 1 MiB)."""
    rows = base_rows(source)
    header, first = rows[0], 2 if rows[1][0] == "" else 1
    id_column, body = header.index("ID"), rows[first:]
    out = rows[:first]
    launches = len({row[id_column] for row in body})
    for copy in range(copies):
        for row in body:
            out.append([*row[:id_column], str(int(row[id_column]) + copy * launches), *row[id_column + 1 :]])
    return "".join(",".join(f'"{cell}"' for cell in row) + "\n" for row in out).encode()


@pytest.mark.parametrize(
    "name,source,copies",
    [("a.raw.csv.xz", BASE, 30), ("a.details.csv.gz", DETAILS, 30), ("a.ncu-rep.bz2", REPORT, 0)],
)
def test_a_compressed_input_is_decompressed_whole_once_per_load(tmp_path, monkeypatch, name, source, copies):
    """Sniffing decompresses only the head; the whole file passes once (#14 item 2)."""
    import rooftui.ingest.files as files
    from rooftui.ingest import read_report

    content = _many_launches(source, copies) if copies else source.read_bytes()
    compressors = {  # the fastest level of each: what is read back is the same
        ".xz": lambda raw: lzma.compress(raw, preset=0),
        ".gz": lambda raw: gzip.compress(raw, compresslevel=1),
        ".bz2": lambda raw: bz2.compress(raw, compresslevel=1),
    }
    path = tmp_path / name
    path.write_bytes(compressors[path.suffix](content))
    streams = {}  # each decompressing stream: the bytes it gave
    original = files._GuardedStream.readinto

    def counting(self, buffer):
        n = original(self, buffer)
        streams[id(self)] = self.read_bytes
        return n

    monkeypatch.setattr(files._GuardedStream, "readinto", counting)
    read_report(path)
    assert len(content) > 1 << 20 or not copies
    whole = [n for n in streams.values() if n == len(content)]
    assert len(whole) == 1  # the whole file once
    assert sum(streams.values()) < len(content) + (1 << 20)  # the rest: heads only
