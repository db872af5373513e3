"""Ranks of a multi-GPU run: which rank a report holds, communication kernels, per-rank shares.

``rooftui profile`` names a launched job's reports REPORT.rankN.ncu-rep (N: the rank
from $RANK, $OMPI_COMM_WORLD_RANK, $PMI_RANK, $SLURM_PROCID or $LOCAL_RANK); the same
pattern, written by hand with ncu's ``-o report.rank%q{RANK}``, is read the same way.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.ingest.sidecars import COMMUNICATION_CSV_SUFFIX, read_communication_csv

if TYPE_CHECKING:  # pandas is imported where it is used: `--help` must not load it
    import pandas as pd

# rank from the file name: "job.rank3.ncu-rep", "job.rank3.raw.csv", "job_rank3.ncu-rep"
_RANK_IN_NAME = re.compile(r"[._-]rank(\d+)(?=[._-]|$)")
# NCCL's device kernels are all named ncclDevKernel_*, ncclKernel_* (older NCCL) or
# ncclDevKernel_Generic; RCCL uses the same prefix.
COMMUNICATION_PREFIX = "nccl"


def rank_of_report(path: str | Path) -> str:
    """The rank in a report's file name, or "" when it names none."""
    match = _RANK_IN_NAME.search(Path(str(path)).name)
    return match[1] if match else ""


def is_communication(names: pd.Series) -> pd.Series:
    """True for collective/point-to-point communication kernels (by function name)."""
    return names.astype(str).str.startswith(COMMUNICATION_PREFIX)


def communication_sidecar(reports: list[str]) -> pd.DataFrame | None:
    """The NCCL launches ``rooftui profile`` timed beside per-rank reports
    (REPORT.communication.csv: rank, ncu_id, name, time_s), or None when there is none."""
    import pandas as pd

    found = set()
    for report in reports:
        path = Path(str(report))
        match = _RANK_IN_NAME.search(path.name)
        if match:
            found.add(path.with_name(path.name[: match.start()] + COMMUNICATION_CSV_SUFFIX))
    # read like any input (rooftui.ingest.sidecars): a damaged one is one line, not a wrong share
    frames = [read_communication_csv(p) for p in sorted(found) if os.path.lexists(p)]
    return pd.concat(frames, ignore_index=True) if frames else None


def per_rank(table: pd.DataFrame, sidecar: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per rank: kernels, summed kernel time, zero-AI time share, communication time and share.

    Communication is the NCCL kernels in the reports plus those timed apart in ``sidecar``
    (``rooftui profile``'s NCCL time run). Shares are of the rank's summed kernel time
    (ncu times each kernel alone, so overlap of communication with compute is not seen);
    with no NCCL kernel seen at all the communication share is unknown (NaN), not 0.
    Zero-AI share counts launches known to be zero-AI, as in Table III.
    """
    import pandas as pd

    rows = []
    for rank, group in table.groupby("rank", sort=False):
        time = group["time_s"].fillna(0.0)
        zero = group["zero_ai"].fillna(False).astype(bool)
        comm = group["communication"].astype(bool)
        apart = sidecar[sidecar["rank"].astype(str) == rank] if sidecar is not None else sidecar
        apart_s = float(apart["time_s"].sum()) if apart is not None else 0.0
        comm_kernels = int(comm.sum()) + (len(apart) if apart is not None else 0)
        comm_s = float(time[comm].sum()) + apart_s
        total = float(time.sum()) + apart_s
        rows.append(
            {
                "rank": rank,
                "device": ", ".join(sorted(set(group["device"].astype(str)))),
                "kernels": len(group),
                "time_s": total,
                "zero_ai_time_share": float(time[zero].sum()) / total if total else float("nan"),
                "communication_kernels": comm_kernels,
                "communication_time_s": comm_s if comm_kernels else float("nan"),
                "communication_time_share": comm_s / total if total and comm_kernels else float("nan"),
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    order = frame["rank"].map(lambda r: (r == "", int(r) if r.isdigit() else 0))
    return frame.loc[order.sort_values().index].reset_index(drop=True)
