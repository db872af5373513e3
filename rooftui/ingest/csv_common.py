"""What ncu's raw and details CSV exports share: identity columns, NVTX, sniffing."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest.files import compression, open_text

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

# ncu run live prints the table after the program's own output (40 lines of
# TensorFlow logging in the paper's runs); a training log can be longer.
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
        skipped = 0
        for line in handle:
            # "ID" leads every per-launch export; "Process ID" a --print-summary one.
            if line.startswith(('"ID"', "ID,", '"Process ID"', "Process ID,")):
                header = next(csv.reader([line]))
                second = handle.readline()
                row2 = next(csv.reader([second])) if second.strip() else None
                return skipped, header, row2
            skipped += 1
            if skipped > _PROLOGUE_LINES:
                break
    raise InputError(
        "not an Nsight Compute CSV export (no \"ID\" header line found)", path, RAW_HINT
    )


def check_last_line(path: Path, header_fields: int) -> None:
    """A CSV cut off mid-row (a killed export, a partial copy) is refused, not half-read."""
    tail = _last_line(path)
    if not tail.endswith("\n"):
        raise InputError("the CSV ends in the middle of a row (truncated?)", path,
                         f"re-export the whole report; {RAW_HINT}")
    fields = next(csv.reader([tail]), [])
    if fields and len(fields) != header_fields:
        raise InputError(
            f"the last row has {len(fields)} fields, the header {header_fields} (truncated?)",
            path, f"re-export the whole report; {RAW_HINT}")


def _last_line(path: Path) -> str:
    if compression(path) is None:  # seek: no second pass over a large file
        with open(path, "rb") as handle:
            size = handle.seek(0, io.SEEK_END)
            handle.seek(max(0, size - (1 << 20)))
            chunk = handle.read().decode("utf-8", errors="replace")
        lines = chunk.splitlines(keepends=True)
        return lines[-1] if lines else ""
    last = ""
    with open_text(path) as handle:
        for line in handle:
            last = line
    return last


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

