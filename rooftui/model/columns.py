"""The kernel table: one row per kernel invocation, in base units.

This is the contract between the loader, the analyses and every view. A
``KernelTable`` is a ``pandas.DataFrame`` with these columns (more may be added):

identity
    id            int    unique within a loaded run (ncu's ID, offset per report)
    report        str    the file the row came from
    ncu_id        int    ncu's own ID within that report
    device        str    GPU name, e.g. "NVIDIA H200"
    cc            str    compute capability, e.g. "9.0"
    name          str    short function name ("daxpy", "wmma_gemm")
    demangled     str    full demangled signature
    grid, block   str    launch shape as "(x, y, z)"
    nvtx          str    NVTX ranges the launch ran under, outermost first, " > " joined
work (FLOP, byte, second)
    time_s                       gpu__time_duration.sum
    flops_fp64, flops_fp32, flops_fp16          CUDA cores (FMA counts 2)
    flops_tensor_fp16, flops_tensor_bf16, flops_tensor_tf32,
    flops_tensor_fp64, flops_tensor_fp8         Tensor Cores, by source type
    ops_tensor_int8              integer Tensor Core operations (not FLOPs)
    flops_tensor                 sum of the Tensor Core FLOP columns
    flops                        all floating-point operations
    bytes_l1, bytes_l2, bytes_hbm
    bytes_smem                   shared-memory traffic (model.shared_memory): NaN where not
                                 collected (reports made without its counters), never 0
    bytes_tma                    what the TMA engine wrote into shared memory (part of bytes_smem)
    register_moves               HFMA2 register moves (thread instructions) taken out of
                                 flops_fp16; NaN where the report has no SASS-level counts
derived
    ai_l1, ai_l2, ai_hbm, ai_smem  FLOP per byte; NaN when that level moved no byte
    l1_bypassed                  most traffic went around L1's tag stage (TMA), so ai_l1 says
                                 nothing about reuse (model.shared_memory.l1_bypassed)
    flop_rate                    FLOP/s
    pipeline                     the pipeline with the most FLOPs, or "none"
    zero_ai                      no floating-point operation at all
    fp16_approximate             FP16 CUDA-core FLOPs are present (see metrics.FP16_NOTE)
    phase, phase_inferred        e.g. "forward", and whether it was inferred
    bound_l1/bound_l2/bound_hbm  "memory" or "compute" at that level
    roof_l1/roof_l2/roof_hbm     attainable FLOP/s at that level's AI
    roof_fraction_l1/_l2/_hbm    flop_rate / roof at that level
    bound                        the binding roof overall, e.g. "HBM" or "Tensor FP16"
    roof_fraction                flop_rate / the binding roof's attainable FLOP/s
"""

from __future__ import annotations

# The hierarchical roofline's levels [Yang et al.], then shared memory (key 4 in the explorer).
LEVELS = ("l1", "l2", "hbm", "smem")
LEVEL_LABELS = {"l1": "L1", "l2": "L2", "hbm": "HBM", "smem": "SMEM"}
# Levels a report may lack without a "missing metrics" note: reports made before rooftui
# read shared memory have no SMEM counters; each row's provenance says "not collected".
OPTIONAL_LEVELS = ("smem",)
# The levels whose roofs decide a kernel's binding roof (``bound``) and its speed of light
# (advise): the paper's three. SMEM's roof is the LDS bandwidth rooftui measure measures,
# and a GEMM's wgmma and TMA traffic ran past it (1.15x, an nvjet 64x128 GEMM of the H200
# GPT step: docs/shared-memory.md), so SMEM is drawn with its own roof fraction but
# decides neither.
BOUND_LEVELS = ("l1", "l2", "hbm")

# Pipelines in display order; each maps to the FLOP column it is measured by and
# to the ceiling precision it is compared with.
CUDA_CORE_PIPELINES = ("fp64", "fp32", "fp16")
TENSOR_PIPELINES = ("tensor_fp64", "tensor_tf32", "tensor_fp16", "tensor_bf16", "tensor_fp8")
FLOAT_PIPELINES = CUDA_CORE_PIPELINES + TENSOR_PIPELINES
PIPELINE_LABELS = {
    "fp64": "FP64",
    "fp32": "FP32",
    "fp16": "FP16",
    "tensor_fp64": "Tensor FP64",
    "tensor_tf32": "Tensor TF32",
    "tensor_fp16": "Tensor FP16",
    "tensor_bf16": "Tensor BF16",
    "tensor_fp8": "Tensor FP8",
    "tensor_int8": "Tensor INT8",
    "tensor_uncounted": "Tensor (uncounted)",  # Tensor work seen, its FLOPs not countable
    "none": "none",
}


def flop_column(pipeline: str) -> str:
    """The kernel-table column holding the FLOPs of ``pipeline``."""
    return "ops_tensor_int8" if pipeline == "tensor_int8" else f"flops_{pipeline}"


FLOP_COLUMNS = tuple(flop_column(p) for p in FLOAT_PIPELINES)
BYTE_COLUMNS = tuple(f"bytes_{level}" for level in LEVELS)


# The state of each FLOP column, per launch (column ``<flop column>_state``): what the
# report says about that quantity. Three states a user sees (measured, not applicable to
# this GPU, not collected), with two kinds of each of the first and last:
MEASURED = "measured"  # read from the report (or derived from its rates)
KNOWN_ZERO = "known_zero"  # not counted, but proved 0 (no instruction of that kind ran)
NOT_APPLICABLE = "not_applicable"  # the GPU has no such pipeline: never part of a total
NOT_COLLECTED = "not_collected"  # the report lacks the counters
UNCOUNTED = "uncounted"  # Tensor work seen (pipe busy), its FLOPs not countable from the report
STATES = (MEASURED, KNOWN_ZERO, NOT_APPLICABLE, NOT_COLLECTED, UNCOUNTED)
# A group of launches takes the least-known state of its launches, in this order.
STATE_ORDER = (UNCOUNTED, NOT_COLLECTED, MEASURED, KNOWN_ZERO, NOT_APPLICABLE)
WORK_COLUMNS = FLOP_COLUMNS + (flop_column("tensor_int8"),)


def state_column(column: str) -> str:
    """The column holding the state of ``column`` ("flops_fp32" -> "flops_fp32_state")."""
    return f"{column}_state"


def byte_source_column(level: str) -> str:
    """The column saying what ``bytes_<level>`` counts (``metrics.BYTE_SOURCES``)."""
    return f"bytes_{level}_source"


# After a FLOP total (and the rate from it) that adds only some applicable terms: the
# true value is at least this (``flops_partial``; the notes say what is missing).
PARTIAL_MARK = "+"
