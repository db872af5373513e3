"""Issue #25: the structure checks a human makes on an ncu CSV export (rooftui.ingest.
csv_structure), and the wrong "truncated" refusals of round three.

Each damaged file is built from the known-answer exports by the edit the issue names;
each answer is known by construction (the row that was shifted, the line that moved)."""

from __future__ import annotations

import lzma

import pytest

from rooftui.ingest.raw_csv import read_raw_csv
from tests.fuzz.helpers import (
    BASE,
    DETAILS,
    TIME,
    assert_one_line_error,
    base_rows,
    edited_base,
    rooftui,
    write_rows,
)

RAW_AUTO = BASE.with_name("known_answer.raw.csv")
DRAM_READ = "dram__bytes.sum"


def test_a_middle_row_with_one_field_too_few_is_refused_not_shifted(tmp_path):
    def drop_a_cell(header, rows):
        del rows[3][header.index("Grid Size")]  # every later cell of that row one column left

    result = rooftui(tmp_path, "summary", edited_base(tmp_path, drop_a_cell))
    assert_one_line_error(result, "line 4 has", "fields, the header", "wrong columns")


def test_a_middle_row_with_one_field_too_many_is_refused(tmp_path):
    def add_a_cell(header, rows):
        rows[3].insert(5, "x")

    assert_one_line_error(
        rooftui(tmp_path, "summary", edited_base(tmp_path, add_a_cell)), "line 4 has", "fields"
    )


def test_a_units_row_with_a_field_missing_is_refused(tmp_path):
    def shift_units(header, rows):
        del rows[1][3]

    assert_one_line_error(
        rooftui(tmp_path, "summary", edited_base(tmp_path, shift_units, source=RAW_AUTO)), "line 2 has"
    )


def test_a_raw_export_without_its_units_row_is_refused_not_read_as_base_units(tmp_path):
    def drop_units(header, rows):
        del rows[1]

    line = assert_one_line_error(
        rooftui(tmp_path, "summary", edited_base(tmp_path, drop_units, source=RAW_AUTO)), "no units row"
    )
    assert "row of empty cells" in line  # how a hand-made table declares base units


def test_a_units_row_of_empty_cells_declares_base_units(tmp_path):
    def empty_units(header, rows):
        rows[1] = [""] * len(header)

    report = read_raw_csv(edited_base(tmp_path, empty_units))
    expected = read_raw_csv(BASE)
    assert report.kernels[TIME].tolist() == expected.kernels[TIME].tolist()


def test_a_missing_first_launch_gets_the_ids_note(tmp_path):
    def drop_first(header, rows):
        del rows[2]

    report = read_raw_csv(edited_base(tmp_path, drop_first))
    assert any("launch IDs start at 1, not 0" in note for note in report.notes), report.notes


def test_a_header_line_below_data_rows_is_refused_not_dropping_them(tmp_path):
    rows = base_rows()
    moved = [rows[2], rows[3], rows[0], rows[1], *rows[4:]]
    path = write_rows(tmp_path / "moved.csv", moved)
    assert_one_line_error(
        rooftui(tmp_path, "summary", path), "line 1, above the header line", "row of the table"
    )


def test_the_header_repeated_inside_the_table_is_refused(tmp_path):
    rows = base_rows()
    path = write_rows(tmp_path / "twice.csv", [*rows, rows[0], rows[1], rows[2]])
    assert_one_line_error(rooftui(tmp_path, "summary", path), "repeats the header line")


def _details_rows():
    return base_rows(DETAILS)


def test_a_details_kernel_missing_a_metric_row_in_the_middle_gets_a_note_and_a_blank(tmp_path):
    from rooftui.ingest.details_csv import read_details_csv

    rows = _details_rows()
    header = rows[0]
    ids = [r[header.index("ID")] for r in rows[1:]]
    middle = sorted(set(ids), key=ids.index)[1]
    at = next(
        i
        for i, r in enumerate(rows)
        if r[header.index("ID")] == middle and r[header.index("Metric Name")] == DRAM_READ
    )
    del rows[at]
    report = read_details_csv(write_rows(tmp_path / "d.csv", rows))
    assert any(
        f"kernel ID {middle} lacks 1 of the first kernel's metric rows ({DRAM_READ})" in n
        for n in report.notes
    ), report.notes
    kernels = report.kernels.set_index("ncu_id")
    assert kernels[DRAM_READ].isna().tolist() == [i == int(middle) for i in kernels.index]


def test_a_last_row_over_64_kb_is_not_called_truncated(tmp_path):
    def long_name(header, rows):
        rows[-1][header.index("Kernel Name")] = "k" + "x" * (100 << 10)

    report = read_raw_csv(edited_base(tmp_path, long_name))
    assert len(report.kernels) == len(base_rows()) - 2


def test_a_quoted_newline_in_the_last_row_is_not_called_truncated(tmp_path):
    def newline(header, rows):
        rows[-1][header.index("Kernel Name")] = "kernel\nwith a newline"

    report = read_raw_csv(edited_base(tmp_path, newline))
    assert report.kernels["kernel_name"].iloc[-1] == "kernel\nwith a newline"


@pytest.mark.parametrize("source", [BASE, DETAILS], ids=["raw", "details"])
def test_a_cut_inside_the_last_field_says_so_and_names_the_right_page(tmp_path, source):
    text = source.read_text().rstrip("\n")
    path = tmp_path / ("cut.csv")
    path.write_text(text[:-2])  # inside the last quoted field
    line = assert_one_line_error(
        rooftui(tmp_path, "summary", path), "truncated", "ends inside a quoted field"
    )
    assert ("--page details" in line) == (source == DETAILS), line
    assert " of " not in line.split("—")[0] or "fields" not in line


def test_a_cut_inside_the_last_field_of_a_compressed_export_says_so(tmp_path):
    text = DETAILS.read_bytes().rstrip(b"\n")[:-2]
    path = tmp_path / "cut.details.csv.xz"
    path.write_bytes(lzma.compress(text))
    assert_one_line_error(rooftui(tmp_path, "summary", path), "ends inside a quoted field", "--page details")
