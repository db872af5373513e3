"""Files ``rooftui profile`` writes beside the reports it makes, named after them.

``REPORT.communication.csv``  the NCCL launches of a launched job, timed apart
                              (REPORT without its ``.rankN``; rooftui.analysis.ranks reads it)
``REPORT.cut-short.txt``      a run stopped early (Ctrl-C, --stop-on-stall): the report
                              beside it holds only the kernels profiled before the stop
"""

from __future__ import annotations

from pathlib import Path

from rooftui.ingest.files import logical_name

COMMUNICATION_CSV_SUFFIX = ".communication.csv"
CUT_SHORT_SUFFIX = ".cut-short.txt"
# What rooftui profile's reports are called: ncu's report, or its raw CSV export.
REPORT_SUFFIXES = (".ncu-rep", ".raw.csv")


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
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:  # no note (the usual case), or one that cannot be read
        return None
    return (text.strip().splitlines() or ["stopped early"])[0]


def write_cut_short_note(report: str | Path, reason: str) -> Path:
    """Leave the note beside ``report``: the first line says why the run stopped."""
    path = cut_short_path(report)
    path.write_text(f"{reason}\nThis report holds only the kernels profiled before the stop.\n",
                    encoding="utf-8")
    return path
