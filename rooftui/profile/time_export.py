"""Reading the kernel times ncu exports for a launched job's rank report.

``rooftui profile -- torchrun ...`` asks ncu for each rank report's kernel times
(``ncu --import R --csv --page raw --print-units base --metrics gpu__time_duration.sum``)
and sums them per rank. That text comes from whatever ``--ncu`` names, so it is read as
untrusted input (issue #25: an unexpected export crashed ``profile`` with exit 1): ncu's
own ``==PROF==``/``==WARNING==`` lines above the table are skipped (with nothing else, no
kernel was exported); a table without the ID, Kernel Name or time column, without its
units row, with a row of another field count, a launch ID that is no whole number or a
time that is negative or not finite is refused in one line naming the report; an empty
or ``n/a`` time is a kernel ncu could not measure. The units row gives the time's unit
(ncu 2025.3: "ns"); any unit of time is turned into seconds.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from rooftui.errors import RooftuiError
from rooftui.ingest.units import nanoseconds_per
from rooftui.views.text import printable

TIME_METRIC = "gpu__time_duration.sum"
_NEEDED = ("ID", "Kernel Name", TIME_METRIC)
_FIX = "check which ncu ran (--ncu): rooftui reads its `--csv --page raw --print-units base` export"
_SHOWN = 40  # characters of a bad cell quoted back


def read_kernel_times(text: str, report: Path) -> list[tuple[int, str, float]]:
    """(launch ID, kernel name, seconds) of each measured kernel in ncu's raw CSV ``text``."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as err:
        raise _refusal(f"not CSV ({err})", report) from None
    start = next((i for i, row in enumerate(rows) if row and row[0] == "ID"), None)
    if start is None:
        if all(not row or row[0].startswith("==") for row in rows):
            return []  # only ncu's own lines: it exported no kernel
        raise _refusal('no header line starting with "ID"', report)
    header = rows[start]
    missing = [name for name in _NEEDED if name not in header]
    if missing:
        raise _refusal(f"no column {', '.join(missing)}", report)
    id_at, name_at, time_at = (header.index(name) for name in _NEEDED)
    body = [row for row in rows[start + 1 :] if row and not row[0].startswith("==")]
    if not body:
        return []
    units, launches = body[0], body[1:]
    if len(units) != len(header) or units[id_at] != "":
        raise _refusal("no units row under its header", report)
    to_ns = nanoseconds_per(units[time_at])
    if to_ns is None:
        raise _refusal(f"{TIME_METRIC} in {_cell(units[time_at])}, not a unit of time", report)
    times = []
    for number, row in enumerate(launches, start=1):
        if len(row) != len(header):
            raise _refusal(f"row {number} has {len(row)} fields, the header {len(header)}", report)
        cell = row[time_at].replace(",", "").strip()
        if cell in ("", "n/a", "N/A"):
            continue  # a kernel ncu could not measure
        launch = row[id_at].strip()
        try:
            ns = float(cell) * to_ns
            ncu_id = int(launch)
        except ValueError:
            raise _refusal(
                f"row {number}: ID {_cell(launch)}, time {_cell(cell)} are not numbers", report
            ) from None
        if not math.isfinite(ns) or ns < 0 or ncu_id < 0:
            raise _refusal(
                f"row {number}: ID {_cell(launch)}, time {_cell(cell)} (not a launch's time)", report
            )
        times.append((ncu_id, row[name_at], ns / 1e9))
    return times


def _cell(text: str) -> str:
    shown = text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
    return repr(printable(shown))


def _refusal(what: str, report: Path) -> RooftuiError:
    return RooftuiError(f"ncu's export of its kernel times: {what}", path=report, fix=_FIX)
