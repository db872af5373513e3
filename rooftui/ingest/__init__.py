"""Readers: Nsight Compute exports (raw CSV, details CSV, .ncu-rep) and ceilings files.

``read_report(path)`` picks the reader from the file's name and first line.
Importing this package loads no pandas: the ``.ncu-rep`` reader's child process
(``_ncu_rep_worker``) lives here and must start fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.errors import InputError, reading
from rooftui.ingest.files import check_readable, head, is_directory, logical_name

if TYPE_CHECKING:
    from rooftui.ingest.report import RawReport


REPORT_SUFFIXES = (".ncu-rep", ".csv")


def read_reports(path: str | Path) -> list[RawReport]:
    """The reports in ``path``: one for a file; for a directory of one-metric runs of
    one program, their join (``rooftui.ingest.metric_runs``)."""
    path = Path(path)
    if is_directory(path):
        from rooftui.ingest.metric_runs import read_directory

        return read_directory(path)
    return [read_report(path)]


def read_report(path: str | Path) -> RawReport:
    """Read one Nsight Compute report or CSV export (optionally .xz/.gz/.bz2 compressed),
    or a directory of one-metric runs of one program as their join."""
    path = Path(path)
    if is_directory(path):
        from rooftui.ingest.metric_runs import read_directory

        (joined,) = read_directory(path)
        return joined
    with reading(path):
        return _read_report(path)


def _read_report(path: Path) -> RawReport:
    check_readable(path)
    name = logical_name(path)
    if name.endswith(".ncu-rep"):
        from rooftui.ingest.ncu_rep import read_ncu_rep

        return read_ncu_rep(path)
    from rooftui.ingest.csv_common import RAW_HINT, read_prologue

    if _is_binary(path):
        raise InputError(
            "not a CSV export nor an .ncu-rep report (binary content)",
            path,
            "pass an .ncu-rep report or " + RAW_HINT,
        )
    from rooftui.ingest.details_csv import looks_like_details, read_details_csv
    from rooftui.ingest.raw_csv import read_raw_csv
    from rooftui.ingest.summary_csv import looks_like_summary, read_summary_csv

    prologue = read_prologue(path)  # read once: each reader starts from it
    header = prologue[1]
    if looks_like_summary(header):
        return read_summary_csv(path, prologue)
    if looks_like_details(header):
        return read_details_csv(path, prologue)
    return read_raw_csv(path, prologue)


def _is_binary(path: Path) -> bool:
    return b"\x00" in head(path, 4096)
