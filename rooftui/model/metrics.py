"""Which Nsight Compute metrics rooftui reads, and the formulas that turn them into
FLOPs and bytes: the one place these facts live.

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
          H200 (sample_data/known_answer); tests/test_known_answers.py pins them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# --- counts that are the same on every architecture since Volta --------------------
TIME = "gpu__time_duration.sum"  # ns in ncu's base units [NCU]
SM_CYCLES = "sm__cycles_elapsed.avg"  # elapsed SM cycles [NCU]
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"  # SM clock during the kernel [NCU]
# Clocks of the other units, for turning their per-cycle peaks into per-second ones.
UNIT_CLOCKS = {
    "sm": SM_CLOCK, "smsp": SM_CLOCK, "l1tex": SM_CLOCK,
    "lts": "lts__cycles_elapsed.avg.per_second", "dram": "dram__cycles_elapsed.avg.per_second",
}
DISPLAY_NAME = "device__attribute_display_name"  # free: device attributes cost no pass

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
_FACTORS = {"fp64": (1.0, 1.0, 2.0), "fp32": (1.0, 1.0, 2.0), "fp16": (2.0, 2.0, 4.0)}
CUDA_CORE_TERMS: dict[str, tuple[tuple[str, float], ...]] = {
    precision: tuple(
        (f"smsp__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum", factor)
        for op, factor in zip(("add", "mul", "fma"), _FACTORS[precision])
    )
    for precision, letter in (("fp64", "d"), ("fp32", "f"), ("fp16", "h"))
}

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


_VOLTA_RULE = (
    TensorTerm("tensor_fp16", "sm__inst_executed_pipe_tensor.sum", 512.0,
               "[YANG]: each warp-level HMMA on Volta is 512 FLOPs"),
)


def _ops_path(*types: tuple[str, str]) -> tuple[TensorTerm, ...]:
    return tuple(
        TensorTerm(pipeline, f"sm__ops_path_tensor_src_{src}.sum", 1.0,
                   "[NCU] ops_path counters count operations (2 per multiply-add); [KA] on H200",
                   peak_factor=1.0 if pipeline == "tensor_fp64" else 0.5)
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
    Architecture("Volta", (7,), ("7.0", "7.2"), _VOLTA_RULE, False,
                 "Tensor FLOPs by the paper's ×512 rule; all Tensor work counted as FP16."),
    Architecture("Turing", (7,), ("7.5",), _VOLTA_RULE, False,
                 "Tensor FLOPs by the Volta ×512 rule, which undercounts HMMA.1688; unverified."),
    Architecture("Ampere", (8,), ("8.0", "8.6", "8.7"), _ops_path(*_AMPERE_TYPES), False,
                 "Same counters as Hopper; not yet checked with known-answer kernels."),
    Architecture("Ada", (8,), ("8.9",), _ops_path(*_AMPERE_TYPES, ("tensor_fp8", "fp8")), False,
                 "Same counters as Hopper; not yet checked with known-answer kernels."),
    Architecture("Hopper", (9,), ("9.0",), _ops_path(*_AMPERE_TYPES, ("tensor_fp8", "fp8")), True,
                 "Checked on an H200 with kernels/known_answer."),
    Architecture("Blackwell", (10, 12), ("10.0", "10.3", "12.0"),
                 _ops_path(*_AMPERE_TYPES, ("tensor_fp8", "fp8")), False,
                 "Assumed to keep Hopper's counters; unverified."),
)


def architecture_for(cc: str) -> Architecture:
    """The architecture of compute capability ``cc`` ("9.0"); the nearest older one if unknown."""
    for arch in ARCHITECTURES:
        if cc in arch.cc:
            return arch
    major = int(float(cc)) if cc else 9
    older = [a for a in ARCHITECTURES if min(a.cc_major) <= major] or [ARCHITECTURES[0]]
    return older[-1]


def required_metrics(arch: Architecture) -> list[str]:
    """Every metric rooftui needs on ``arch``, in a stable order."""
    names = [TIME, SM_CYCLES, SM_CLOCK]
    for terms in CUDA_CORE_TERMS.values():
        names += [metric for metric, _ in terms]
    names += [term.metric for term in arch.tensor]
    names += list(BYTES.values())
    names += [UNIT_CLOCKS["lts"], UNIT_CLOCKS["dram"], DISPLAY_NAME]
    names += peak_metrics(arch)
    return list(dict.fromkeys(names))


def peak_metrics(arch: Architecture) -> list[str]:
    """The ``.peak_sustained`` (per cycle) companions that give a report its own ceilings."""
    fmas = [terms[-1][0] for terms in CUDA_CORE_TERMS.values()]
    return [f"{m}.peak_sustained" for m in
            fmas + [t.metric for t in arch.tensor] + list(BYTES.values())]


def base_name(metric: str) -> str:
    """``sm__cycles_elapsed.avg.per_second`` -> ``sm__cycles_elapsed``."""
    return metric.split(".", 1)[0]


def _sample_superset(available: set[str]) -> list[str]:
    """Metrics for the sample-data profiles: the Hopper list, every Tensor Core
    counter this GPU offers (to pin which ones count what), and the peaks."""
    wanted = required_metrics(architecture_for("9.0"))
    wanted += ["sm__inst_executed_pipe_tensor.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
               "launch__grid_size", "launch__block_size",
               "device__attribute_multiprocessor_count"]
    wanted += sorted(f"{name}.sum" for name in available
                     if name.startswith(("sm__ops_path_tensor", "sm__inst_executed_pipe_tensor")))
    wanted += [f"{m}.peak_sustained" for m in (
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
        "l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum")]
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
