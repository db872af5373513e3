"""The one format a read report travels in (``rooftui.ingest.cache_entry``): its bytes are
what the module's docstring says, every kind of column comes back exactly, and any
header that lies -- with a CRC that matches it -- is refused, never decoded into another
report. The answers are known by construction (values written, bytes packed by
``struct``), not taken from the code under test."""

from __future__ import annotations

import json
import math
import struct
import zlib

import numpy as np
import pandas as pd
import pytest

from rooftui.ingest.cache import ReportCache, decode_report, entry_of_report
from rooftui.ingest.cache_entry import MAGIC, Column, Entry, EntryError
from rooftui.ingest.parallel import read_paths
from tests.conftest import KNOWN

FLOATS = [-0.0, math.nan, 2.0**-1074]  # a signed zero, NaN, the smallest subnormal
INTS = [0, -1, 2**62 + 1]  # 2**62 + 1 is no double: int64 bytes, not floats


def sample_entry() -> Entry:
    columns = [
        Column("ncu_id", "int64", struct.pack("<3q", *INTS)),
        Column("t", "float64", struct.pack("<3d", *FLOATS)),
        Column("ok", "bool", bytes([1, 0, 1])),
        Column("stream", "int64+mask", struct.pack("<3q", 7, 0, 13) + bytes([0, 1, 0])),
        Column("kernel_name", "text", values=["a", None, "ç (3, 1, 1)"]),
    ]
    return Entry("k" * 40, "ncu-rep", True, 3, columns, ["a note"])


def written(entry: Entry, tmp_path) -> bytes:
    path = tmp_path / "entry"
    with open(path, "wb") as out:
        entry.write(out)
    return path.read_bytes()


def test_an_entry_is_laid_out_as_documented(tmp_path):
    data = written(sample_entry(), tmp_path)
    assert data.startswith(MAGIC) and MAGIC == b"rooftui-report-cache/2\n"
    rest = data[len(MAGIC) + 4 :]
    assert struct.unpack("<I", data[len(MAGIC) : len(MAGIC) + 4])[0] == zlib.crc32(rest)
    (length,) = struct.unpack("<Q", rest[:8])
    header = json.loads(rest[8 : 8 + length])
    assert header["key"] == "k" * 40 and header["rows"] == 3 and header["notes"] == ["a note"]
    assert [(c["name"], c["kind"], c["offset"], c["length"]) for c in header["columns"]] == [
        ("ncu_id", "int64", 0, 24),
        ("t", "float64", 24, 24),
        ("ok", "bool", 48, 3),
        ("stream", "int64+mask", 51, 27),
        ("kernel_name", "text", 78, 0),
    ]
    assert header["columns"][-1]["values"] == ["a", None, "ç (3, 1, 1)"]
    body = rest[8 + length :]
    assert body[:24] == struct.pack("<3q", *INTS)  # little-endian int64, whatever the machine
    assert body[24:48] == struct.pack("<3d", *FLOATS)
    assert len(body) == 78 and len(data) == sample_entry().size()


def test_every_column_kind_comes_back_exactly(tmp_path):
    report = decode_report(written(sample_entry(), tmp_path), "k" * 40)
    kernels = report.kernels
    assert (report.format, report.exact, report.notes) == ("ncu-rep", True, ["a note"])
    assert kernels["ncu_id"].dtype == np.int64 and kernels["ncu_id"].tolist() == INTS
    assert [struct.pack("<d", v) for v in kernels["t"]] == [struct.pack("<d", v) for v in FLOATS]
    assert kernels["ok"].tolist() == [True, False, True]
    assert str(kernels["stream"].dtype) == "Int64"
    assert kernels["stream"].isna().tolist() == [False, True, False]
    assert kernels["stream"].iloc[2] == 13
    assert kernels["kernel_name"].iloc[2] == "ç (3, 1, 1)" and kernels["kernel_name"].isna().iloc[1]
    # text the child wrote is typed as pandas types a list of it (as a frame built from lists)
    assert kernels["kernel_name"].dtype == pd.DataFrame({"n": ["a", None]})["n"].dtype


def test_a_csv_report_round_trips_through_the_format_with_its_pandas_types(tmp_path):
    (report,) = [r for (r,) in read_paths([KNOWN / "known_answer.raw.csv"], cache=False)]
    again = decode_report(written(entry_of_report(report, "key"), tmp_path), "key")
    pd.testing.assert_frame_equal(again.kernels, report.kernels, check_exact=True)
    assert (again.format, again.exact, again.notes) == (report.format, report.exact, report.notes)


def header_lies():
    """(what the lie is, how it changes the header): each must be refused."""
    column = lambda i, **kw: lambda h: h["columns"][i].update(kw)  # noqa: E731
    return {
        "rows more": lambda h: h.update(rows=4),
        "rows fewer": lambda h: h.update(rows=2),
        "rows negative": lambda h: h.update(rows=-1),
        "rows text": lambda h: h.update(rows="3"),
        "rows a float": lambda h: h.update(rows=3.0),
        "rows huge": lambda h: h.update(rows=10**15),
        "no columns": lambda h: h.update(columns=[]),
        "columns not a list": lambda h: h.update(columns={}),
        "a column not an object": lambda h: h["columns"].__setitem__(0, [5]),
        "format unknown": lambda h: h.update(format="x"),
        "format a number": lambda h: h.update(format=5),
        "exact not a bool": lambda h: h.update(exact=1),
        "notes not a list": lambda h: h.update(notes="a note"),
        "a note not text": lambda h: h.update(notes=[5]),
        "another key": lambda h: h.update(key="another"),
        "offset past the data": column(1, offset=10**15),
        "offset overlapping": column(1, offset=0),
        "length short": column(1, length=16),
        "length negative": column(0, length=-24),
        "kind unknown": column(1, kind="float32"),
        "kind of another width": column(2, kind="int64"),
        "mask of another width": column(3, kind="int64"),
        "text too short": column(4, values=["a", None]),
        "text holding a list": column(4, values=["a", [1], "b"]),
        "text with bytes": column(4, length=3),
        "a name not text": column(0, name=5),
        "a name twice": column(1, name="ncu_id"),
        "a pandas type it does not read back as": column(1, dtype="int64"),
        "no header": lambda h: h.clear(),
    }


@pytest.mark.parametrize("lie", list(header_lies()))
def test_a_header_that_lies_under_a_valid_crc_is_refused(lie, tmp_path):
    data = written(sample_entry(), tmp_path)
    rest = data[len(MAGIC) + 4 :]
    length = int.from_bytes(rest[:8], "little")
    header = json.loads(rest[8 : 8 + length])
    header_lies()[lie](header)
    new_header = json.dumps(header).encode()
    body = len(new_header).to_bytes(8, "little") + new_header + rest[8 + length :]
    lying = MAGIC + zlib.crc32(body).to_bytes(4, "little") + body
    with pytest.raises(EntryError):
        decode_report(lying, "k" * 40)


@pytest.mark.parametrize(
    "damage",
    ["cut in the prefix", "header length past the end", "old layout", "flag byte 2", "not JSON"],
)
def test_bytes_that_are_no_entry_are_refused(damage, tmp_path):
    data = written(sample_entry(), tmp_path)
    rest = data[len(MAGIC) + 4 :]
    if damage == "cut in the prefix":
        blob = data[: len(MAGIC) + 6]
    elif damage == "header length past the end":
        body = (len(rest) + 1).to_bytes(8, "little") + rest[8:]
        blob = MAGIC + zlib.crc32(body).to_bytes(4, "little") + body
    elif damage == "old layout":  # what rooftui wrote before this format: its magic had no version
        blob = b"rooftui-report-cache\n" + data[len(MAGIC) :]
    elif damage == "flag byte 2":  # the bool column's second byte
        length = int.from_bytes(rest[:8], "little")
        body = bytearray(rest)
        body[8 + length + 49] = 2
        blob = MAGIC + zlib.crc32(body).to_bytes(4, "little") + bytes(body)
    else:
        body = (3).to_bytes(8, "little") + b"{x}" + rest[8:]
        blob = MAGIC + zlib.crc32(body).to_bytes(4, "little") + body
    with pytest.raises(EntryError):
        decode_report(blob, "k" * 40)


def test_an_entry_of_the_old_layout_in_the_cache_is_dropped_and_replaced(tmp_path):
    report = KNOWN / "known_answer.raw.csv"
    store = ReportCache(tmp_path / "reports")
    (first,) = [r for (r,) in read_paths([report], cache=store)]
    (entry,) = store.directory.glob("*.report")
    new = entry.read_bytes()
    entry.write_bytes(b"rooftui-report-cache\n" + new[len(MAGIC) :])  # as an older rooftui wrote
    assert store.get(report) is None and not entry.exists()
    (again,) = [r for (r,) in read_paths([report], cache=store)]
    pd.testing.assert_frame_equal(again.kernels, first.kernels, check_exact=True)
    assert entry.read_bytes() == new
