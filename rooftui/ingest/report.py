"""What every reader returns: one profiled report as a frame of raw metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.model.metrics import metrics_read

if TYPE_CHECKING:  # pandas is imported by whoever makes a RawReport
    import pandas as pd

# Identity columns every reader fills (NaN/"" where its format lacks them).
IDENTITY_COLUMNS = (
    "ncu_id",  # int: ncu's ID of the launch within the report
    "kernel_name",  # str: ncu's demangled "Kernel Name"
    "process_id",  # int
    "device_index",  # int: ncu's "Device"
    "device",  # str: device__attribute_display_name
    "cc",  # str: "9.0"
    "grid",  # str: "(x, y, z)"
    "block",  # str
    "stream",  # int
    "nvtx",  # str: push/pop ranges of the launching thread, outermost first, " > " joined
)
# The identity columns every reader fills whatever its export holds (summary-csv has
# no stream, grid or block where ncu printed none): what the model cannot do without.
ALWAYS_IDENTIFIED = ("ncu_id", "kernel_name", "device", "cc", "nvtx")
# RawReport.format: which reader made it.
FORMATS = ("raw-csv", "details-csv", "ncu-rep", "metric-runs", "summary-csv")
# Optional: how many launches a row stands for (absent = 1). Readers of data that
# cannot be split per launch (a per-name join, a --print-summary export) set it.
LAUNCHES = "launches"

# The metrics every reader keeps: those rooftui's formulas, rate derivations and
# report ceilings read (one list, in rooftui.model.metrics); the rest of a report
# is dropped as early as each format allows.
_KEPT = frozenset(metrics_read())


def is_relevant_metric(name: str) -> bool:
    """Whether a reader should keep metric ``name`` (ncu's full name with suffixes)."""
    return name in _KEPT


@dataclass
class RawReport:
    """One report as read from disk, before any formula is applied.

    ``kernels`` has one row per profiled launch: the identity columns above and
    one float column per kept metric, named as ncu names it, in base units
    (ns, byte, cycle, Hz, inst, byte/cycle, ...).
    """

    path: str
    format: str  # one of FORMATS
    kernels: pd.DataFrame
    exact: bool  # False when the export rounded values (auto-scaled units)
    notes: list[str] = field(default_factory=list)


# Columns a failed replay still has: what ncu knows of the device without measuring.
_NOT_MEASURED_PREFIXES = ("device__attribute_", "rooftui__")
_NOT_MEASURED_SUFFIXES = (".peak_sustained",)


def failed_launches(kernels: pd.DataFrame) -> pd.Series:
    """Launches whose every measured metric is blank: ncu's replay of them failed.

    Public ``.ncu-rep`` files and CSV exports hold them (a launch ncu could not replay,
    say an out-of-memory kernel): device attributes and peaks are there, every counter
    is NaN. Such a launch is kept, its quantities "not collected", and named in a note
    (``failed_launch_notes``); the rest of the report is read as usual.
    """
    import pandas as pd

    measured = [
        c
        for c in kernels.columns
        if c not in IDENTITY_COLUMNS
        and c != LAUNCHES
        and not c.startswith(_NOT_MEASURED_PREFIXES)
        and not c.endswith(_NOT_MEASURED_SUFFIXES)
    ]
    if not measured:
        return pd.Series(False, index=kernels.index)
    return kernels[measured].isna().all(axis=1)


def failed_launch_notes(kernels: pd.DataFrame, path: str | Path) -> list[str]:
    """One note naming the launches ``failed_launches`` finds (none when there are none);
    InputError when every launch failed (nothing was measured)."""
    from rooftui.errors import InputError

    failed = kernels.loc[failed_launches(kernels)]
    if failed.empty:
        return []
    if len(failed) == len(kernels):
        first = failed.iloc[0]
        raise InputError(
            f"every launch ({len(failed)}) has every metric blank: ncu's replay failed "
            f"(first: ID {int(first['ncu_id'])}, {str(first['kernel_name'])[:60]})",
            path,
            "profile it again and check ncu's output for ==ERROR== lines "
            "(out of memory, a kernel that does not finish, a replay that changes its input)",
        )
    named = ", ".join(
        f"ID {int(row.ncu_id)} ({str(row.kernel_name)[:60]})" for row in failed.head(3).itertuples()
    )
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    return [
        f"{len(failed)} launch(es) with every metric blank (ncu's replay of them failed): "
        f"{named}{more}; kept, with their time, FLOPs and bytes not collected; "
        "re-profile them (ncu -k NAME) to measure them"
    ]
