"""Which Nsight Compute metrics rooftui reads, and the formulas that turn them into
FLOPs and bytes: the one place these facts live, with the modules beside it that each
hold one kind (byte_sources, instructions, shared_memory, pipe_activity), whose names
``metrics_read`` gathers.

Sources (each entry below names its own):
  [NCU]   Nsight Compute Kernel Profiling Guide, "Metrics Reference" and the
          roofline sections' metric lists (SpeedOfLight_RooflineChart, ...).
  [YANG]  C. Yang, T. Kurth, S. Williams, "Hierarchical Roofline analysis for
          GPUs: Accelerating performance optimization for the NERSC-9 Perlmutter
          system" (CCPE 2020) and Wang, Yang, Williams et al., "Hierarchical
          Roofline Performance Analysis for Deep Learning Applications" (2020):
          FLOPs = add + mul + 2·fma per precision; Volta Tensor Core FLOPs =
          sm__inst_executed_pipe_tensor.sum × 512.
  [KA]    rooftui's known-answer kernels (kernels/known_answer), profiled on an
          H200 (sample_data/known_answer); tests/core/test_known_answers.py pins them.
  [NERSC] NERSC's roofline-on-nvidia-gpus scripts (custom-scripts/postprocess.py)
          and the paper's own post-processing (GitHub cyanguwa/DeepLearningProfiling,
          postprocess-PT.ipynb): time = sm__cycles_elapsed.avg /
          sm__cycles_elapsed.avg.per_second, counters spelt sm__sass_*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rooftui.model import instructions, pipe_activity
from rooftui.model import shared_memory as smem
from rooftui.model.byte_sources import (
    BYTE_SOURCES,
    L2_FROM_L1,
    L2_FROM_L1_ARCHITECTURES,
    PREFERRED_BYTE_SOURCES,
)

# --- counts that are the same on every architecture since Volta --------------------
TIME = "gpu__time_duration.sum"  # ns in ncu's base units [NCU]
SM_CYCLES = "sm__cycles_elapsed.avg"  # elapsed SM cycles [NCU]
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"  # SM clock during the kernel [NCU]
# Clocks of the other units, for turning their per-cycle peaks into per-second ones.
UNIT_CLOCKS = {
    "sm": SM_CLOCK,
    "smsp": SM_CLOCK,
    "l1tex": SM_CLOCK,
    "lts": "lts__cycles_elapsed.avg.per_second",
    "dram": "dram__cycles_elapsed.avg.per_second",
}
DISPLAY_NAME = "device__attribute_display_name"  # free: device attributes cost no pass
# The device facts a report may carry instead of a CC column (older exports) [NCU].
DEVICE_ATTRIBUTES = (
    "device__attribute_compute_capability_major",
    "device__attribute_compute_capability_minor",
    "device__attribute_multiprocessor_count",
    "device__attribute_clock_rate",
    "device__attribute_l2_cache_size",
)

# Time when a report has no gpu__time_duration, in order of preference: elapsed
# cycles / the clock they ran at [NERSC] (the SM, GPC or whole-GPU clock domain:
# [NCU] names each unit's cycles_elapsed and its .per_second), else the time the
# GPU was active on the kernel [NCU].
TIME_FROM_CYCLES: tuple[tuple[str, str], ...] = (
    (SM_CYCLES, SM_CLOCK),
    # The SMSP runs on the SM's clock; ncu's own roofline sections take achieved work
    # as per_cycle_elapsed × smsp__cycles_elapsed.avg.per_second [NCU], and NERSC-variant
    # reports carry only this pair. Cycles and rate of one unit only: never mixed.
    ("smsp__cycles_elapsed.avg", "smsp__cycles_elapsed.avg.per_second"),
    ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second"),
    ("gpu__cycles_elapsed.max", "gpu__cycles_elapsed.avg.per_second"),
)
TIME_ACTIVE = ("gpu__time_active.sum", "gpu__time_active.avg")  # ns

# Other spellings of the same count: a counter summed at another unit level is the
# same total, since every SMSP belongs to exactly one SM and .sum adds all instances
# [NCU, "Metrics Structure": unit__counter.sum]. ncu 2019.5-2020.x reports and
# NERSC's scripts [NERSC] use the sm__ spelling of the sass counters, rooftui the
# smsp__ one; pipe_tensor is the other way round. Both spellings of each are
# collected in the known-answer report and pinned by tests/ingest/test_spellings.py.
SPELLINGS: dict[str, tuple[str, ...]] = {
    **{
        f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum": (
            f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum",
        )
        for op in ("dadd", "dmul", "dfma", "fadd", "fmul", "ffma", "hadd", "hmul", "hfma")
    },
    "sm__inst_executed_pipe_tensor.sum": ("smsp__inst_executed_pipe_tensor.sum",),
}


def spellings(metric: str) -> tuple[str, ...]:
    """``metric`` and the other names ncu gives the same count, rooftui's first."""
    return (metric, *SPELLINGS.get(metric, ()))


# FLOPs on CUDA cores, per thread instruction. FP64/FP32: add + mul + 2·fma [YANG],
# exact on the known-answer daxpy, saxpy, add_mul and FMA loops [KA].
# FP16: every half instruction is taken as packed (HADD2/HMUL2/HFMA2: 2, 2 and 4
# FLOPs), the rule of ncu's own roofline section (its derived metric
# smsp__sass_thread_inst_executed_op_hfma_pred_on_x4 [NCU]). [KA] on sm_90: exact
# for a __half2 loop, and for a scalar __half loop too, since nvcc packs two
# scalar FMAs into one HFMA2; it over-counts true scalar code, and kernels with
# no FP16 math still show HFMA2.MMA register moves (1 per thread in the FP32 and
# FP64 loops). Hence FP16 CUDA-core FLOPs are always marked approximate.
# BF16 on CUDA cores has no counter of its own: HFMA2.BF16 is counted by the hfma
# counter [KA: a __nv_bfloat162 loop, exact], so "fp16" here means FP16 and BF16.
# --fp16-rule paper counts half instructions like FP32 ones (hadd + hmul + 2·hfma),
# the rule of the paper's and NERSC's post-processing [YANG][NERSC], to reproduce
# their published numbers; "packed" (the default) is the rule above.
FP16_RULES = {"packed": (2.0, 2.0, 4.0), "paper": (1.0, 1.0, 2.0)}
DEFAULT_FP16_RULE = "packed"


def cuda_core_terms(fp16_rule: str = DEFAULT_FP16_RULE) -> dict[str, tuple[tuple[str, float], ...]]:
    """Per precision: (counter, FLOPs per thread instruction) for add, mul and fma."""
    factors = {"fp64": (1.0, 1.0, 2.0), "fp32": (1.0, 1.0, 2.0), "fp16": FP16_RULES[fp16_rule]}
    return {
        precision: tuple(
            (f"smsp__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum", factor)
            for op, factor in zip(("add", "mul", "fma"), factors[precision])
        )
        for precision, letter in (("fp64", "d"), ("fp32", "f"), ("fp16", "h"))
    }


CUDA_CORE_TERMS = cuda_core_terms()

# HFMA2 register moves (HFMA2.MMA Rd, -RZ, RZ, imm, imm: ptxas's constant loads),
# thread executions, counted by rooftui from the SASS and the per-instruction counts
# of ncu's SourceCounters section (rooftui.ingest.sass_moves); NaN when a report has
# no instruction-level data. ncu's hfma counter counts each as one hfma, so the FP16
# rule above gave each the hfma weight; that weight is taken out again. [KA] on sm_90
# (register_moves.cu): moves-only FP32/FP64 kernels then have no FP16 FLOPs, and
# __hfma2 math keeps exactly its FLOPs, alone or beside the moves.
REGISTER_MOVES = "rooftui__hfma2_register_moves"

# Bytes per memory level: requests at the L1TEX and L2 tag stages and DRAM traffic,
# the levels of the hierarchical roofline [YANG]; L1 verified exactly [KA].
BYTES = {
    "l1": "l1tex__t_bytes.sum",
    "l2": "lts__t_bytes.sum",
    "hbm": "dram__bytes.sum",
}

FP16_NOTE = (
    "FP16 CUDA-core FLOPs are approximate: ncu counts a packed HFMA2 (two FMAs) like a "
    "scalar HFMA (one), and the compiler also emits HFMA2.MMA as a register move in "
    "kernels with no FP16 math. rooftui, like ncu's roofline section, takes every half "
    "instruction as packed: hadd and hmul 2 FLOPs, hfma 4. BF16 on CUDA cores is counted "
    "with FP16 (ncu's hfma counter takes HFMA2.BF16)."
)
FP16_PAPER_NOTE = (
    "FP16 CUDA-core FLOPs by the paper's rule (--fp16-rule paper): hadd and hmul 1 FLOP, "
    "hfma 2, as the paper and NERSC's scripts count; approximate like every FP16 count "
    "(ncu counts a packed HFMA2 like a scalar HFMA). BF16 on CUDA cores is counted with FP16."
)


def fp16_note(fp16_rule: str) -> str:
    return FP16_PAPER_NOTE if fp16_rule == "paper" else FP16_NOTE


@dataclass(frozen=True)
class TensorTerm:
    """Tensor Core work of one source type: ``metric`` × ``factor`` FLOPs (or OPs)."""

    pipeline: str
    metric: str
    factor: float
    source: str
    # The counter's .peak_sustained is the 2:4-sparse rate for every type but FP64
    # (Ampere on): the dense peak is half. On the H200 rooftui measure's wgmma runs
    # reach 0.997 of peak_sustained/2 per clock (sample_data/ceilings/h200.json).
    peak_factor: float = 1.0


@dataclass(frozen=True)
class Architecture:
    name: str
    cc_major: tuple[int, ...]
    cc: tuple[str, ...]
    tensor: tuple[TensorTerm, ...]
    verified: bool  # known-answer kernels checked on such a GPU
    note: str
    shared_memory: tuple[str, ...] = ()  # the SMEM level's counters, where checked to exist


_VOLTA_RULE = (
    TensorTerm(
        "tensor_fp16",
        "sm__inst_executed_pipe_tensor.sum",
        512.0,
        "[YANG]: each warp-level HMMA on Volta is 512 FLOPs",
    ),
)


def _ops_path(*types: tuple[str, str]) -> tuple[TensorTerm, ...]:
    return tuple(
        TensorTerm(
            pipeline,
            f"sm__ops_path_tensor_src_{src}.sum",
            1.0,
            "[NCU] ops_path counters count operations (2 per multiply-add); [KA] on H200",
            peak_factor=1.0 if pipeline == "tensor_fp64" else 0.5,
        )
        for pipeline, src in types
    )


# On Hopper src_fp16 sums the fp16→fp16 and fp16→fp32 paths of HMMA and HGMMA;
# [KA]: 4096³ WMMA GEMM gives exactly 2·4096³, and the 1024³ BF16, TF32, FP64
# and INT8 products exactly 2·1024³, each in its own counter.
_AMPERE_TYPES = (
    ("tensor_fp16", "fp16"),
    ("tensor_bf16", "bf16_dst_fp32"),
    ("tensor_tf32", "tf32_dst_fp32"),
    ("tensor_fp64", "fp64"),
    ("tensor_int8", "int8"),
)

ARCHITECTURES: tuple[Architecture, ...] = (
    Architecture(
        "Volta",
        (7,),
        ("7.0", "7.2"),
        _VOLTA_RULE,
        False,
        "Tensor FLOPs by the paper's ×512 rule; all Tensor work counted as FP16.",
    ),
    Architecture(
        "Turing",
        (7,),
        ("7.5",),
        _VOLTA_RULE,
        False,
        "Tensor FLOPs by the Volta ×512 rule, which undercounts HMMA.1688; unverified.",
    ),
    Architecture(
        "Ampere",
        (8,),
        ("8.0", "8.6", "8.7"),
        _ops_path(*_AMPERE_TYPES),
        False,
        "Same counters as Hopper; not yet checked with known-answer kernels.",
    ),
    Architecture(
        "Ada",
        (8,),
        ("8.9",),
        _ops_path(*_AMPERE_TYPES, ("tensor_fp8", "fp8")),
        False,
        "Same counters as Hopper; not yet checked with known-answer kernels.",
    ),
    Architecture(
        "Hopper",
        (9,),
        ("9.0",),
        _ops_path(*_AMPERE_TYPES, ("tensor_fp8", "fp8")),
        True,
        "Checked on an H200 with kernels/known_answer.",
        smem.HOPPER_TERMS,
    ),
    Architecture(
        "Blackwell",
        (10, 12),
        ("10.0", "10.3", "12.0"),
        _ops_path(*_AMPERE_TYPES, ("tensor_fp8", "fp8")),
        False,
        "Assumed to keep Hopper's counters; unverified.",
    ),
)


TENSOR_PIPE_INSTRUCTIONS = "sm__inst_executed_pipe_tensor.sum"  # every architecture [NCU]
UNKNOWN_ARCH_NOTE = (
    "the export does not say which GPU it came from, so Tensor Core FLOPs (whose counters "
    "differ per architecture) are blank, except 0 where no instruction went to the Tensor "
    "pipe: pass --gpu NAME (e.g. --gpu V100) or --arch sm_XY"
)


def architecture_for(cc: str) -> Architecture:
    """The architecture of compute capability ``cc`` ("9.0"); the nearest older one if unknown.

    ``cc`` must be known: a report that does not say is never taken for any
    architecture (callers check ``cc`` first and leave its Tensor FLOPs blank).
    """
    if not cc:
        raise ValueError("architecture_for needs a compute capability")
    for arch in ARCHITECTURES:
        if cc in arch.cc:
            return arch
    major = int(float(cc))
    older = [a for a in ARCHITECTURES if min(a.cc_major) <= major] or [ARCHITECTURES[0]]
    return older[-1]


def required_metrics(arch: Architecture) -> list[str]:
    """Every metric rooftui needs on ``arch``, in a stable order."""
    names = [TIME, SM_CYCLES, SM_CLOCK]
    for terms in CUDA_CORE_TERMS.values():
        names += [metric for metric, _ in terms]
    names += [term.metric for term in arch.tensor]
    names += list(BYTES.values())
    names += [L2_FROM_L1] if arch.name in L2_FROM_L1_ARCHITECTURES else []
    names += list(arch.shared_memory)
    names += [UNIT_CLOCKS["lts"], UNIT_CLOCKS["dram"], DISPLAY_NAME]
    names += peak_metrics(arch)
    return list(dict.fromkeys(names))


def peak_metrics(arch: Architecture) -> list[str]:
    """The ``.peak_sustained`` (per cycle) companions that give a report its own ceilings."""
    fmas = [terms[-1][0] for terms in CUDA_CORE_TERMS.values()]
    return [f"{m}.peak_sustained" for m in fmas + [t.metric for t in arch.tensor] + list(BYTES.values())]


def unit_of(metric: str) -> str:
    """The hardware unit a metric counts at: ``lts__t_bytes.sum`` -> ``lts``; ncu's derived
    metrics name theirs second (``derived__lts__lts2xbar_bytes.sum`` -> ``lts``)."""
    parts = metric.split("__")
    return parts[1] if parts[0] == "derived" and len(parts) > 2 else parts[0]


def rate_sources(count: str) -> tuple[str, str, str]:
    """The rates ncu's sections store instead of the count ``count``, and the cycles that
    turn the first back into it: ``(X.per_cycle_elapsed, <unit>__cycles_elapsed.avg,
    X.per_second)``; X = rate × cycles, or X = rate × gpu__time_duration [NCU]."""
    unit = unit_of(count)
    return f"{count}.per_cycle_elapsed", f"{unit}__cycles_elapsed.avg", f"{count}.per_second"


# Known zeros from the instruction mix: ncu's per-type counters count every predicated-on
# thread instruction of that type [NCU, "InstructionStats": sass_thread_inst_executed_op_*],
# a superset of that type's add, mul and fma. A 0 there proves the precision's FLOPs are 0
# where its own counters were not collected. Both spellings (metrics.SPELLINGS).
WORK_EVIDENCE: dict[str, tuple[str, str]] = {
    precision: (
        f"smsp__sass_thread_inst_executed_op_{precision}_pred_on.sum",
        f"sm__sass_thread_inst_executed_op_{precision}_pred_on.sum",
    )
    for precision in ("fp64", "fp32", "fp16")
}


def report_peak_metrics() -> list[str]:
    """Every ``.peak_sustained`` a report may hold for its own ceilings, in every spelling
    ncu has used: ncu's roofline sections store the sm__ spelling of the FMA peaks, rooftui
    profile the smsp__ one [NCU: SpeedOfLight_RooflineChart, every version 2020.2-2025.2]."""
    fmas = [terms[-1][0] for terms in CUDA_CORE_TERMS.values()]
    tensor = [t.metric for arch in ARCHITECTURES for t in arch.tensor]
    names = [f"{spelling}.peak_sustained" for metric in fmas + tensor for spelling in spellings(metric)]
    names += [s.peak for sources in BYTE_SOURCES.values() for s in sources if s.peak]
    return list(dict.fromkeys(names))


def metrics_read() -> tuple[str, ...]:
    """Every metric, by ncu's full name, that a reader keeps from a report: what the
    formulas of every architecture count, the rates they are derived from when a
    report lacks a count (``rate_sources``), the clocks and ``.peak_sustained`` peaks
    of a report's own ceilings, and the device's name. The detail pane shows these.

    A formula that reads a metric not listed here gets NaN from every report:
    tests/ingest/test_metrics_read.py checks the list covers what the formulas use.
    """
    counts = [TIME]
    counts += [metric for terms in CUDA_CORE_TERMS.values() for metric, _ in terms]
    counts += [term.metric for arch in ARCHITECTURES for term in arch.tensor]
    counts += list(BYTES.values()) + list(smem.HOPPER_TERMS)
    counts += [t for sources in PREFERRED_BYTE_SOURCES.values() for s in sources for t in s.terms]
    counts += instructions.instruction_counts()  # the instruction roofline's counts
    names = [SM_CYCLES, *UNIT_CLOCKS.values(), DISPLAY_NAME, *DEVICE_ATTRIBUTES]
    names += [name for pair in TIME_FROM_CYCLES for name in pair] + list(TIME_ACTIVE)
    names += [term for sources in BYTE_SOURCES.values() for source in sources[1:] for term in source.terms]
    counts += [
        term
        for sources in BYTE_SOURCES.values()
        for source in sources
        for term in source.terms
        if term.startswith("derived__")
    ]
    names += [s.clock for sources in BYTE_SOURCES.values() for s in sources if s.clock]
    names += [*report_peak_metrics(), instructions.ISSUE_PEAK]
    names += [n for pair in WORK_EVIDENCE.values() for n in pair]
    names += pipe_activity.TENSOR_ACTIVITY
    busy, forms = pipe_activity.PIPE_BUSY.values(), pipe_activity.PIPE_BUSY_FORMS
    names += [f"{pipe}{form}" for pipe in busy for form in forms]
    names += [f"{name}.peak_sustained" for name in pipe_activity.PEAK_STANDS_IN.values()]
    for count in counts:
        for spelling in spellings(count):
            unit = unit_of(spelling)
            names += [
                spelling,
                *rate_sources(spelling),
                UNIT_CLOCKS.get(unit, f"{unit}__cycles_elapsed.avg.per_second"),
            ]
    for arch in ARCHITECTURES:
        names += peak_metrics(arch)
    return tuple(dict.fromkeys(names))


def base_name(metric: str) -> str:
    """``sm__cycles_elapsed.avg.per_second`` -> ``sm__cycles_elapsed``."""
    return metric.split(".", 1)[0]


def _sample_superset(available: set[str]) -> list[str]:
    """Metrics for the sample-data profiles: the Hopper list, every Tensor Core
    counter this GPU offers (to pin which ones count what), and the peaks."""
    wanted = required_metrics(architecture_for("9.0"))
    wanted += [
        "sm__inst_executed_pipe_tensor.sum",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "launch__grid_size",
        "launch__block_size",
        "device__attribute_multiprocessor_count",
    ]
    wanted += sorted(
        f"{name}.sum"
        for name in available
        if name.startswith(("sm__ops_path_tensor", "sm__inst_executed_pipe_tensor"))
    )
    wanted += [
        f"{m}.peak_sustained"
        for m in (
            "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
            "l1tex__t_bytes.sum",
            "lts__t_bytes.sum",
            "dram__bytes.sum",
        )
    ]
    wanted = list(dict.fromkeys(wanted))
    if available:
        wanted = [m for m in wanted if base_name(m) in available]
    return wanted


if __name__ == "__main__":  # used by sample_data/make/make_samples.sh on the GPU node
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--sample-superset", action="store_true")
    parser.add_argument("--available", help="output of `ncu --query-metrics`")
    parser.add_argument("--cc", default="9.0")
    args = parser.parse_args()
    found: set[str] = set()
    if args.available:
        with open(args.available, encoding="utf-8", errors="replace") as handle:
            found = set(re.findall(r"\b[a-z0-9]+__[a-z0-9_]+\b", handle.read()))
    if args.sample_superset:
        print(",".join(_sample_superset(found)))
    else:
        print(",".join(required_metrics(architecture_for(args.cc))))
