"""What every reader returns: one profiled report as a frame of raw metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
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
    format: str  # "raw-csv" | "details-csv" | "ncu-rep" | "metric-runs" | "summary-csv"
    kernels: pd.DataFrame
    exact: bool  # False when the export rounded values (auto-scaled units)
    notes: list[str] = field(default_factory=list)
