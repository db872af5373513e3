"""Where a report's bytes per memory level come from: every form ncu has given them in
(tag bytes, per-operation sectors, ncu's derived roofline metrics, Hopper's shared-memory
counters), each with what it counts. Split out of ``rooftui.model.metrics`` (which
re-exports ``BYTE_SOURCES``) so the metric list reads by concern; sources as there:
  [NCU]   Nsight Compute Kernel Profiling Guide, "Metrics Reference".
  [YANG]  Yang, Kurth, Williams, CCPE 2020; Wang, Yang, Williams et al. 2020.
  [KA]    rooftui's known-answer kernels (kernels/known_answer), profiled on an H200.
"""

from __future__ import annotations

from dataclasses import dataclass

from rooftui.model import shared_memory as smem

SECTOR_BYTES = 32  # a sector is 32 bytes at L1TEX, L2 and DRAM [NCU, "Memory Workload Analysis"]


@dataclass(frozen=True)
class ByteSource:
    """One way a report gives a level's bytes: ``scale`` × the sum of ``terms`` (counts,
    each read or derived from its rates like any count), and ``what`` that quantity is,
    shown beside it (``bytes_<level>_source``). ``peak`` is the per-cycle peak of the same
    quantity and ``clock`` the clock it is per (a single-term source only)."""

    terms: tuple[str, ...]
    scale: float
    what: str
    clock: str = ""
    same: bool = True  # the same quantity as the level's first source, counted otherwise

    @property
    def peak(self) -> str:
        return f"{self.terms[0]}.peak_sustained" if len(self.terms) == 1 else ""


def _per_op(prefix: str, ops: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{prefix}{op}.sum" for op in ops)


_LTS_CLOCK = "lts__cycles_elapsed.avg.per_second"
_L1_CLOCK = "l1tex__cycles_elapsed.avg.per_second"
# Per level, in order of preference: the first that gives a launch its bytes is used
# for that launch. The first of each is what the hierarchical roofline counts [YANG]
# (L1 exact on the known-answer kernels [KA]); the others are what ncu's own sets
# hold instead, each a different quantity, so each says what it is:
#  - sector counts × 32, the same traffic counted in sectors (a --print-summary
#    export of sector metrics) [NCU, "Memory Workload Analysis": sectors];
#  - per-operation sectors of ncu's Memory Workload Analysis tables (--set full):
#    global and local loads/stores/atomics/reductions at L1TEX (no texture, surface
#    or shared traffic), and L2 reads/writes/atomics/reductions from every source;
#  - ncu's hierarchical-roofline traffic (SpeedOfLight_Hierarchical*RooflineChart
#    sections, --set roofline): bytes L1 wrote back to the SM for global/local
#    (lg) or also shared (lgds) instructions, and bytes L2 sent to the crossbar;
#    their peaks × the unit's clock are the roofs those sections draw [NCU].
BYTE_SOURCES: dict[str, tuple[ByteSource, ...]] = {
    "l1": (
        ByteSource(("l1tex__t_bytes.sum",), 1.0, "l1tex__t_bytes: L1TEX tag requests", _L1_CLOCK),
        ByteSource(
            ("l1tex__t_sectors.sum",), SECTOR_BYTES, "l1tex__t_sectors × 32: L1TEX tag requests", _L1_CLOCK
        ),
        ByteSource(
            _per_op("l1tex__t_sectors_pipe_lsu_mem_global_op_", ("ld", "st", "atom", "red"))
            + _per_op("l1tex__t_sectors_pipe_lsu_mem_local_op_", ("ld", "st")),
            SECTOR_BYTES,
            "per-operation sectors × 32: global and local loads, stores, atomics and "
            "reductions at L1TEX (not texture, surface or shared memory)",
            same=False,
        ),
        ByteSource(
            ("derived__l1tex__lsu_writeback_bytes_mem_lg.sum",),
            1.0,
            "derived__l1tex__lsu_writeback_bytes_mem_lg: ncu's hierarchical-roofline L1 "
            "traffic, bytes written back to the SM for global and local instructions",
            _L1_CLOCK,
            same=False,
        ),
        ByteSource(
            ("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum",),
            1.0,
            "derived__l1tex__lsu_writeback_bytes_mem_lgds: ncu's hierarchical-roofline L1 "
            "traffic, bytes written back to the SM for global, local and shared "
            "instructions",
            _L1_CLOCK,
            same=False,
        ),
    ),
    "l2": (
        ByteSource(("lts__t_bytes.sum",), 1.0, "lts__t_bytes: L2 tag requests", _LTS_CLOCK),
        ByteSource(("lts__t_sectors.sum",), SECTOR_BYTES, "lts__t_sectors × 32: L2 tag requests", _LTS_CLOCK),
        ByteSource(
            _per_op("lts__t_sectors_op_", ("read", "write", "atom", "red")),
            SECTOR_BYTES,
            "per-operation sectors × 32: L2 reads, writes, atomics and reductions",
            same=False,
        ),
        ByteSource(
            ("derived__lts__lts2xbar_bytes.sum",),
            1.0,
            "derived__lts__lts2xbar_bytes: ncu's hierarchical-roofline L2 traffic, bytes "
            "L2 sent to the crossbar",
            _LTS_CLOCK,
            same=False,
        ),
    ),
    "hbm": (
        ByteSource(("dram__bytes.sum",), 1.0, "dram__bytes", "dram__cycles_elapsed.avg.per_second"),
        ByteSource(
            ("dram__sectors.sum",), SECTOR_BYTES, "dram__sectors × 32", "dram__cycles_elapsed.avg.per_second"
        ),
        ByteSource(
            ("dram__sectors_read.sum", "dram__sectors_write.sum"),
            SECTOR_BYTES,
            "(dram__sectors_read + dram__sectors_write) × 32",
        ),
        ByteSource(
            ("dram__bytes_read.sum", "dram__bytes_write.sum"), 1.0, "dram__bytes_read + dram__bytes_write"
        ),
        # The same two counts as ncu 2026.2 spells them on Blackwell (an RTX 5070 export in
        # the public corpus, docs/corpus.md).
        ByteSource(
            ("dram__bytes_op_read.sum", "dram__bytes_op_write.sum"),
            1.0,
            "dram__bytes_op_read + dram__bytes_op_write",
        ),
    ),
    # Shared memory, every way in and out that ncu counts on Hopper (rooftui.model.shared_memory,
    # [KA] exact on kernels/known_answer/shared_memory); elsewhere ncu's LSU total, if present.
    "smem": (
        ByteSource(smem.HOPPER_TERMS, 1.0, smem.WHAT),
        ByteSource((smem.LSU_TOTAL,), 1.0, smem.LSU_ONLY_WHAT, _L1_CLOCK, same=False),
    ),
}
