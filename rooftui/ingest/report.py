"""What every reader returns: one profiled report as a frame of raw metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.errors import InputError
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
# The identity columns a cache entry must hold to be used: what the model cannot do
# without (the CSV readers fill every identity column, blank where the export has none).
ALWAYS_IDENTIFIED = ("ncu_id", "kernel_name", "device", "cc", "nvtx")
# What a RawReport's ``format`` says it was read from.
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


def is_measured(column: str) -> bool:
    """Whether ``column`` holds something ncu measured of a launch: not an identity fact,
    a device attribute or a peak, which a failed replay still has."""
    return (
        column not in IDENTITY_COLUMNS
        and column != LAUNCHES
        and not column.startswith(_NOT_MEASURED_PREFIXES)
        and not column.endswith(_NOT_MEASURED_SUFFIXES)
    )


def failed_launches(kernels: pd.DataFrame) -> pd.Series:
    """Launches whose every measured metric is blank: ncu's replay of them failed.

    Public ``.ncu-rep`` files and CSV exports hold them (a launch ncu could not replay,
    say an out-of-memory kernel): device attributes and peaks are there, every counter
    is NaN. Such a launch is kept, its quantities "not collected", and named in a note
    (``failed_launch_notes``); the rest of the report is read as usual.
    """
    import pandas as pd

    measured = [c for c in kernels.columns if is_measured(c)]
    if not measured:
        return pd.Series(False, index=kernels.index)
    return kernels[measured].isna().all(axis=1)


def failed_launch_notes(kernels: pd.DataFrame, path: str | Path) -> list[str]:
    """One note naming the launches ``failed_launches`` finds (none when there are none);
    InputError when every launch failed (nothing was measured)."""
    failing = failed_launches(kernels)
    if not failing.any():  # most reports: no launch to name, no rows to copy
        return []
    failed = kernels.loc[failing]
    if len(failed) == len(kernels):
        first = failed.iloc[0]
        raise every_launch_failed(len(failed), int(first["ncu_id"]), first["kernel_name"], path)
    first_three = list(zip(failed["ncu_id"].head(3), failed["kernel_name"].head(3)))
    return [failed_launch_note(first_three, len(failed))]


def every_launch_failed(count: int, first_id: int, first_name: object, path: str | Path) -> InputError:
    """The error for a report whose every launch has every metric blank."""
    return InputError(
        f"every launch ({count}) has every metric blank: ncu's replay failed "
        f"(first: ID {first_id}, {str(first_name)[:60]})",
        path,
        "profile it again and check ncu's output for ==ERROR== lines "
        "(out of memory, a kernel that does not finish, a replay that changes its input)",
    )


def failed_launch_note(first: list[tuple[int, object]], count: int) -> str:
    """The note naming ``count`` launches with every metric blank, ``first`` (ID, name)
    of them by name (three at most); pandas-free, for the ``.ncu-rep`` reader child."""
    named = ", ".join(f"ID {int(ncu_id)} ({str(name)[:60]})" for ncu_id, name in first[:3])
    more = f" and {count - 3} more" if count > 3 else ""
    return (
        f"{count} launch(es) with every metric blank (ncu's replay of them failed): "
        f"{named}{more}; kept, with their time, FLOPs and bytes not collected; "
        "re-profile them (ncu -k NAME) to measure them"
    )
