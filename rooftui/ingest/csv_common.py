"""What ncu's raw and details CSV exports share: identity columns, NVTX, sniffing."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest.files import compression, open_binary, open_text, tail_of
from rooftui.ingest.report import IDENTITY_COLUMNS
from rooftui.ingest.validate import check_header, check_last_row

# The identity columns that lead every launch of ncu's raw page, in its order.
RAW_IDENTITY_COLUMNS = (
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
)
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
# ncu's own messages, quoted to the user: '==ERROR== ERR_NVGPUCTRPERM - The user does not
# have permission ...', '==ERROR== Failed to profile "k" in process 12', '==WARNING== ...'.
NCU_MESSAGE_PREFIXES = ("==ERROR==", "==WARNING==")
# nvprof prefixes its lines with the profiled process's ID: '==12345== Profiling result:'.
_NVPROF_LINE = re.compile(r"==\d+== ")
# nvprof's CSV headers: --metrics/--events, the summary, --print-gpu-trace.
_NVPROF_HEADERS = ('"Device","Kernel","Invocations"', '"Type","Time(%)"', '"Start","Duration"')
# ncu's text (not --csv) output: '    Section: GPU Speed Of Light Throughput'.
_TEXT_SECTION = re.compile(r"\s+Section: ")
# NVIDIA's fix for ERR_NVGPUCTRPERM (developer.nvidia.com/ERR_NVGPUCTRPERM).
PERMISSION_FIX = (
    "ncu was not allowed to read the GPU's performance counters: run ncu as "
    "administrator (sudo ncu ...), or let every user profile with the driver option "
    "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d and a "
    "reboot (https://developer.nvidia.com/ERR_NVGPUCTRPERM), then profile again"
)
NVPROF_FIX = (
    "nvprof exports cannot be read, nor converted by `ncu --import`: profile the program "
    "again with ncu (`rooftui profile -- PROGRAM`, or `ncu --metrics $(rooftui metrics) "
    "--csv --page raw PROGRAM > FILE.csv`)"
)
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


# What ``read_prologue`` finds: lines above the header, the header's fields, the second row's.
Prologue = tuple[int, list[str], list[str] | None]


def read_prologue(path: Path) -> Prologue:
    """Find the header line of an ncu CSV export.

    Returns (lines to skip before the header, header fields, the second row's fields).
    ``ncu --csv`` run live prints ``==PROF==`` lines before the table; they are skipped.
    """
    seen = _Prologue()
    with open_text(path) as handle:
        for skipped in range(_PROLOGUE_LINES):
            line = handle.readline()
            if not line:
                break
            seen.look_at(line)
            # "ID" leads every per-launch export; "Process ID" a --print-summary one.
            if line.startswith(('"ID"', "ID,", '"Process ID"', "Process ID,")):
                header = next(csv.reader([line]))
                check_header(header, path)
                second = handle.readline()
                row2 = next(csv.reader([second])) if second.strip() else None
                return skipped, header, row2
    raise seen.refusal(path)


class _Prologue:
    """What the lines above a CSV table say: ncu's messages, nvprof's or ncu's text output."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.nvprof = False
        self.text_output = False

    def look_at(self, line: str) -> None:
        if line.startswith(NCU_MESSAGE_PREFIXES):
            if len(self.messages) < 20:
                self.messages.append(line.strip())
        elif _NVPROF_LINE.match(line) or line.startswith(_NVPROF_HEADERS):
            self.nvprof = True
        elif _TEXT_SECTION.match(line):
            self.text_output = True

    def refusal(self, path: Path) -> InputError:
        """Why there is no table: ncu's own error first, then what kind of file this is."""
        errors = [m for m in self.messages if m.startswith("==ERROR==")]
        if errors:
            permission = next((m for m in errors if "ERR_NVGPUCTRPERM" in m), None)
            if permission:
                return InputError(f"ncu profiled nothing; it said: {_clip(permission)}", path, PERMISSION_FIX)
            return InputError(
                f"ncu profiled nothing; it said: {_clip(errors[0])}",
                path,
                "fix what ncu reports and profile again",
            )
        warnings = [m for m in self.messages if m.startswith("==WARNING==")]
        if warnings:
            return InputError(
                f"no table; ncu said: {_clip(warnings[0])}", path, "fix what ncu reports and profile again"
            )
        if self.nvprof:
            return InputError("an nvprof output, not an Nsight Compute export", path, NVPROF_FIX)
        if self.text_output:
            return InputError(
                "ncu's text output, not a CSV export", path, "re-run ncu with --csv, or " + RAW_HINT
            )
        return InputError('not an Nsight Compute CSV export (no "ID" header line found)', path, RAW_HINT)


def _clip(text: str, limit: int = 240) -> str:
    text = text.split(" For instructions")[0]  # ERR_NVGPUCTRPERM's link; the fix says it
    return text if len(text) <= limit else text[: limit - 1] + "…"


def ncu_said(path: Path, skip: int, trailing: Sequence[object] = ()) -> list[str]:
    """Notes quoting ncu's ``==ERROR==``/``==WARNING==`` lines around the table.

    ``skip``: the lines above the header (``read_prologue``); ``trailing``: the first cells
    of the tool lines after the table (``validate.launch_ids`` drops them). A failed
    launch (``==ERROR== Failed to profile ...``) leaves it out of the table: the note says
    the launches shown are the ones ncu could profile.
    """
    seen = _Prologue()
    if skip:
        with open_text(path) as handle:
            for _ in range(skip):
                seen.look_at(handle.readline())
    for cell in trailing:
        seen.look_at(str(cell))
    notes = []
    for message in dict.fromkeys(seen.messages):
        note = f"ncu said: {_clip(message)}"
        if "Failed to profile" in message:
            note += " (that launch is not in the table; the launches shown are those ncu profiled)"
        elif "ERR_NVGPUCTRPERM" in message:
            note += f" ({PERMISSION_FIX})"
        notes.append(note)
    return notes


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
        raise InputError(
            f"the CSV is truncated: ncu's log above the table profiled launches up to "
            f"ID {announced}, the table ends at ID {last_id}",
            path,
            f"re-export the whole report; {hint}",
        )


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


# The identity columns that hold numbers (NaN where blank); the others hold text ("").
_NUMERIC_IDENTITY = ("ncu_id", "process_id", "device_index", "stream")


def fill_unexported_identity(kernels: pd.DataFrame) -> list[str]:
    """Add, blank, every identity column (``rooftui.ingest.report.IDENTITY_COLUMNS``) the
    export did not hold, in place: NaN for numbers, "" for text, so every reader's frame
    has them all. Returns the columns added, for the reader's note."""
    added = [column for column in IDENTITY_COLUMNS if column not in kernels]
    for column in added:
        kernels[column] = np.nan if column in _NUMERIC_IDENTITY else ""
    return added


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
