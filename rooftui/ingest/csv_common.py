"""What ncu's raw and details CSV exports share: identity columns, NVTX, sniffing."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest.files import compression, open_binary, open_text, tail_of
from rooftui.ingest.validate import check_header, check_last_row

# ncu's column -> rooftui's identity column (rooftui.ingest.report.IDENTITY_COLUMNS).
IDENTITY_FROM_NCU = {
    "ID": "ncu_id",
    "Kernel Name": "kernel_name",
    "Process ID": "process_id",
    "Device": "device_index",
    "CC": "cc",
    "Grid Size": "grid",
    "Block Size": "block",
    "Stream": "stream",
}
NVTX_PUSH_POP_PREFIX = "thread Domain:Push/Pop_Range"
DISPLAY_NAME = "device__attribute_display_name"
_QUOTED = re.compile(r'"([^"]*)"')
# ncu run live logs each launch it profiles, with its ID, above the table:
# '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 8 passes' (sample_data/*/*.ncu.log).
_PROFILED = re.compile(r'==PROF== Profiling ".*" - (\d+)(?: \(\d+/\d+\))?: ')

# ncu run live prints the table after the program's own output (40 lines of
# TensorFlow logging in the paper's runs); a training log can be longer, but not endless.
_PROLOGUE_LINES = 20_000
RAW_HINT = "export it with `ncu --import REPORT.ncu-rep --csv --page raw > FILE.csv`"


def parse_nvtx(cell: object) -> str:
    """ncu's push/pop cell -> range names, outermost first, " > " joined.

    The cell reads ``1567  "<default domain>:forward:none:none:none:none:none:none"``:
    a thread id, then one quoted ``domain:range:payload-type:payload:colour-type:
    colour:message-type:message`` per open range.
    """
    if not isinstance(cell, str) or '"' not in cell:
        return ""
    names = []
    for entry in _QUOTED.findall(cell.replace('""', '"')):
        head = entry.rsplit(":", 6)[0]  # drop the six payload/colour/message fields
        names.append(head.split(":", 1)[1] if ":" in head else head)
    return " > ".join(n for n in names if n)


def read_prologue(path: Path) -> tuple[int, list[str], list[str] | None]:
    """Find the header line of an ncu CSV export.

    Returns (lines to skip before the header, header fields, the second row's fields).
    ``ncu --csv`` run live prints ``==PROF==`` lines before the table; they are skipped.
    """
    with open_text(path) as handle:
        for skipped in range(_PROLOGUE_LINES):
            line = handle.readline()
            if not line:
                break
            # "ID" leads every per-launch export; "Process ID" a --print-summary one.
            if line.startswith(('"ID"', "ID,", '"Process ID"', "Process ID,")):
                header = next(csv.reader([line]))
                check_header(header, path)
                second = handle.readline()
                row2 = next(csv.reader([second])) if second.strip() else None
                return skipped, header, row2
    raise InputError(
        "not an Nsight Compute CSV export (no \"ID\" header line found)", path, RAW_HINT
    )


def check_profiled_ids(path: Path, skip: int, last_id: int, hint: str) -> None:
    """Refuse a table that ends before the last launch ncu's log above it says it profiled.

    ncu run live (``ncu --csv ... APP > FILE``) writes a ``==PROF== Profiling "k" - ID:``
    line per launch and then the table, one row (raw page) or one block of rows (details
    page) per launch: a cut exactly at a row boundary leaves a whole-looking table
    without its last launches, which only this log shows. An export made with
    ``ncu --import`` has no log, and such a cut cannot be told (said in the README).
    """
    if not skip:
        return
    announced = -1
    with open_text(path) as handle:
        for _ in range(skip):
            found = _PROFILED.match(handle.readline())
            if found:
                announced = max(announced, int(found.group(1)))
    if announced > last_id:
        raise InputError(f"the CSV is truncated: ncu's log above the table profiled launches up to "
                         f"ID {announced}, the table ends at ID {last_id}", path,
                         f"re-export the whole report; {hint}")


def check_last_line(path: Path, header_fields: int, tail: bytes | None = None) -> None:
    """A CSV cut off mid-row (a killed export, a partial copy) is refused, not half-read.

    ``tail``: the file's end as a reader already saw it (``files.tail_of``), so a
    compressed export is not decompressed a second time; without it, it is read here.
    """
    if tail is None:
        tail = _tail(path)
    check_last_row(tail, header_fields, path, RAW_HINT)


def _tail(path: Path) -> bytes:
    if compression(path) is None:  # seek: no second pass over a large file
        with open(path, "rb") as plain:
            size = plain.seek(0, io.SEEK_END)
            plain.seek(max(0, size - (1 << 16)))
            return plain.read()
    with open_binary(path) as handle:
        while handle.read(1 << 20):
            pass
        return tail_of(handle) or b""


def cc_text(value: object) -> str:
    """ncu's CC cell (9.0, "9.0", 90) -> "9.0"."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return f"{number:.1f}"

