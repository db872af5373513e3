"""The instruction roofline's metrics, the walls, and which counts each level adds: the
one place these facts live (``instruction_columns`` applies them to the kernel table).
No pandas here: every reader imports this list.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rooftui.model.byte_sources import SECTOR_BYTES

if TYPE_CHECKING:
    from rooftui.model.ceilings import Ceiling, CeilingSet

WARP_SIZE = 32
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
# The sectors L1 asked L2 for, each counted once at the slice that received it: on a GPU with
# two L2 partitions (A100, H100, H200) L2_SECTORS counts a far-partition request twice,
# 1.5-2x on the H200 known answers (docs/l2-bytes.md). Taken first wherever a launch has it.
L2_SECTORS_FROM_L1 = "lts__t_sectors_srcunit_tex.sum"
DRAM_SECTORS = {op: f"dram__sectors_{op}.sum" for op in ("read", "write")}

# Transactions per memory level [DING]: the terms added. Every term must be present for
# a level's total (a sum of the collected terms alone would be a wrong number).
TRANSACTIONS: dict[str, tuple[str, ...]] = {
    "l1": (*GLOBAL_SECTORS.values(), *LOCAL_SECTORS.values(), *SHARED_WAVEFRONTS.values()),
    "l2": tuple(L2_SECTORS.values()),
    "hbm": tuple(DRAM_SECTORS.values()),
}
LEVELS = tuple(TRANSACTIONS)
TRANSACTION_WHAT = {
    "l1": "global and local load/store sectors + shared-memory load/store wavefronts",
    "l2": "L2 sectors L1 requested (lts__t_sectors_srcunit_tex, each once), else L2 sectors read,"
    " written, atomic and reduction from every source",
    "hbm": "DRAM sectors read and written",
}

# The walls [DING]: the fewest and most transactions one warp-level request can take.
# Global (4-byte words): stride 0 takes 1 sector, unit stride 4, one sector per lane 32.
GLOBAL_WALLS = {"stride-0": 1.0, "unit stride (4 B)": 4.0, "one sector per lane": 32.0}
# Shared (4-byte words): 1 wavefront without bank conflicts, 32 with 32-way conflicts.
SHARED_WALLS = {"no bank conflict": 1.0, "32-way bank conflict": 32.0}

SHARED_WAVEFRONT_BYTES = 128  # one shared-memory wavefront moves up to 128 B [NCU]

# The roofs of the instruction roofline [DING]: the issue rate (warp instructions per
# second) and each level's transaction rate (its bandwidth ÷ the bytes of a transaction).
ISSUE = "issue"
ROOF_LABELS = {ISSUE: "Warp issue", "l1": "L1", "l2": "L2", "hbm": "HBM", "smem": "Shared"}
ROOF_UNITS = {ISSUE: "warp inst/s", **{name: "transactions/s" for name in ("l1", "l2", "hbm", "smem")}}
TRANSACTION_BYTES = {
    "l1": SECTOR_BYTES,
    "l2": SECTOR_BYTES,
    "hbm": SECTOR_BYTES,
    "smem": SHARED_WAVEFRONT_BYTES,
}


@dataclass(frozen=True)
class InstructionRoof:
    """One roof of the instruction roofline: warp instructions per second (``issue``) or
    transactions per second (a memory level, or ``smem`` for shared wavefronts)."""

    name: str  # a key of ROOF_LABELS
    label: str  # "Warp issue", "L1", ...
    value: float  # per second
    unit: str  # ROOF_UNITS[name]
    source: str  # how it was obtained, for the detail pane and the JSON
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # how it was measured

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "value": self.value,
            "unit": self.unit,
            "source": self.source,
            **self.extra,
        }


def transaction_roof(
    level: str, bytes_per_s: float, bandwidth: str, extra: dict[str, Any]
) -> InstructionRoof:
    """A level's transaction rate: its bandwidth ÷ 32 B per sector (shared memory: ÷ 128 B
    per wavefront) [DING]. ``bandwidth`` names the bandwidth and where it came from, as the
    roof's source begins ("derived from measured L2 bandwidth (8.984 TB/s)")."""
    per = TRANSACTION_BYTES[level]
    what = "wavefront" if level == "smem" else "sector"
    return InstructionRoof(
        level,
        ROOF_LABELS[level],
        bytes_per_s / per,
        ROOF_UNITS[level],
        f"{bandwidth} ÷ {per} B per {what}",
        extra,
    )


def chosen_instruction_roofs(
    sources: Sequence[tuple[str, CeilingSet | None]], chosen: Mapping[tuple[str, str], Ceiling]
) -> tuple[InstructionRoof, ...]:
    """The saved instruction roofs a run uses (``analysis.ceilings.choose_ceilings``): the
    issue rate from the first source that saved one; a level's transaction rate only from
    the source whose bandwidth the run uses for that level, and only if it was derived from
    that very value (else the roofline derives it again at load). Each roof's source says
    where it was found."""
    from rooftui.model.ceilings import SOURCE_LABELS

    found = dict(sources)
    roofs: list[InstructionRoof] = []
    for source, ceiling_set in sources:
        issue = _saved(ceiling_set, ISSUE)
        if issue is not None:
            roofs.append(_stamped(issue, source, ceiling_set, SOURCE_LABELS))
            break
    for level in TRANSACTION_BYTES:
        bandwidth = chosen.get(("bandwidth", level))
        if bandwidth is None:
            continue
        saved = _saved(found.get(bandwidth.source), level)
        derived = saved.extra.get("derived_from") if saved is not None else None
        if saved is not None and isinstance(derived, dict) and derived.get("bytes_per_s") == bandwidth.value:
            roofs.append(_stamped(saved, bandwidth.source, found[bandwidth.source], SOURCE_LABELS))
    return tuple(roofs)


def _saved(ceiling_set: CeilingSet | None, name: str) -> InstructionRoof | None:
    if ceiling_set is None:
        return None
    return next((roof for roof in ceiling_set.instruction_roofs if roof.name == name), None)


def _stamped(
    roof: InstructionRoof, source: str, ceiling_set: CeilingSet | None, labels: Mapping[str, str]
) -> InstructionRoof:
    where = labels.get(source, source)
    origin = ceiling_set.origin if ceiling_set is not None else ""
    return replace(roof, source=f"{roof.source} ({where}{': ' + origin if origin else ''})")


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


if __name__ == "__main__":  # used by sample_data/make/make_instructions.sh on the GPU node
    print(",".join(instruction_metrics()))
