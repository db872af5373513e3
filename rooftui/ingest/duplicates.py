"""The same report given twice is counted once, with a note; two exports of one run that
disagree are refused.

Given twice is easy to do and doubles Table III and the total time without a sign:
the same path twice, a relative and an absolute path, a copy, a link, ``a.csv.xz`` and
``a.csv``, a ``.ncu-rep`` and its own CSV export, the raw page in auto-scaled and in base
units. rooftui tells them by what was read, not by the file:

- the same table (every column, every value): the same report, whatever its path;
- the same process ID (where both name one: a .ncu-rep is read without it), launch IDs
  and kernel names, and every metric both have -- the kernel time among them -- equal
  within what the less precise export printed (float noise for base units; auto-scaled
  pages print 3 to 6 significant digits): one run exported twice. Two runs of a
  program, or two ranks of a job, never share a process ID, and their kernel times and
  cycle counts differ in the last digits;
- the same process ID, launch IDs and kernel names but a metric that differs beyond
  that: refused, naming both files (which one is right cannot be told).

The report kept is the first given, or the exact one where only a later one is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rooftui.errors import InputError
from rooftui.ingest.report import IDENTITY_COLUMNS, RawReport

if TYPE_CHECKING:  # numpy and pandas are imported where used: `--help` must not load them
    import pandas as pd

TIME = "gpu__time_duration.sum"
# Relative difference an auto-scaled export may show against the exact values of the same
# run: half a unit in the last printed digit (ncu prints 3 to 6 significant digits, e.g.
# "5.457 Mbyte" for 5,456,930 bytes in known_answer.raw.csv). Base-unit exports print
# averages with few decimals: sm__cycles_elapsed.avg of deepcam_amp's .ncu-rep and its
# raw-base export differ by up to 1.2e-6.
_PRINTED = 5e-3
_EXACT = 1e-5


def counted_once(
    reports: Sequence[RawReport], apart: Callable[[str], str] = lambda path: ""
) -> tuple[list[RawReport], list[str]]:
    """``reports`` with each run kept once, and a note per report left out.

    ``apart(path)``: reports it tells apart are never one run (the rank in a file name:
    ``job.rank0`` and ``job.rank1`` are two processes by how they were made).
    """
    kept: list[RawReport] = []
    notes: list[str] = []
    for report in reports:
        twin = next(
            (
                i
                for i, other in enumerate(kept)
                if apart(other.path) == apart(report.path) and _same_run(other, report)
            ),
            None,
        )
        if twin is None:
            kept.append(report)
            continue
        first = kept[twin]
        if report.exact and not first.exact:  # keep the exact values
            kept[twin], first, report = report, report, first
        notes.append(
            f"{report.path} is the same run as {first.path} (same launches and values): counted once"
        )
    return kept, notes


def _same_run(a: RawReport, b: RawReport) -> bool:
    import numpy as np
    import pandas as pd

    ka, kb = a.kernels, b.kernels
    if len(ka) != len(kb):
        return False
    if list(ka.columns) == list(kb.columns) and ka.equals(kb):
        return True
    same_process = _same_process(ka, kb)
    if same_process is False or not _same_launches(ka, kb):
        return False
    shared = [
        c
        for c in ka.columns
        if c in kb.columns
        and c not in IDENTITY_COLUMNS
        and pd.api.types.is_float_dtype(ka[c])
        and pd.api.types.is_float_dtype(kb[c])
    ]
    if TIME not in shared:
        return False  # without the time, two runs cannot be told apart: not a duplicate
    tolerance = _EXACT if a.exact and b.exact else _PRINTED
    for column in shared:
        x, y = ka[column].to_numpy(), kb[column].to_numpy()
        with np.errstate(invalid="ignore"):
            close = np.abs(x - y) <= tolerance * np.maximum(np.abs(x), np.abs(y))
            agree = (np.isnan(x) & np.isnan(y)) | close
        if not agree.all():
            if same_process is None:  # a .ncu-rep has no process ID: two runs, not a conflict
                return False
            row = int(np.flatnonzero(~agree)[0])
            raise InputError(
                f"{a.path} and {b.path} hold the same run (process {int(ka['process_id'].iloc[0])}, "
                f"the same launches) but disagree: {column} of ID {int(ka['ncu_id'].iloc[row])} is "
                f"{x[row]:.6g} and {y[row]:.6g}",
                None,
                "pass one of them (re-export it from the .ncu-rep if unsure which is right)",
            )
    return True


def _same_process(a: pd.DataFrame, b: pd.DataFrame) -> bool | None:
    """Whether both tables name the same process IDs; None where one does not say (a
    .ncu-rep is read without them)."""
    import numpy as np

    if "process_id" not in a or "process_id" not in b:
        return None
    pa, pb = a["process_id"].to_numpy(dtype=float), b["process_id"].to_numpy(dtype=float)
    if np.isnan(pa).all() or np.isnan(pb).all():
        return None
    return bool(np.array_equal(pa, pb, equal_nan=True))


def _same_launches(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """The same launch IDs and kernel names, in the same order."""
    import numpy as np

    if not {"ncu_id", "kernel_name"} <= set(a.columns) & set(b.columns):
        return False
    if not (
        np.array_equal(a["ncu_id"].to_numpy(), b["ncu_id"].to_numpy())
        and a["kernel_name"].astype(str).tolist() == b["kernel_name"].astype(str).tolist()
    ):
        return False
    # the same GPUs and streams, where both say (one program's launches on two GPUs differ here)
    import pandas as pd

    for column in ("device_index", "stream"):  # 7 in a .ncu-rep, 7.0 in a CSV export
        if column in a and column in b:
            x = pd.to_numeric(a[column], errors="coerce").to_numpy(dtype=float)
            y = pd.to_numeric(b[column], errors="coerce").to_numpy(dtype=float)
            known = ~np.isnan(x) & ~np.isnan(y)
            if (x[known] != y[known]).any():
                return False
    if "device" in a and "device" in b:
        x, y = a["device"].astype(str).to_numpy(), b["device"].astype(str).to_numpy()
        known = (x != "") & (y != "")
        if (x[known] != y[known]).any():
            return False
    return True
