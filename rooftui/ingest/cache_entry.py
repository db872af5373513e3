"""The bytes of one report-cache entry: the one format a read report travels in.

The ``.ncu-rep`` reader child (``_ncu_rep_worker``) writes a report it read in this
format, and the parent only decodes it (``rooftui.ingest.cache``), whether the entry
was written a moment ago or on an earlier day; CSV reports are written in it by the
parent. The layout depends on no library version (the child has no pandas):

    MAGIC | CRC-32 of the rest (uint32) | header length (uint64) | header | data

integers little-endian; the header is JSON -- ``{"key", "format", "exact", "notes",
"rows", "columns"}``, one record per column: ``{"name", "kind", "offset", "length"}``,
text columns with their ``"values"`` inline, and ``"dtype"`` where the parent encoded a
pandas column (the type to give it back). Column kinds and their bytes in ``data``:

    float64      rows x IEEE double, little-endian
    int64        rows x int64, little-endian
    bool         rows x one byte, 0 or 1
    int64+mask   rows x int64 (0 where missing), then rows x one byte: 1 = missing
    text         no bytes; the values (str, None or numbers) in the header

``decode`` checks everything before anything is trusted -- the magic, the CRC, the
header's fields and types, and that every column lies inside the data with the length
``rows`` gives it -- and raises ``EntryError`` otherwise: whoever reads an entry drops
it and reads the report anew. An entry of another layout has another ``MAGIC``.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from typing import IO

MAGIC = b"rooftui-report-cache/2\n"  # the layout's version: bump it with the layout
# Bytes per row of each kind with bytes in ``data``.
WIDTH = {"float64": 8, "int64": 8, "bool": 1, "int64+mask": 9}
TEXT = "text"
_TEXT_VALUES = (str, int, float, bool, type(None))
_PREFIX = len(MAGIC) + 4 + 8  # magic, CRC, header length


class EntryError(ValueError):
    """Bytes that are not a whole, consistent entry of this layout."""


@dataclass
class Column:
    """One column of a report: its bytes (``WIDTH`` kinds) or its values (``TEXT``)."""

    name: str
    kind: str
    data: bytes | memoryview = b""
    values: list | None = None
    dtype: str | None = None  # the pandas dtype it came from, where a frame was encoded


@dataclass
class Entry:
    """What an entry holds: a RawReport's fields and columns, and the key it was made for."""

    key: str
    format: str
    exact: bool
    rows: int
    columns: list[Column]
    notes: list[str] = field(default_factory=list)

    def size(self) -> int:
        """The entry's length in bytes once written."""
        return _PREFIX + len(self._header()) + sum(len(c.data) for c in self.columns)

    def write(self, out: IO[bytes]) -> None:
        """Write the entry to ``out`` (a file opened for writing, positioned at its start)."""
        header = self._header()
        body = [len(header).to_bytes(8, "little"), header, *(c.data for c in self.columns if c.data)]
        crc = 0
        for part in body:
            crc = zlib.crc32(part, crc)
        out.write(MAGIC + crc.to_bytes(4, "little"))
        for part in body:
            out.write(part)

    def _header(self) -> bytes:
        records, offset = [], 0
        for column in self.columns:
            record: dict = {
                "name": column.name,
                "kind": column.kind,
                "offset": offset,
                "length": len(column.data),
            }
            if column.kind == TEXT:
                record["values"] = column.values
            if column.dtype is not None:
                record["dtype"] = column.dtype
            records.append(record)
            offset += len(column.data)
        header = {
            "key": self.key,
            "format": self.format,
            "exact": self.exact,
            "notes": self.notes,
            "rows": self.rows,
            "columns": records,
        }
        return json.dumps(header, allow_nan=True).encode()


def decode(blob: bytes, key: str) -> Entry:
    """The entry in ``blob``, made for ``key``; numeric columns' ``data`` are views into
    ``blob``. Raises EntryError for anything but a whole, consistent entry."""
    if not blob.startswith(MAGIC):
        raise EntryError("not a rooftui cache entry of this layout")
    if len(blob) < _PREFIX:
        raise EntryError("cut short")
    body = memoryview(blob)[len(MAGIC) + 4 :]
    if zlib.crc32(body) != int.from_bytes(blob[len(MAGIC) : len(MAGIC) + 4], "little"):
        raise EntryError("damaged entry (CRC)")
    length = int.from_bytes(body[:8], "little")
    if length > len(body) - 8:
        raise EntryError("header longer than the entry")
    try:
        header = json.loads(bytes(body[8 : 8 + length]))
    except (ValueError, RecursionError) as err:
        raise EntryError(f"header is not JSON ({err})") from None
    data = body[8 + length :]
    entry = _entry_of(header, len(data), key)
    for column, record in zip(entry.columns, header["columns"]):
        if column.kind != TEXT:
            column.data = data[record["offset"] : record["offset"] + record["length"]]
    return entry


def _entry_of(header: object, data_bytes: int, key: str) -> Entry:
    """The Entry a decoded header describes (numeric data not attached yet), every field
    checked: its type, and each column inside ``data_bytes`` with the length ``rows`` gives."""
    if not isinstance(header, dict):
        raise EntryError("header is not an object")
    if header.get("key") != key:
        raise EntryError("another report's entry")
    kind, exact, notes, rows, records = (
        header.get(k) for k in ("format", "exact", "notes", "rows", "columns")
    )
    if not (isinstance(kind, str) and isinstance(exact, bool) and isinstance(notes, list)):
        raise EntryError("header fields of the wrong type")
    if not all(isinstance(note, str) for note in notes):
        raise EntryError("a note that is not text")
    if type(rows) is not int or rows < 0 or not isinstance(records, list) or not records:
        raise EntryError("no row count or no columns")
    columns, names, end = [], set(), 0
    for record in records:
        column = _column_of(record, rows)
        if column.name in names:
            raise EntryError(f"column {column.name!r} twice")
        names.add(column.name)
        if column.kind != TEXT:
            if record["offset"] != end:  # the columns' bytes follow each other, in order
                raise EntryError(f"column {column.name!r} not where the previous one ends")
            end += record["length"]
        columns.append(column)
    if end != data_bytes:
        raise EntryError(f"{data_bytes} bytes of data, the columns take {end}")
    return Entry(key, kind, exact, rows, columns, notes)


def _column_of(record: object, rows: int) -> Column:
    if not isinstance(record, dict):
        raise EntryError("a column record that is not an object")
    name, kind, dtype = record.get("name"), record.get("kind"), record.get("dtype")
    if not isinstance(name, str) or not (dtype is None or isinstance(dtype, str)):
        raise EntryError("a column without a name")
    offset, length = record.get("offset"), record.get("length")
    if type(offset) is not int or type(length) is not int:
        raise EntryError(f"column {name!r}: no offset or length")
    if kind == TEXT:
        values = record.get("values")
        if not isinstance(values, list) or len(values) != rows or length != 0:
            raise EntryError(f"text column {name!r} of the wrong length")
        if not all(isinstance(value, _TEXT_VALUES) for value in values):
            raise EntryError(f"text column {name!r} holds a list or an object")
        return Column(name, kind, values=values, dtype=dtype)
    if kind not in WIDTH:
        raise EntryError(f"column {name!r} of unknown kind {kind!r}")
    if length != rows * WIDTH[kind]:
        raise EntryError(f"column {name!r}: {length} bytes for {rows} rows of {kind}")
    return Column(name, kind, dtype=dtype)
