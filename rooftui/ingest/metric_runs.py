"""One-metric-per-run collections: a directory whose files are runs of the same
program, each with its own ``--metrics`` list, joined into one report.

The paper's V100 DeepCAM data (GitHub cyanguwa/DeepLearningProfiling) is laid out
this way: ``PT-*/out.<metric>``, one ``nv-nsight-cu-cli --csv`` run per metric, 12
runs per configuration. Runs are joined by launch ID where the kernel names agree
at every ID. Otherwise (TensorFlow launches kernels in a different order in each
run) they are joined per kernel name, as the paper's own notebooks do: each row is
then every launch of one kernel name, with ``launches`` saying how many; counts
are summed over those launches, clocks and other rates averaged.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest.report import IDENTITY_COLUMNS, LAUNCHES, RawReport

RUNS_HINT = (
    "pass a directory whose files are ncu CSV runs of the same program, one "
    "--metrics list each (or pass the files one by one to load them as separate reports)"
)
# Per-launch values that are not counts: averaged, not summed, when launches of a name are joined.
_AVERAGED_SUFFIXES = (".per_second", ".per_cycle_elapsed", ".peak_sustained", ".pct")


def export_files(directory: Path) -> tuple[list[Path], int]:
    """The ncu exports in ``directory`` (CSV exports sniffed by their header line,
    ``.ncu-rep`` by name), and how many other files were passed over."""
    from rooftui.ingest import REPORT_SUFFIXES, _is_binary
    from rooftui.ingest.csv_common import read_prologue
    from rooftui.ingest.files import logical_name

    found, other = [], 0
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or not path.is_file() or path.stat().st_size == 0:
            other += path.is_file()
            continue
        if logical_name(path).endswith(REPORT_SUFFIXES[0]):
            found.append(path)
            continue
        try:
            if not _is_binary(path):
                read_prologue(path)
                found.append(path)
                continue
        except (InputError, UnicodeDecodeError):
            pass
        other += 1
    return found, other


def read_directory(directory: Path) -> list[RawReport]:
    """The reports in ``directory``: one joined report when its files are runs with
    different metrics, else each file as its own report (one per MPI rank, say)."""
    from rooftui.ingest import read_report

    files, other = export_files(directory)
    if not files:
        raise InputError("the directory holds no Nsight Compute export", directory, RUNS_HINT)
    reports = [read_report(path) for path in files]
    if len(reports) == 1 or len({frozenset(_metric_columns(r)) for r in reports}) == 1:
        return reports
    joined = join_runs(reports, str(directory))
    if other:
        joined.notes.append(f"{other} other file(s) in the directory passed over")
    return [joined]


def combine_runs(reports: list[RawReport]) -> list[RawReport]:
    """Reports given one by one: joined when each has metrics none of the others has
    (one metric list per run, or a --print-summary export and a separate time file),
    else kept apart (one report per MPI rank, say)."""
    if len(reports) < 2:
        return reports
    seen: set[str] = set()
    for report in reports:
        metrics = set(_metric_columns(report))
        if metrics & seen:
            return reports
        seen |= metrics
    if not seen:
        return reports
    # A run with none of the metrics rooftui reads (an --events or occupancy run of the same
    # program, say) adds no column; it is joined when its launches are those of the others
    # (else it is some other program's report, and kept apart).
    launches = _launches_by_name(reports[0])
    if any(not _metric_columns(r) for r in reports) and not all(
        _launches_by_name(r).equals(launches) for r in reports[1:]
    ):
        return reports
    return [join_runs(reports, ", ".join(report.path for report in reports))]


def _metric_columns(report: RawReport) -> list[str]:
    return [c for c in report.kernels.columns if c not in IDENTITY_COLUMNS and c != LAUNCHES]


def join_runs(reports: list[RawReport], label: str) -> RawReport:
    """Runs of one program with different metrics -> one report (see the module doc)."""
    first = reports[0]
    launches = _launches_by_name(first)
    for other in reports[1:]:
        if not _launches_by_name(other).equals(launches):
            raise InputError(
                f"{Path(first.path).name} and {Path(other.path).name} are runs of different "
                f"programs ({int(launches.sum())} and {int(_launches_by_name(other).sum())} launches, "
                "not of the same kernels)",
                label,
                RUNS_HINT,
            )
    by_id = all(_same_launch_order(first, other) for other in reports[1:])
    frames = [_indexed(r, by_id) for r in reports]
    joined = frames[0]
    owner = {c: first.path for c in _metric_columns(first)}
    for report, frame in zip(reports[1:], frames[1:]):
        for column in _metric_columns(report):
            if column in owner:
                _check_agree(joined[column], frame[column], column, owner[column], report.path, label)
                continue
            joined[column] = frame[column].reindex(joined.index)
            owner[column] = report.path
    joined = joined.reset_index(drop=True)
    notes = [
        f"{len(reports)} runs with different metrics, joined by "
        + (
            "ID (kernel names agree at every ID)"
            if by_id
            else "kernel name: the runs list the launches in different orders, so per-launch rows are "
            "not available; each row is every launch of one kernel name (its launch count "
            "in `launches`), counts summed, clocks averaged, as the paper's notebooks do"
        )
    ]
    for report in reports:
        notes += [f"{Path(report.path).name}: {note}" for note in report.notes]
    return RawReport(label, "metric-runs", joined, all(r.exact for r in reports), list(dict.fromkeys(notes)))


def _launches_by_name(report: RawReport) -> pd.Series:
    frame = report.kernels
    weight = frame[LAUNCHES] if LAUNCHES in frame else pd.Series(1, index=frame.index)
    return weight.groupby(frame["kernel_name"].astype(str)).sum().sort_index()


def _same_launch_order(a: RawReport, b: RawReport) -> bool:
    left = a.kernels.set_index("ncu_id")["kernel_name"].astype(str)
    right = b.kernels.set_index("ncu_id")["kernel_name"].astype(str)
    return left.index.is_unique and right.index.is_unique and left.sort_index().equals(right.sort_index())


def _indexed(report: RawReport, by_id: bool) -> pd.DataFrame:
    """The report's rows indexed by launch ID, or aggregated per kernel name."""
    frame = report.kernels
    if by_id:
        return frame.set_index("ncu_id", drop=False)
    metrics = _metric_columns(report)
    grouped = frame.groupby(frame["kernel_name"].astype(str), sort=False)
    identity = grouped[[c for c in frame.columns if c in IDENTITY_COLUMNS]].first()
    averaged = [c for c in metrics if c.endswith(_AVERAGED_SUFFIXES)]
    lowest = [c for c in metrics if c.endswith(".min_per_launch")]  # a --print-summary's Minimum
    highest = [c for c in metrics if c.endswith(".max_per_launch")]
    summed = [c for c in metrics if c not in {*averaged, *lowest, *highest}]
    out = pd.concat(
        [
            identity,
            grouped[summed].sum(min_count=1),
            grouped[averaged].mean(),
            grouped[lowest].min(),
            grouped[highest].max(),
        ],
        axis=1,
    )
    out[LAUNCHES] = grouped[LAUNCHES].sum() if LAUNCHES in frame else grouped.size()
    out.index.name = "kernel_name_key"
    return out


def _check_agree(a: pd.Series, b: pd.Series, column: str, path_a: str, path_b: str, label: str) -> None:
    b = b.reindex(a.index)
    same = np.isclose(a.astype(float), b.astype(float), rtol=1e-6, equal_nan=True)
    if not same.all():
        raise InputError(
            f"{Path(path_a).name} and {Path(path_b).name} both have {column} and disagree on it "
            f"({int((~same).sum())} launches)",
            label,
            "keep one run per metric in the directory",
        )
