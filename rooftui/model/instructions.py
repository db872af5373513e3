"""The instruction roofline's metrics and formulas: the one place these facts live.

Sources (each entry below names its own):
  [DING]  N. Ding, S. Williams, "An Instruction Roofline Model for GPUs" (PMBS'19, SC19
          workshops; extended in CCPE 2021): performance in warp GIPS (billions of warp
          instructions per second); instruction intensity = warp instructions per
          transaction at each memory level (L1: global and local 32-byte sectors plus
          shared-memory wavefronts; L2: sectors of every L2 operation; HBM: DRAM
          sectors); the walls are the same counts per request (global: 1 sector per
          request for a stride-0 access, 32 for one sector per lane; shared: 1 wavefront
          per request without bank conflicts, 32 with 32-way conflicts).
  [NCU]   Nsight Compute Kernel Profiling Guide, "Metrics Reference" and "Memory
          Workload Analysis": inst_executed counts warp-level instructions,
          thread_inst_executed the active threads of each; a sector is 32 bytes;
          a shared-memory wavefront is one pass of the data pipe (up to 128 bytes).
  [KAI]   rooftui's instruction known-answer kernels (kernels/known_answer/instructions),
          profiled on an H200 (sample_data/known_answer/instructions);
          tests/core/test_instruction_known_answers.py pins each count to the one
          derived from the kernel's SASS and access pattern.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

WARP_SIZE = 32
SECTOR_BYTES = 32  # [NCU]: L1TEX, L2 and DRAM sectors
SCHEDULERS_PER_SM = 4  # one warp instruction issued per scheduler per cycle, Volta to Blackwell [DING][NCU]

# Counts [NCU], each summed over the GPU.
WARP_INSTRUCTIONS = "smsp__inst_executed.sum"
THREAD_INSTRUCTIONS = "smsp__thread_inst_executed.sum"
THREAD_INSTRUCTIONS_PRED_ON = "smsp__thread_inst_executed_pred_on.sum"
ISSUE_PEAK = f"{WARP_INSTRUCTIONS}.peak_sustained"  # warp instructions per cycle, whole GPU

GLOBAL_SECTORS = {op: f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum" for op in ("ld", "st")}
GLOBAL_REQUESTS = {op: f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum" for op in ("ld", "st")}
LOCAL_SECTORS = {op: f"l1tex__t_sectors_pipe_lsu_mem_local_op_{op}.sum" for op in ("ld", "st")}
SHARED_WAVEFRONTS = {op: f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum" for op in ("ld", "st")}
SHARED_INSTRUCTIONS = {op: f"smsp__inst_executed_op_shared_{op}.sum" for op in ("ld", "st")}
L2_SECTORS = {op: f"lts__t_sectors_op_{op}.sum" for op in ("read", "write", "atom", "red")}
DRAM_SECTORS = {op: f"dram__sectors_{op}.sum" for op in ("read", "write")}

# Transactions per memory level [DING]: the terms added. Every term must be present for
# a level's total (a sum of the collected terms alone would be a wrong number).
TRANSACTIONS: dict[str, tuple[str, ...]] = {
    "l1": (*GLOBAL_SECTORS.values(), *LOCAL_SECTORS.values(), *SHARED_WAVEFRONTS.values()),
    "l2": tuple(L2_SECTORS.values()),
    "hbm": tuple(DRAM_SECTORS.values()),
}
TRANSACTION_WHAT = {
    "l1": "global and local load/store sectors + shared-memory load/store wavefronts",
    "l2": "L2 sectors read, written, atomic and reduction",
    "hbm": "DRAM sectors read and written",
}

# The walls [DING]: the fewest and most transactions one warp-level request can take.
# Global (4-byte words): stride 0 takes 1 sector, unit stride 4, one sector per lane 32.
GLOBAL_WALLS = {"stride-0": 1.0, "unit stride (4 B)": 4.0, "one sector per lane": 32.0}
# Shared (4-byte words): 1 wavefront without bank conflicts, 32 with 32-way conflicts.
SHARED_WALLS = {"no bank conflict": 1.0, "32-way bank conflict": 32.0}


# Kernel-table columns of counts (summed over launches when grouped), each the sum of
# these metrics [NCU]; NaN where any term was not collected (never a partial sum).
COUNT_COLUMNS: dict[str, tuple[str, ...]] = {
    "warp_instructions": (WARP_INSTRUCTIONS,),
    "thread_instructions": (THREAD_INSTRUCTIONS,),
    "thread_instructions_pred_on": (THREAD_INSTRUCTIONS_PRED_ON,),
    "global_requests": tuple(GLOBAL_REQUESTS.values()),
    "global_sectors": tuple(GLOBAL_SECTORS.values()),
    "shared_requests": tuple(SHARED_INSTRUCTIONS.values()),
    "shared_wavefronts": tuple(SHARED_WAVEFRONTS.values()),
    **{f"transactions_{level}": terms for level, terms in TRANSACTIONS.items()},
}
LEVELS = tuple(TRANSACTIONS)
# Ratio columns, recomputed from the summed counts (never averaged).
RATIO_COLUMNS = (
    "warp_efficiency",
    "warp_efficiency_pred_on",
    *(f"instruction_intensity_{level}" for level in LEVELS),
    "sectors_per_request",
    "wavefronts_per_request",
    "warp_instruction_rate",
)


def count_columns(raw: pd.DataFrame, read: Callable[[str], pd.Series]) -> pd.DataFrame:
    """The count columns of ``COUNT_COLUMNS`` for one report's launches (``read(metric)``
    gives a count per launch, NaN where the report lacks it), and ``issue_peak_per_cycle``,
    the report's own warp-instruction issue peak per SM cycle (``ISSUE_PEAK``)."""
    values = {metric: read(metric) for metric in instruction_counts()}
    out = pd.DataFrame(index=raw.index)
    for column, terms in COUNT_COLUMNS.items():
        out[column] = sum((values[t] for t in terms[1:]), values[terms[0]])  # NaN if any term is
    out["issue_peak_per_cycle"] = raw[ISSUE_PEAK].astype(float) if ISSUE_PEAK in raw else np.nan
    return out


def _ratio(top: pd.Series, bottom: pd.Series) -> pd.Series:
    return (top / bottom).where(bottom > 0)


def add_ratios(table: pd.DataFrame) -> pd.DataFrame:
    """The ratio columns from the count columns and ``time_s``, in place [DING][NCU]:
    warp efficiency = thread instructions / warp instructions / 32 (1 when every lane of
    every warp ran every instruction); instruction intensity per level = warp instructions
    / transactions; sectors per global request; wavefronts per shared request; warp
    instructions per second. NaN where a count is missing or a divisor is 0."""
    warp = table["warp_instructions"]
    table["warp_efficiency"] = _ratio(table["thread_instructions"], warp * WARP_SIZE)
    table["warp_efficiency_pred_on"] = _ratio(table["thread_instructions_pred_on"], warp * WARP_SIZE)
    for level in LEVELS:
        table[f"instruction_intensity_{level}"] = _ratio(warp, table[f"transactions_{level}"])
    table["sectors_per_request"] = _ratio(table["global_sectors"], table["global_requests"])
    table["wavefronts_per_request"] = _ratio(table["shared_wavefronts"], table["shared_requests"])
    table["warp_instruction_rate"] = _ratio(warp, table["time_s"])
    return table


def instruction_counts() -> list[str]:
    """Every count the instruction roofline reads, in a stable order."""
    names = [WARP_INSTRUCTIONS, THREAD_INSTRUCTIONS, THREAD_INSTRUCTIONS_PRED_ON]
    names += [*GLOBAL_REQUESTS.values(), *SHARED_INSTRUCTIONS.values()]
    for terms in TRANSACTIONS.values():
        names += terms
    return list(dict.fromkeys(names))


def instruction_metrics() -> list[str]:
    """What ``ncu --metrics`` needs for the instruction roofline: the counts and the issue peak."""
    return [*instruction_counts(), ISSUE_PEAK]


if __name__ == "__main__":  # used by sample_data/make/make_instructions.sh on the GPU node (has pandas)
    print(",".join(instruction_metrics()))
