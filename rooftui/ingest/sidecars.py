"""Files ``rooftui profile`` writes beside the reports it makes, named after them.

``REPORT.communication.csv``  the NCCL launches of a launched job, timed apart
                              (REPORT without its ``.rankN``; rooftui.analysis.ranks reads it)
``REPORT.cut-short.txt``      a run stopped early (Ctrl-C, --stop-on-stall): the report
                              beside it holds only the kernels profiled before the stop
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.errors import InputError, reading
from rooftui.ingest.files import check_readable, logical_name, open_binary, open_text

if TYPE_CHECKING:  # pandas is imported where it is used
    import pandas as pd

COMMUNICATION_CSV_SUFFIX = ".communication.csv"
CUT_SHORT_SUFFIX = ".cut-short.txt"
# What rooftui profile's reports are called: ncu's report, or its raw CSV export.
REPORT_SUFFIXES = (".ncu-rep", ".raw.csv")
# rooftui writes a two-line note; only its first line is read, from at most this many bytes
# (a 200 MB or endless file in its place is not read whole).
CUT_SHORT_READ_BYTES = 4096
# One row per NCCL launch timed: a million launches is ~150 MB; more is not rooftui's file.
COMMUNICATION_CSV_LIMIT = 256 << 20
COMMUNICATION_COLUMNS = ("rank", "ncu_id", "name", "time_s")
_COMMUNICATION_FIX = (
    "delete it to read the reports without the NCCL times, or run rooftui profile again to write it anew"
)


def report_stem(report: str | Path) -> Path:
    """``job.rank1.raw.csv.xz`` -> ``job.rank1``: the report's path without its suffixes."""
    path = Path(str(report))
    name = logical_name(path)
    for suffix in REPORT_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return path.with_name(name)


def cut_short_path(report: str | Path) -> Path:
    return Path(f"{report_stem(report)}{CUT_SHORT_SUFFIX}")


def cut_short_reason(report: str | Path) -> str | None:
    """Why the run that wrote ``report`` was stopped early (the note's first line), or None."""
    path = cut_short_path(report)
    if not os.path.lexists(path):  # the usual case
        return None
    try:  # regular files only, never more than the first few KB: a FIFO or a huge file is no note
        with open_binary(path) as handle:
            text = handle.read(CUT_SHORT_READ_BYTES).decode("utf-8", errors="replace")
    except (InputError, OSError) as err:
        why = err.args[0].split(": ", 1)[-1].split(" — ")[0] if isinstance(err, InputError) else err
        return f"stopped early (its note cannot be read: {why})"
    return (text.strip().splitlines() or ["stopped early"])[0][:500]


def write_cut_short_note(report: str | Path, reason: str) -> Path:
    """Leave the note beside ``report``: the first line says why the run stopped."""
    path = cut_short_path(report)
    path.write_text(
        f"{reason}\nThis report holds only the kernels profiled before the stop.\n", encoding="utf-8"
    )
    return path


def read_communication_csv(path: Path) -> pd.DataFrame:
    """``REPORT.communication.csv`` as rank (text), ncu_id, name and time_s (seconds, float).

    The file is rooftui's own, but it sits in a user's folder: it is read like any input
    (a regular file, bounded) and every row is checked, since a bad row would change
    the communication share. A damaged file is refused with one line naming the row.
    """
    import pandas as pd

    check_readable(path, _COMMUNICATION_FIX)
    rows: list[list[str]] = []
    with reading(path, fix=_COMMUNICATION_FIX), open_text(path, limit=COMMUNICATION_CSV_LIMIT) as text:
        records = csv.reader(text)
        header = next(records, None)
        missing = [c for c in COMMUNICATION_COLUMNS if header is None or c not in header]
        if missing:
            raise InputError(
                f"not a communication CSV of rooftui profile (no {', '.join(missing)} column)",
                path,
                _COMMUNICATION_FIX,
            )
        assert header is not None
        where = [header.index(c) for c in COMMUNICATION_COLUMNS]
        for number, record in enumerate(records, start=2):
            if not record:
                continue
            if len(record) != len(header):
                raise InputError(
                    f"line {number} has {len(record)} fields, the header {len(header)}",
                    path,
                    _COMMUNICATION_FIX,
                )
            rows.append([record[i] for i in where])
    for number, (rank, ncu_id, _, time_s) in enumerate(rows, start=2):
        _check_communication_row(path, number, rank, ncu_id, time_s)
    frame = pd.DataFrame(rows, columns=list(COMMUNICATION_COLUMNS), dtype=object)
    frame["ncu_id"] = frame["ncu_id"].astype("int64")
    frame["time_s"] = frame["time_s"].astype("float64")
    return frame


def _check_communication_row(path: Path, number: int, rank: str, ncu_id: str, time_s: str) -> None:
    try:
        seconds = float(time_s)
    except ValueError:
        seconds = math.nan
    problem = (
        "its rank is not a whole number"
        if not (rank.isascii() and rank.isdigit())
        else "its ID is not a launch number"
        if not (ncu_id.isascii() and ncu_id.isdigit() and len(ncu_id) < 16)
        else "its time_s is not a time in seconds (a number, 0 or more)"
        if not (math.isfinite(seconds) and seconds >= 0)
        else None
    )
    if problem:
        raise InputError(f"line {number}: {problem}", path, _COMMUNICATION_FIX)
