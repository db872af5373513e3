"""Issue #25: a CSV export of a million launches (under the 4 GiB input cap) is refused at
the table bound in one line, while it is read -- its rows are never all held in memory.

The bound is tested small (ROOFTUI_MAX_TABLE_CELLS, the parser's chunk of rows lowered), so
the tests stay fast; ``benchmarks/fuzz_run.py --bombs`` runs the 1 GiB bombs with the
defaults and measures each one's peak memory."""

from __future__ import annotations

import io

import pytest

from rooftui.errors import InputError
from rooftui.ingest import csv_structure
from rooftui.ingest.csv_structure import read_table
from tests.fuzz.bombs import CSV_BOMB_KINDS, csv_bomb
from tests.fuzz.helpers import BASE, assert_one_line_error, rooftui


@pytest.mark.parametrize("kind", [k for k in CSV_BOMB_KINDS if k != "raw-same-launch"])
def test_a_csv_bomb_is_refused_at_the_table_bound_in_one_line(tmp_path, kind):
    (tmp_path / "bomb.csv.gz").write_bytes(csv_bomb(kind, 4 << 20))
    result = rooftui(
        tmp_path,
        "summary",
        tmp_path / "bomb.csv.gz",
        env={"ROOFTUI_MAX_INPUT_BYTES": str(64 << 20), "ROOFTUI_MAX_TABLE_CELLS": "50000"},
    )
    assert_one_line_error(result, "bomb.csv.gz", "more than 50,000 cells", "ROOFTUI_MAX_TABLE_CELLS")


def test_a_bomb_of_one_launch_repeated_is_refused_at_its_second_row(tmp_path):
    (tmp_path / "bomb.csv.gz").write_bytes(csv_bomb("raw-same-launch", 4 << 20))
    result = rooftui(
        tmp_path, "summary", tmp_path / "bomb.csv.gz", env={"ROOFTUI_MAX_INPUT_BYTES": str(64 << 20)}
    )
    # found while reading (the line of the second row), not after the table is parsed
    assert_one_line_error(result, "ID 0 appears in more than one row", "again at line 4")


def test_the_table_bound_stops_reading_long_before_the_end(monkeypatch):
    monkeypatch.setattr(csv_structure, "_CHUNK_ROWS", 100)
    monkeypatch.setenv("ROOFTUI_MAX_TABLE_CELLS", "1000")  # 500 rows of the two columns
    text = "a,b\n" + "".join(f"{i},{i * 2}\n" for i in range(300_000))
    handle = io.StringIO(text)
    with pytest.raises(InputError, match=r"more than 1,000 cells .*\(600 rows so far\)"):
        read_table(handle, BASE, "hint")
    assert handle.tell() < len(text) // 4  # the parser had read a buffer or two, not the table


def test_a_table_within_the_bound_reads_whole_across_chunks(monkeypatch):
    monkeypatch.setattr(csv_structure, "_CHUNK_ROWS", 7)
    monkeypatch.setenv("ROOFTUI_MAX_TABLE_CELLS", "200")  # 100 rows of two columns: exactly
    text = "a,b\n" + "".join(f"{i},{'x' if i == 50 else i * 2}\n" for i in range(100))
    frame = read_table(io.StringIO(text), BASE, "hint")
    assert frame["a"].tolist() == list(range(100))  # every row once, in order
    # a bad cell is kept for the reader to judge (its chunk's column as text, as pandas reads it)
    assert [str(v) for v in frame["b"].tolist()[49:52]] == ["98", "x", "102"]


def test_the_known_answer_export_reads_the_same_in_chunks_of_one_row(tmp_path, monkeypatch):
    import json

    whole = rooftui(
        tmp_path, "summary", BASE, "--format", "json", exact_stdout=True, env={"ROOFTUI_NO_CACHE": "1"}
    )
    monkeypatch.setattr(csv_structure, "_CHUNK_ROWS", 1)
    chunked = rooftui(
        tmp_path, "summary", BASE, "--format", "json", exact_stdout=True, env={"ROOFTUI_NO_CACHE": "1"}
    )
    assert whole.code == chunked.code == 0, chunked.err
    assert json.loads(chunked.out)["kernels"] == json.loads(whole.out)["kernels"]
