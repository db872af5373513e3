"""The checks a human makes on an ncu CSV export before trusting it, in one streaming pass.

pandas reads a table it is given; it does not ask whether the table is whole. A row
with one field too few shifts every later cell of that row into the wrong column (an
FP64 count read as a Tensor FP8 one); a raw export whose units row was lost is read as
base units (times and bytes 10^6 off); rows above the header line are dropped as if
they were ncu's log. So while pandas reads an export, this pass -- the Python ``csv``
module over the chunks pandas reads from the same stream (so a compressed file is
decompressed once), memory of one chunk -- checks, refusing with one line that names
the line and the fix:

- every row has the header's field count (the last row too: fewer fields, or an open
  quote at the end of the file, is a cut: "truncated", with the page's export hint);
- a raw-page export has ncu's units row under its header (``--print-units base`` writes
  one too, of base units; a hand-made table declares base units with a units row of
  empty cells);
- no line above the header looks like a row of the table (as many fields, a launch ID
  first): a header line moved below data, or two exports joined;
- no launch ID comes back after other IDs (a duplicated row or block), found while
  streaming so a large damaged file is refused before it is parsed whole;
- details page: every kernel has the same metric rows; one that lacks some gets a note
  naming them (its missing quantities are blank, not 0). A short *last* kernel is a
  cut, refused by ``validate.check_metric_counts``.

``read_table`` is how the readers call pandas: in chunks of rows, so the parser holds one
chunk's text, never the whole file's (read at once, pandas held ~2x a 1 GB export before any
check could refuse it), and at most ``table_cell_limit()`` cells of the columns a reader
keeps: a million-launch export under the 4 GiB input cap is refused in one line at that
bound, before it is held in memory (issue #25).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import IO, Any

import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest.files import limit_from_env
from rooftui.ingest.validate import REEXPORT, TOOL_LINE

# Cells (rows x columns kept) a reader holds from one CSV table; ROOFTUI_MAX_TABLE_CELLS
# overrides it. 10 million: a raw export keeps ~48 columns (sample_data/deepcam, deeplab),
# so ~200,000 launches; a details export 12 columns of ~68 rows a launch, so ~12,000
# launches. Peak memory of a whole export just under the bound, and of 1 GiB bombs, is in
# benchmarks/results/2026-12-01-csv-bombs.md (under 1 GB each).
DEFAULT_TABLE_CELLS = 10_000_000
_CHUNK_ROWS = 20_000  # rows pandas parses at once


def table_cell_limit() -> int:
    """The most cells (rows x columns kept) rooftui reads from one CSV table."""
    return limit_from_env("ROOFTUI_MAX_TABLE_CELLS", DEFAULT_TABLE_CELLS)


def read_table(handle: IO[str] | io.TextIOBase, path: Path, hint: str, **read_csv: Any) -> pd.DataFrame:
    """``pandas.read_csv(handle, **read_csv)``, parsed a chunk of rows at a time and refused
    (InputError, one line) once the columns kept hold more than ``table_cell_limit()`` cells."""
    limit = table_cell_limit()
    chunks: list[pd.DataFrame] = []
    cells = rows = 0
    with pd.read_csv(handle, chunksize=_CHUNK_ROWS, **read_csv) as reader:
        for chunk in reader:
            cells += chunk.size
            rows += len(chunk)
            if cells > limit:
                raise InputError(
                    f"holds more than {limit:,} cells in the columns rooftui reads ({rows:,} rows so"
                    " far), rooftui's limit for one table",
                    path,
                    "profile or export fewer launches (ncu --launch-count, -k), or set "
                    "ROOFTUI_MAX_TABLE_CELLS to a larger number if the export is genuine; " + hint,
                )
            chunks.append(chunk)
    if not chunks:  # pandas gives an empty chunk for a header alone: this is no table
        raise InputError("no table under the header line", path, hint)
    return chunks[0] if len(chunks) == 1 else pd.concat(chunks, ignore_index=True)


class StructureCheck:
    """The checks above, run on the text a reader's parser pulls: ``watch(handle)`` gives
    the handle to pass to pandas; every chunk pandas reads is checked as it passes, so the
    file is read (and decompressed) once. A problem raises InputError from inside the read;
    ``notes`` holds what the reader should say once the table is read.

    ``units_row``: the page has ncu's units row under the header (the raw page).
    """

    def __init__(
        self, path: Path, skip: int, header: Sequence[str], hint: str, *, units_row: bool = False
    ) -> None:
        self.path, self.skip, self.hint, self.units_row = path, skip, hint, units_row
        self.header = list(header)
        self.fields = len(header)
        self.id_at = list(header).index("ID") if "ID" in header else 0
        self.kernels = _KernelRows(list(header).index("Metric Name") if "Metric Name" in header else None)
        self.notes: list[str] = []
        self._pending = ""  # text after the last whole record
        self._line = 0  # lines handed to the checks so far
        self._rows = 0
        self._seen: set[str] = set()
        self._last: int | None = None  # the field count of the last row
        self._last_line = 0
        self._done = False

    def watch(self, handle: IO[str]) -> _Watched:
        return _Watched(handle, self)

    def feed(self, text: str) -> None:
        text = self._pending + text
        text = text[self._quick_records(text) :]
        cut = text.rfind("\n") + 1
        # a record ends at a newline outside quotes: ncu doubles a quote inside a field,
        # so an even count of quotes before the newline means it is outside
        while cut and text.count('"', 0, cut) % 2:
            cut = text.rfind("\n", 0, cut - 1) + 1
        self._pending = text[cut:]
        if cut:
            self._records(text[:cut])

    def finish(self) -> None:
        if self._done:
            return
        self._done = True
        if self._pending.strip():
            if self._pending.count('"') % 2:
                raise InputError(
                    "the CSV is truncated: it ends inside a quoted field of its last row",
                    self.path,
                    f"re-export the whole report; {self.hint}",
                )
            self._records(self._pending)
        last = self._last
        if last is not None and last != self.fields:
            if last < self.fields:
                raise InputError(
                    f"the CSV is truncated: its last row has {last} of {self.fields} fields",
                    self.path,
                    f"re-export the whole report; {self.hint}",
                )
            raise _field_count(last, self.fields, self._last_line, self.path)
        self.kernels.finish()
        if self.kernels.uneven:
            self.notes.append(self.kernels.uneven)

    def _quick_records(self, text: str) -> int:
        """Check the whole lines that begin ``text`` for as long as each is quick to read,
        as ``_records`` would; where it stopped (``_records`` reads the rest).

        Quick: a line of ``"``-quoted fields as ncu writes them (``_quick_fields``), or
        one above the table, each with an even count of quotes (so the lines left start
        where ``feed`` would have cut them), before any character other than ``\n`` that
        ``str.splitlines`` ends a line at, or a NUL (so the lines are ``_records``' own).
        Found in place, by index: ``_records`` copies each line twice and counts its
        quotes three times, ~70% of the check on a 547-column export.
        """
        stop = _first_other_break(text)
        line, start = self._line, 0
        find, count = text.find, text.count
        while line < self.skip + 1:  # ncu's log above the table, then the header
            end = find("\n", start, stop)
            if end < 0 or count('"', start, end) % 2:
                self._line = line
                return start
            line += 1
            if line <= self.skip:
                _check_above_header(text[start : end + 1], line, self.fields, self.path)
            start = end + 1
        wanted = max(self.id_at, self.kernels.name_at or 0) + 1  # the cells a row is checked by
        limit = csv.field_size_limit()
        while True:
            end = find("\n", start, stop)
            if end < 0:
                break
            body = end - 1 if text[end - 1] == "\r" else end  # ncu's "\n", or "\r\n"
            if body - start < 2 or body - start > limit or text[start] != '"' or text[body - 1] != '"':
                break
            first, last = start + 1, body - 1  # inside the outer quotes
            separators = count('","', first, last)
            if count('"', first, last) == 2 * separators:  # most lines: no quote in a field
                head: list[str] = []
            else:
                quick = _quick_fields(text, first, last)
                if quick is None:
                    break
                head, first, separators = quick
            line += 1
            cells = head + _first_fields(text, first, last, wanted - len(head))
            self._row(len(head) + separators + 1, cells, line, partial(_whole_span, head, text, first, last))
            start = end + 1
        self._line = line
        return start

    def _records(self, text: str) -> None:
        lines = text.splitlines(keepends=True)
        while lines and self._line < self.skip + 1:  # ncu's log above the table, then the header
            self._line += 1
            above = lines.pop(0)
            if self._line <= self.skip:
                _check_above_header(above, self._line, self.fields, self.path)
        pieces = iter(lines)
        back: list[str] = []  # a line the quick read left to the csv module
        rows = csv.reader(_pushed_back(back, pieces), strict=True)
        line = self._line
        wanted = max(self.id_at, self.kernels.name_at or 0) + 1  # the cells a row is checked by
        for piece in pieces:
            quoted = _quoted_fields(piece)
            if quoted is not None:  # most lines: one record of quoted fields, read quickly
                line += 1
                head, inside = quoted
                cells = head + inside.split('","', wanted)[: max(0, wanted - len(head))]
                fields = len(head) + inside.count('","') + 1
                self._row(fields, cells, line, partial(_whole, head, inside))
                continue
            back.append(piece)  # any other: the csv module reads one record (it may span lines)
            before = rows.line_num
            try:
                record = next(rows)
            except csv.Error as err:
                raise InputError(
                    f"line {line + rows.line_num - before}: not CSV as ncu writes it ({err})",
                    self.path,
                    REEXPORT,
                ) from None
            line += rows.line_num - before
            if record:
                self._row(len(record), record, line, partial(list, record))
        self._line = line

    def _row(self, fields: int, cells: list[str], line: int, record: Callable[[], list[str]]) -> None:
        """One record of ``fields`` fields: ``cells`` holds its first ones (at least through
        the ID and metric-name columns, where it has them), ``record()`` all of them."""
        kernels = self.kernels
        launch = cells[self.id_at] if self.id_at < len(cells) else None
        name = cells[kernels.name_at] if kernels.name_at is not None and kernels.name_at < len(cells) else ""
        # the common case first: one more metric row of the kernel being read (details page)
        if (
            fields == self.fields
            and kernels.name_at is not None  # details page: a kernel's rows share its ID
            and launch == kernels.current
            and self._rows > 1
            and self._last == self.fields
        ):
            self._last = fields
            kernels.add(name)
            return
        if TOOL_LINE.match(cells[0]):
            return
        last = self._last
        if last is not None and last != self.fields:  # not the last row: not a cut
            raise _field_count(last, self.fields, self._last_line, self.path)
        self._last, self._last_line = fields, line
        self._rows += 1
        if self._rows == 1 and self.units_row:
            if launch is None or launch.strip():
                raise InputError(
                    "no units row under the header (ncu writes one in both unit modes): "
                    "the numbers' units are unknown",
                    self.path,
                    f"{self.hint}; a hand-made table in base units declares them with a "
                    "row of empty cells under the header",
                )
            return
        if fields != self.fields or launch is None:
            return  # refused when the next row shows it is not the last (else: "truncated")
        if launch == self.header[self.id_at] and record() == self.header:
            raise InputError(
                f"line {line} repeats the header line (two exports joined)",
                self.path,
                "pass each export as its own file; " + REEXPORT,
            )
        # a raw-page launch has one row: its ID again, even in the next row, is a duplicate
        if self.kernels.current != launch or self.kernels.name_at is None:
            if launch in self._seen:
                raise InputError(
                    f"ID {_short(launch)} appears in more than one row (a duplicated "
                    f"row, or two exports joined; again at line {line})",
                    self.path,
                    "pass each export as its own file; " + REEXPORT,
                )
            self._seen.add(launch)
            self.kernels.start(launch)
        self.kernels.add(name)


def _pushed_back(back: list[str], pieces: Iterator[str]) -> Iterator[str]:
    """The lines in ``back`` (emptied as read), then the next of ``pieces`` each time."""
    while True:
        while back:
            yield back.pop()
        piece = next(pieces, None)
        if piece is None:
            return
        yield piece


def _quoted_fields(line: str) -> tuple[list[str], str] | None:
    """A line of fields each in double quotes, as ncu writes them, read quickly: its first
    fields (those up to the last that holds a quote, as the csv module reads them; none
    where no field holds one) and the rest between their outer quotes, joined by
    ``","``; None for any other line, which the csv module reads instead. The csv module
    builds every field of every line, most of a wide export's read (547 columns: ~45 µs
    a line; benchmarks/results/2026-12-02-load-w26load.md).

    With no quote but the outer ones and those of the ``","`` between fields, cutting at
    each ``","`` gives the csv module's fields. A field with a quote in it (ncu's NVTX
    cell, ``1234  ""<default domain>:forward..."" ``) writes it doubled, so the fields up
    to the last doubled quote and the ``","`` after it go to the csv module, which must
    read them as one record ending in a quoted field: then the rest is read as above.
    A NUL, a field over the csv module's size limit, or a line end inside a field
    (``str.splitlines`` ends a line at each) leave the line to the csv module.
    """
    if line.endswith('"\n'):
        body = line[:-1]
    elif line.endswith('"\r\n'):
        body = line[:-2]
    else:
        return None
    if len(body) < 2 or body[0] != '"' or "\0" in body or len(body) > csv.field_size_limit():
        return None
    inside = body[1:-1]
    if inside.count('"') == 2 * inside.count('","'):
        return [], inside
    doubled = inside.rfind('""')
    cut = inside.find('","', doubled + 2) if doubled >= 0 else -1
    if cut < 0:
        return None
    rest = inside[cut + 3 :]
    if rest.count('"') != 2 * rest.count('","'):
        return None
    try:
        head = list(csv.reader(['"' + inside[:cut] + '"\n'], strict=True))
    except csv.Error:
        return None
    return (head[0], rest) if len(head) == 1 else None


def _whole(head: list[str], inside: str) -> list[str]:
    """``_quoted_fields``' answer as the csv module's record."""
    return head + inside.split('","')


# The characters other than "\n" and "\r\n" that ``str.splitlines`` ends a line at, ASCII
# first, and NUL (which the csv module refuses): ``_quick_records`` reads the lines before them.
_OTHER_BREAKS = "\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_ASCII_BREAKS = 6


def _first_other_break(text: str) -> int:
    """Where ``text`` holds the first of ``_OTHER_BREAKS`` or a "\r" not followed by "\n";
    its length where it holds none. An ASCII text holds none past 0x7f, and most none."""
    breaks = _OTHER_BREAKS[: _ASCII_BREAKS if text.isascii() else len(_OTHER_BREAKS)]
    found = [at for at in map(text.find, breaks) if at >= 0]
    carriage = text.find("\r")
    if carriage >= 0 and text.count("\r", carriage) != text.count("\r\n", carriage):
        found.append(carriage)  # a "\r" alone ends a line too: read from the first "\r" on by line
    return min(found, default=len(text))


def _quick_fields(text: str, first: int, last: int) -> tuple[list[str], int, int] | None:
    """``_quoted_fields`` for the line inside its outer quotes at ``text[first:last]``
    whose fields hold quotes (doubled, as ncu writes them: its NVTX cell), by index: its
    first fields as the csv module reads them, where the rest begins, which hold no
    quote, and the ``","`` between them; None where it is not so.

    ``_quoted_fields`` cuts after the last doubled quote of the line, which is mostly an
    empty field's (``","","``) halfway along a raw export's row, so the csv module reads
    half the row. Here the cut is after the first doubled quote that is not an empty
    field's, tried in turn: any cut at a field's end after which no field holds a quote
    reads the same fields (the csv module reads the fields before it as one record ending
    in a quoted field, and the fields after it are cut at each ``","``); where none is
    found, ``_quoted_fields`` decides.
    """
    find = text.find
    at = first
    while True:
        doubled = find('""', at, last)
        if doubled < 0:
            break
        at = doubled + 2
        if text[doubled - 1] == "," and text[at] == ",":  # an empty field: ,"",
            continue
        cut = find('","', at, last)
        if cut < 0:
            break
        rest = cut + 3
        separators = text.count('","', rest, last)
        if text.count('"', rest, last) != 2 * separators:
            at = cut
            continue
        try:
            records = list(csv.reader(['"' + text[first:cut] + '"\n'], strict=True))
        except csv.Error:
            break
        if len(records) == 1:
            return records[0], rest, separators
        break
    quoted = _quoted_fields(text[first - 1 : last + 1] + "\n")  # the line, ending as ncu's
    if quoted is None:
        return None
    head, inside = quoted
    return head, last - len(inside), inside.count('","')


def _first_fields(text: str, first: int, last: int, wanted: int) -> list[str]:
    """``text[first:last].split('","', wanted)[:wanted]``; one field without copying the rest."""
    if wanted <= 0:
        return []
    if wanted == 1:  # the raw page's: its launch ID
        cut = text.find('","', first, last)
        return [text[first : last if cut < 0 else cut]]
    return text[first:last].split('","', wanted)[:wanted]


def _whole_span(head: list[str], text: str, first: int, last: int) -> list[str]:
    """``_quick_records``' line as the csv module's record."""
    return head + text[first:last].split('","')


class _Watched(io.TextIOBase):
    """A text handle whose reads pass through a StructureCheck."""

    def __init__(self, inner: IO[str], check: StructureCheck) -> None:
        self._inner, self._check = inner, check
        self.buffer = getattr(inner, "buffer", None)  # files.tail_of finds the stream through it

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        text = self._inner.read(-1 if size is None else size)
        if text:
            self._check.feed(text)
        else:
            self._check.finish()
        return text

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


def _field_count(found: int, fields: int, line: int, path: Path) -> InputError:
    return InputError(
        f"line {line} has {found} fields, the header {fields}: its cells would land in the wrong columns",
        path,
        REEXPORT,
    )


def _check_above_header(text: str, number: int, fields: int, path: Path) -> None:
    """A line above the header with the table's field count and a launch number first is a
    row of the table (ncu's log and a program's output are not)."""
    if text.count(",") + 1 < fields or fields < 3:
        return
    record = next(csv.reader([text]), [])
    if len(record) == fields and record[0].strip().isdigit():
        raise InputError(
            f"line {number}, above the header line, is a row of the table (ID "
            f"{_short(record[0].strip())}): rows would be dropped",
            path,
            "put the header line first (a moved header, or two exports joined); " + REEXPORT,
        )


class _KernelRows:
    """Details page: the metric rows of each kernel, compared with the first kernel's."""

    def __init__(self, name_at: int | None) -> None:
        self.name_at = name_at
        self.current: str | None = None
        self.names: set[str] = set()
        self.reference: set[str] | None = None
        self.uneven = ""

    def start(self, launch: str) -> None:
        self.finish()
        self.current, self.names = launch, set()

    def add(self, name: str) -> None:
        if self.name_at is not None:
            self.names.add(name)

    def finish(self) -> None:
        """Compare the kernel just read with the first; the last kernel is left to the
        truncation check (a cut at a row boundary leaves it short)."""
        if self.name_at is None or self.current is None:
            return
        if self.reference is None:
            self.reference = self.names
            return
        if self.names != self.reference and not self.uneven:
            self._pending = (
                self.current,
                sorted(self.reference - self.names),
                sorted(self.names - self.reference),
            )
            self.uneven = self._sentence()

    def _sentence(self) -> str:
        launch, missing, extra = self._pending
        parts = []
        if missing:
            parts.append(
                f"lacks {len(missing)} of the first kernel's metric rows ({_names(missing)}): "
                "those quantities of it are blank"
            )
        if extra:
            parts.append(f"has {len(extra)} metric rows the first kernel lacks ({_names(extra)})")
        return (
            f"kernel ID {_short(launch)} "
            + " and ".join(parts)
            + " (a damaged or hand-edited export; re-export to be sure)"
        )


def _names(names: list[str]) -> str:
    shown = ", ".join(_short(n) for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"
