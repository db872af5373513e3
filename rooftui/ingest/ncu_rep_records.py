"""The record structure of an ``.ncu-rep`` file, checked as a stream in bounded time.

After the 4-byte signature ``NVR\\0`` a report is a chain of records, each a
little-endian uint32 length and that many bytes (protobuf messages): first the file
header, then blocks. A block is a header record -- NumSources (field 1), NumResults
(field 2), PayloadSize (field 5) -- and then its payload: NumSources + NumResults
records (sources, then results: one per profiled launch) whose sizes, length prefixes
included, add up to PayloadSize exactly. Seen on every report of ncu 2025.3 in this
repository, and how Extra-P's reader of the format (Kaitai description of
``nsight_cuprof_report``) reads it. Where a file does not follow this layout the block
checks stop and only the chain itself is checked.

What this finds:
- a cut inside a record (the chain overruns the file);
- a cut inside a block: after its header, or between two records of its payload;
- far more records than any report has (a file of empty records, a bomb);
and it counts the results the blocks hold, so that a reader that read fewer launches
than that (a result it could not parse, skipped) is caught by ``rooftui.ingest.ncu_rep``.
A cut exactly after a whole block leaves a valid report with fewer kernels: the format
has no block count or trailer (blocks run to the end of the file), so nothing can tell;
the README says so.
"""

from __future__ import annotations

import os
import re
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
_NOT_ZERO = re.compile(rb"[^\0]")
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
        self._header: bytearray | None = None  # a block header's bytes, while it arrives
        self._file_header = True  # the next record is the file header
        self._block_left = 0  # payload bytes the current block still announces
        self._entries_left = 0  # payload records it still announces
        self._block_results = 0
        self._blocks_hold = True  # every block so far had the layout above
        self._results = 0

    @property
    def results(self) -> int | None:
        """Results (profiled launches) in the blocks read; None where the layout is not known."""
        return self._results if self._blocks_hold else None

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
                    if length == 0 and not self._block_left and not self._file_header:
                        i = self._skip_empty_records(view, i, n)
                        continue
                    i += 4
                    self._begin(length)
                    continue
                take = min(4 - len(self._prefix), n - i)
                self._prefix += bytes(view[i : i + take])
                i += take
                if len(self._prefix) == 4:
                    (length,) = _LENGTH.unpack(self._prefix)
                    self._prefix = b""
                    self._begin(length)
            else:
                take = min(self._remaining, n - i)
                if self._header is not None:
                    self._header += view[i : i + take]
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

    def _skip_empty_records(self, view: memoryview, i: int, n: int) -> int:
        """Count the run of empty records from ``i`` (whole 4-byte zero lengths) and return
        where it ends. Between blocks an empty record is an empty block header (no sources,
        no results, no payload) or, once the layout is unknown, nothing: either way it
        changes nothing but the count, so a file of a million of them (a bomb, which the
        record cap is for) is counted in one step rather than a million."""
        end = _NOT_ZERO.search(view, i, n)
        run = ((end.start() if end else n) - i) // 4
        self._count(run)
        return i + 4 * run

    def _count(self, records: int) -> None:
        self.records += records
        if self.records > self._max_records:
            raise InputError(
                f"more than {self._max_records:,} records, far more than any report "
                "(not an ncu report, or a damaged one)",
                self._path,
                _RERUN,
            )

    def _begin(self, length: int) -> None:
        self._count(1)
        self._header = None
        if self._file_header:
            self._file_header = False
        elif self._block_left:  # a record of the current block's payload
            self._block_left -= 4 + length
            self._entries_left -= 1
            if self._block_left < 0 or self._entries_left < 0:
                self._blocks_hold = False  # the layout is not what we know: stop checking it
                self._block_left = self._entries_left = 0
            elif self._block_left == 0:
                self._close_block()
        elif self._blocks_hold and length <= _MAX_HEADER_BYTES:
            self._header = bytearray()
        else:
            self._blocks_hold = False
        self._remaining = length
        if length == 0:
            self._end()

    def _end(self) -> None:
        self._remaining = -1
        if self._header is None:
            return
        fields = _fields(bytes(self._header), (1, 2, 5))
        self._header = None
        if fields is None:
            self._blocks_hold = False
            return
        sources, results, payload = (fields.get(k, 0) for k in (1, 2, 5))
        if (payload == 0) != (sources + results == 0):  # records without bytes, or bytes without
            self._blocks_hold = False
            return
        # payload 0: the block's content is inline in its header
        self._block_left, self._entries_left, self._block_results = payload, sources + results, results

    def _close_block(self) -> None:
        if self._entries_left != 0:
            self._blocks_hold = False
            self._entries_left = 0
            return
        self._results += self._block_results

    def finish(self) -> bool:
        """Refuse a report cut short; return whether the file has ncu's signature."""
        if not self.has_signature:
            return False
        if self._remaining > 0 or self._prefix:
            raise InputError(
                f"the report is truncated ({self.size:,} bytes; it ends inside record {self.records:,})",
                self._path,
                _RERUN,
            )
        if self._block_left > 0 and self._blocks_hold:
            raise InputError(
                f"the report is truncated ({self.size:,} bytes; its last block "
                f"announces {self._block_left:,} more bytes in "
                f"{self._entries_left} more record(s))",
                self._path,
                _RERUN,
            )
        return True


def _fields(message: bytes, wanted: tuple[int, ...]) -> dict[int, int] | None:
    """The varint fields ``wanted`` of a protobuf message (absent ones left out), or None
    when the bytes are not a well-formed message."""
    found: dict[int, int] = {}
    i, n = 0, len(message)
    try:
        while i < n:
            key, i = _varint(message, i)
            field, wire = key >> 3, key & 7
            if wire == 0:
                value, i = _varint(message, i)
                if field in wanted:
                    found[field] = value
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
    return found if i == n else None


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
def checked_report(path: Path) -> Iterator[tuple[Path, RecordChain]]:
    """The report as a plain file (a temporary decompressed copy if compressed), checked whole.

    Yields ``(file for ncu_report, the finished chain)``: ``chain.has_signature``, and
    ``chain.results`` to hold the reader's launch count against. Decompresses at most once, checks the
    record chain during that one pass, deletes the copy afterwards (SIGTERM included).
    """
    chain = RecordChain(path)
    if compression(path) is None:
        chain.walk(path)
        chain.finish()
        yield path, chain
        return
    with decompressed_copy(path, suffix=".ncu-rep", inspect=chain.feed) as report:
        chain.finish()
        yield report, chain
