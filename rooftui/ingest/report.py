"""What every reader returns: one profiled report as a frame of raw metrics."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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

# The metrics worth keeping from a report: rooftui's inputs, the rates ncu's
# roofline sections store instead of counts, the peaks, and the device facts.
_RELEVANT_BASE = re.compile(
    r"^(gpu__time_duration|gpu__time_active|(sm|smsp|l1tex|lts|dram|gpc|gpu)__cycles_elapsed"
    r"|(sm|smsp)__sass_thread_inst_executed_op_[dfh](add|mul|fma)_pred_on"
    r"|sm__ops_path_tensor_src_\w+|(sm|smsp)__inst_executed_pipe_tensor(_op_\w+)?"
    r"|l1tex__t_bytes|lts__t_bytes|dram__bytes(_read|_write)?"
    r"|l1tex__t_sectors|lts__t_sectors|dram__sectors(_read|_write)?"
    r"|device__attribute_(display_name|multiprocessor_count|clock_rate|compute_capability_major"
    r"|compute_capability_minor|l2_cache_size))$"
)
_RELEVANT_SUFFIX = (
    "", ".sum", ".avg", ".sum.peak_sustained", ".sum.per_cycle_elapsed", ".sum.per_second",
    ".avg.per_second", ".avg.per_cycle_elapsed", ".avg.peak_sustained",
)


def is_relevant_metric(name: str) -> bool:
    """Whether a reader should keep metric ``name`` (ncu's full name with suffixes)."""
    base, dot, suffix = name.partition(".")
    if not _RELEVANT_BASE.match(base):
        return False
    # .max of elapsed cycles: the GPC and whole-GPU cycle counts that give a time
    return (dot + suffix) in _RELEVANT_SUFFIX or (suffix == "max" and base.endswith("cycles_elapsed"))


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
