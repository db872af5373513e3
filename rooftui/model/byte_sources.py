"""Where a report's bytes per memory level come from: every form ncu has given them in
(tag bytes, per-operation sectors, ncu's derived roofline metrics, Hopper's shared-memory
counters), each with what it counts. Split out of ``rooftui.model.metrics`` (which
re-exports ``BYTE_SOURCES``) so the metric list reads by concern; sources as there:
  [NCU]   Nsight Compute Kernel Profiling Guide, "Metrics Reference".
  [YANG]  Yang, Kurth, Williams, CCPE 2020; Wang, Yang, Williams et al. 2020.
  [KA]    rooftui's known-answer kernels (kernels/known_answer), profiled on an H200.
  [L2]    kernels/known_answer/l2 on an H200 and the public corpus (docs/l2-bytes.md).
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
    roof: bool = True  # its peak may give the level's report roof

    @property
    def peak(self) -> str:
        return f"{self.terms[0]}.peak_sustained" if len(self.terms) == 1 and self.roof else ""


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
# The L2 tag lookups, from every source: the paper's L2 [YANG]. Where the L2 has two
# partitions, a lookup that misses the near one is looked up again at the far one [L2].
_L2_TAG_LOOKUPS = (
    ByteSource(("lts__t_bytes.sum",), 1.0, "lts__t_bytes: L2 tag requests", _LTS_CLOCK),
    ByteSource(("lts__t_sectors.sum",), SECTOR_BYTES, "lts__t_sectors × 32: L2 tag requests", _LTS_CLOCK),
    ByteSource(
        _per_op("lts__t_sectors_op_", ("read", "write", "atom", "red")),
        SECTOR_BYTES,
        "per-operation sectors × 32: L2 reads, writes, atomics and reductions",
        same=False,
    ),
)
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
        *_L2_TAG_LOOKUPS,
        ByteSource(
            ("derived__lts__lts2xbar_bytes.sum",),
            1.0,
            "derived__lts__lts2xbar_bytes: ncu's hierarchical-roofline L2 traffic, bytes "
            "L2 returned to the crossbar: reads only, stores not counted (half of a copy's "
            "L1<->L2 bytes on the H200)",
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


# The L2 level counts the bytes between L1 and L2 once. lts__t_bytes (BYTE_SOURCES, the
# paper's L2 [YANG]) counts every L2 tag lookup, and on GPUs whose L2 is split in two
# partitions (A100, H100, H200) a request for a line the other partition holds is looked
# up twice: at the near slice (source unit tex) and again at the far one (source unit
# ltcfabric). lts__t_sectors_srcunit_tex counts each L1 request once, at the slice that
# received it: exact on the H200 known answers, where lts__t_bytes is 1.5-2x [L2].
L2_FROM_L1 = "lts__t_sectors_srcunit_tex.sum"
L2_FROM_L1_WHAT = "lts__t_sectors_srcunit_tex × 32: L2 sectors L1 requested, each counted once"
# Taken before a level's BYTE_SOURCES wherever a launch has them; no report peak (the
# level's roof stays the L2 tag rate of BYTE_SOURCES).
PREFERRED_BYTE_SOURCES: dict[str, tuple[ByteSource, ...]] = {
    "l2": (ByteSource((L2_FROM_L1,), SECTOR_BYTES, L2_FROM_L1_WHAT, roof=False),),
}
# Compute capabilities of the GPUs whose L2 has two partitions joined by the L2 fabric
# and seen to look far requests up twice: GA100 (public A100 reports) and GH100 (the H200
# known answers, public H100 and GH200 reports) [L2]. ncu 2025.3 offers the fabric source
# on gb100 too (B200): not seen in any report, so not listed.
TWO_L2_PARTITIONS = ("8.0", "9.0")
# What L2 bytes are where they count those lookups twice on such a GPU.
L2_COUNTED_TWICE = frozenset(source.what for source in _L2_TAG_LOOKUPS)


def l2_counted_twice_note(launches: int) -> str:
    """What a user is told when launches on such a GPU have L2 bytes from lts__t_bytes."""
    return (
        f"L2 bytes of {launches} launch(es) are L2 tag lookups (lts__t_bytes or lts__t_sectors, "
        "the paper's L2) on a GPU with two L2 partitions (A100, H100, H200), where a "
        "request for the far partition is looked up at both: 1.5-2x the bytes L1 moved on the "
        "H200 known answers, so L2 AI is understated (docs/l2-bytes.md); collect "
        "lts__t_sectors_srcunit_tex for the L1<->L2 bytes without the double count"
    )


def l2_counts(source: object, cc: str) -> str:
    """What a launch's L2 bytes count where they are tag lookups (the detail pane); "" where
    the bytes are another quantity, which the bytes line itself names."""
    if source not in L2_COUNTED_TWICE:
        return ""
    counter = str(source).split(":")[0]
    if cc in TWO_L2_PARTITIONS:
        return (
            f"L2 tag lookups ({counter}, the paper's L2): a request for the far L2 partition "
            "is counted twice on this GPU (1.5-2x; docs/l2-bytes.md)"
        )
    return f"L2 tag lookups from every source ({counter}, the paper's L2)"


# Where ncu offers lts__t_sectors_srcunit_tex (ncu fails a whole run on a name it does not
# know, so rooftui profile asks for it only there): ncu 2025.3's --query-metrics --chip [L2].
# Volta is not in ncu 2025.3's tables; Turing to Blackwell (tu102 ... gb202) all offer it.
L2_FROM_L1_ARCHITECTURES = ("Turing", "Ampere", "Ada", "Hopper", "Blackwell")
