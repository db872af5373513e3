"""The record structure of an ``.ncu-rep`` file, checked as a stream in bounded time.

After the 4-byte signature ``NVR\\0`` a report is a chain of records, each a
little-endian uint32 length and that many bytes (protobuf messages). Records come in
pairs: a small header whose field 5 is the size of the record that follows it
(length prefix included), then that record (a result, a source dump, ...); headers
with field 5 = 0 carry their content inline. Observed on every report of ncu 2025.3
in this repository (sample_data, tests/ingest/data); where a file does not follow
the pairing the header check stops and only the chain itself is checked.

What this finds:
- a cut inside a record (the chain overruns the file);
- a cut exactly after a header, before the record it announces;
- far more records than any report has (a file of empty records, a bomb).
A cut exactly after a whole result leaves a valid chain with fewer kernels: the
format has no record count or trailer, so nothing can tell (said in the README).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rooftui.errors import InputError
from rooftui.ingest.files import compression, decompressed_copy

SIGNATURE = b"NVR\0"
# The DeepCAM AMP step (179 launches, 152 MB) has 513 records; 1M records is ~500k launches.
MAX_RECORDS = 1_000_000
_MAX_HEADER_BYTES = 1 << 20  # headers are tens of bytes to ~16 KB; larger ones are not parsed
_RERUN = "re-copy the report or re-run ncu"
_LENGTH = struct.Struct("<I")
_SEEK_PAST = 1 << 20  # records larger than this are skipped, not read, when checking in place


class RecordChain:
    """Feed a report's bytes in order (``feed``), then ``finish``; raises InputError."""

    def __init__(self, path: Path, max_records: int = MAX_RECORDS):
        self._path = path
        self._max_records = max_records
        self._start = b""  # the signature, while it is still arriving
        self.has_signature: bool | None = None
        self.size = 0
        self.records = 0
        self._prefix = b""
        self._remaining = -1  # bytes left in the current record's body; -1: between records
        self._header: bytearray | None = None
        self._announced: int | None = None  # length the next record must have
        self._paired = True  # the header/record pairing still holds

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        view = memoryview(chunk)
        if self.has_signature is None:
            need = 4 - len(self._start)
            self._start += bytes(view[:need])
            view = view[need:]
            if len(self._start) < 4:
                return
            self.has_signature = self._start == SIGNATURE
        if not self.has_signature:
            return
        i, n = 0, len(view)
        while i < n:
            if self._remaining < 0:
                if not self._prefix and n - i >= 4:  # the common case: the prefix is whole here
                    (length,) = _LENGTH.unpack_from(view, i)
                    i += 4
                    self._begin(length)
                    continue
                take = min(4 - len(self._prefix), n - i)
                self._prefix += bytes(view[i:i + take])
                i += take
                if len(self._prefix) == 4:
                    (length,) = _LENGTH.unpack(self._prefix)
                    self._prefix = b""
                    self._begin(length)
            else:
                take = min(self._remaining, n - i)
                if self._header is not None:
                    self._header += view[i:i + take]
                i += take
                self._remaining -= take
                if self._remaining == 0:
                    self._end()

    def walk(self, path: Path) -> None:
        """Check an uncompressed report in place: large records that are not headers are
        skipped by seeking (milliseconds for a report of hundreds of MB)."""
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            position = 0
            while position < size and self.has_signature is not False:
                if self._remaining > _SEEK_PAST and self._header is None:
                    skip = min(self._remaining, size - position)  # a cut file ends inside it
                    handle.seek(skip, os.SEEK_CUR)
                    position += skip
                    self.size += skip
                    self._remaining -= skip
                    if self._remaining == 0:
                        self._end()
                    continue
                chunk = handle.read(min(_SEEK_PAST, size - position))
                if not chunk:
                    break
                self.feed(chunk)
                position += len(chunk)

    def _begin(self, length: int) -> None:
        self.records += 1
        if self.records > self._max_records:
            raise InputError(f"more than {self._max_records:,} records, far more than any report "
                             "(not an ncu report, or a damaged one)", self._path, _RERUN)
        if self._announced is not None:
            self._paired = self._paired and length == self._announced
            self._announced, self._header = None, None
        else:
            self._header = bytearray() if self._paired and length <= _MAX_HEADER_BYTES else None
        self._remaining = length
        if length == 0:
            self._end()

    def _end(self) -> None:
        self._remaining = -1
        if self._header is not None:
            announced = _field_5(bytes(self._header))
            if announced:
                self._announced = announced - 4
            self._header = None

    def finish(self) -> bool:
        """Refuse a report cut short; return whether the file has ncu's signature."""
        if not self.has_signature:
            return False
        if self._remaining > 0 or self._prefix:
            raise InputError(f"the report is truncated ({self.size:,} bytes; it ends inside "
                             f"record {self.records:,})", self._path, _RERUN)
        if self._announced is not None and self._paired:
            raise InputError(f"the report is truncated ({self.size:,} bytes; its last record "
                             f"announces {self._announced:,} more)", self._path, _RERUN)
        return True


def _field_5(message: bytes) -> int | None:
    """The varint field 5 of a protobuf message, or None (absent, or not a message)."""
    i, n = 0, len(message)
    try:
        while i < n:
            key, i = _varint(message, i)
            field, wire = key >> 3, key & 7
            if wire == 0:
                value, i = _varint(message, i)
                if field == 5:
                    return value
            elif wire == 2:
                length, i = _varint(message, i)
                i += length
            elif wire == 1:
                i += 8
            elif wire == 5:
                i += 4
            else:
                return None
    except IndexError:
        return None
    return None


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80 or shift > 63:
            return value, i


@contextmanager
def checked_report(path: Path) -> Iterator[tuple[Path, bool]]:
    """The report as a plain file (a temporary decompressed copy if compressed), checked whole.

    Yields ``(file for ncu_report, has_signature)``. Decompresses at most once, checks the
    record chain during that one pass, deletes the copy afterwards (SIGTERM included).
    """
    chain = RecordChain(path)
    if compression(path) is None:
        chain.walk(path)
        yield path, chain.finish()
        return
    with decompressed_copy(path, suffix=".ncu-rep", inspect=chain.feed) as report:
        yield report, chain.finish()
