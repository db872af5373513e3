"""The instruction roofline's kernel-table columns: counts summed from the metrics of
``rooftui.model.instructions`` and the ratios of the roofline [DING][NCU] (sources named
there)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rooftui.model import instructions as ins

if TYPE_CHECKING:
    from rooftui.model.kernel_table import Numbers

# Kernel-table columns of counts (summed over launches when grouped), each the sum of
# these metrics [NCU]; NaN where any term was not collected (never a partial sum).
COUNT_COLUMNS: dict[str, tuple[str, ...]] = {
    "warp_instructions": (ins.WARP_INSTRUCTIONS,),
    "thread_instructions": (ins.THREAD_INSTRUCTIONS,),
    "thread_instructions_pred_on": (ins.THREAD_INSTRUCTIONS_PRED_ON,),
    "global_requests": tuple(ins.GLOBAL_REQUESTS.values()),
    "global_sectors": tuple(ins.GLOBAL_SECTORS.values()),
    "shared_requests": tuple(ins.SHARED_INSTRUCTIONS.values()),
    "shared_wavefronts": tuple(ins.SHARED_WAVEFRONTS.values()),
    **{f"transactions_{level}": terms for level, terms in ins.TRANSACTIONS.items()},
}
LEVELS = ins.LEVELS
# Ratio columns, recomputed from the summed counts (never averaged).
RATIO_COLUMNS = (
    "warp_efficiency",
    "warp_efficiency_pred_on",
    *(f"instruction_intensity_{level}" for level in LEVELS),
    "sectors_per_request",
    "wavefronts_per_request",
    "warp_instruction_rate",
)


def count_columns(raw: Numbers, read: Callable[[str], np.ndarray]) -> dict[str, np.ndarray]:
    """The count columns of ``COUNT_COLUMNS`` for one report's launches (``read(metric)``
    gives a count per launch, NaN where the report lacks it), and ``issue_peak_per_cycle``,
    the report's own warp-instruction issue peak per SM cycle (``ins.ISSUE_PEAK``).
    ``raw``: the report's columns as float arrays (``kernel_table.Numbers``)."""
    values = {metric: read(metric) for metric in ins.instruction_counts()}
    out = {}
    for column, terms in COUNT_COLUMNS.items():
        out[column] = sum((values[t] for t in terms[1:]), values[terms[0]])  # NaN if any term is
    # L2: the sectors L1 requested, once, where the launch has them (docs/l2-bytes.md)
    from_l1 = read(ins.L2_SECTORS_FROM_L1)
    out["transactions_l2"] = np.where(np.isnan(from_l1), out["transactions_l2"], from_l1)
    out["issue_peak_per_cycle"] = (
        raw[ins.ISSUE_PEAK].copy() if ins.ISSUE_PEAK in raw else np.full(len(raw), np.nan)
    )
    return out


def _ratio(top: pd.Series, bottom: pd.Series) -> np.ndarray:
    """top / bottom, NaN where bottom is not above 0 (on arrays: rows of one table)."""
    under = bottom.to_numpy(dtype=float, na_value=np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(under > 0, top.to_numpy(dtype=float, na_value=np.nan) / under, np.nan)


def add_ratios(table: pd.DataFrame) -> pd.DataFrame:
    """The ratio columns from the count columns and ``time_s``, in place [DING][NCU]:
    warp efficiency = thread instructions / warp instructions / 32 (1 when every lane of
    every warp ran every instruction); instruction intensity per level = warp instructions
    / transactions; sectors per global request; wavefronts per shared request; warp
    instructions per second. NaN where a count is missing or a divisor is 0."""
    warp = table["warp_instructions"]
    table["warp_efficiency"] = _ratio(table["thread_instructions"], warp * ins.WARP_SIZE)
    table["warp_efficiency_pred_on"] = _ratio(table["thread_instructions_pred_on"], warp * ins.WARP_SIZE)
    for level in LEVELS:
        table[f"instruction_intensity_{level}"] = _ratio(warp, table[f"transactions_{level}"])
    table["sectors_per_request"] = _ratio(table["global_sectors"], table["global_requests"])
    table["wavefronts_per_request"] = _ratio(table["shared_wavefronts"], table["shared_requests"])
    table["warp_instruction_rate"] = _ratio(warp, table["time_s"])
    return table
