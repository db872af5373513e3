"""How busy a launch kept its pipes, as ncu reports it: the Tensor-pipe activity counters
that tell Tensor work from HFMA2 (rooftui.model.kernel_table), and the pipe-busy fractions
and per-cycle peaks that cap FLOPs a report did not count (rooftui.model.flop_caps). Metric
names and their sources, beside ``rooftui.model.metrics`` (which reads them: ``metrics_read``).
"""

from __future__ import annotations


# Tensor activity as ncu reports it [NCU: ComputeWorkloadAnalysis, SpeedOfLight, the Tensor
# roofline section]: instructions issued to a Tensor pipe, or cycles it was busy, in
# every form a section stores (.sum/.avg/.max, % of peak).
#  - The generic pipe_tensor counters, and op_hmma, also count HFMA2 on sm_80 and later:
#    ncu's own description of sm__pipe_tensor_op_hmma_cycles_active on gh100 is "tensor
#    pipe was active (HMMA/HFMA2.MMA/HGMMA/QGMMA ops)" (sample_data/hopper_hmma/query.txt.xz).
#    [KA] on the H200 (sample_data/hopper_hmma/): register_moves.cu's HFMA2.MMA register
#    moves and __hfma2 math, and PyTorch's BF16 RMSNorm, FP16 SiLU and random fill, issue
#    op_hmma instructions with op_hmma = op_hmma_type_hfma2 and every MMA counter 0; a
#    cuBLAS BF16 GEMM (HGMMA) issues op_hmma = op_gmma with op_hmma_type_hfma2 = 0. So above
#    0 they mean Tensor work only on Volta/Turing, where the paper counts them as HMMA
#    [YANG]; at 0 they prove no Tensor work on any GPU. op_hmma minus its HFMA2 part
#    (TENSOR_HMMA_LESS_HFMA2) is MMA work on any GPU.
#  - The MMA counters (op_imma/op_dmma/op_gmma, Hopper's type_hmma_hgmma_..._bgmma and
#    op_hmma_type_hmma_hgmma_qgmma) are 0 for every FMA and HFMA2 kernel and above 0 for
#    every WMMA and HGMMA kernel [KA: known_answer_basic, sample_data/hopper_hmma]: above 0
#    they mean Tensor work on any GPU.
# The forms ncu's sections store (SpeedOfLight, ComputeWorkloadAnalysis, InstructionStats:
# the sm__ unit, a count or a % of peak); every name is fetched from every launch of a
# .ncu-rep, so the list holds only these.
def _forms(names: tuple[str, ...], kinds: tuple[str, ...]) -> list[str]:
    return [f"sm__{name}{kind}" for name in names for kind in kinds]


_ACTIVE_KINDS = (
    ".sum",
    ".avg.pct_of_peak_sustained_active",
    ".avg.pct_of_peak_sustained_elapsed",
    ".sum.pct_of_peak_sustained_elapsed",
)
_MMA_PIPES = (
    "op_imma",
    "op_dmma",
    "op_gmma",
    "op_hmma_type_hmma_hgmma_qgmma",
    "type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma",
)
TENSOR_PIPE_ACTIVITY: list[str] = _forms(
    ("pipe_tensor_cycles_active", "inst_executed_pipe_tensor", "pipe_tensor_op_hmma_cycles_active")
    + ("inst_executed_pipe_tensor_op_hmma",),
    _ACTIVE_KINDS,
)
TENSOR_MMA_ACTIVITY: list[str] = _forms(
    tuple(f"pipe_tensor_{p}_cycles_active" for p in _MMA_PIPES)
    + tuple(f"inst_executed_pipe_tensor_{p}" for p in _MMA_PIPES),
    _ACTIVE_KINDS,
)
# HMMA/HGMMA instructions alone: op_hmma less the HFMA2 it also counts (counts, sm_80 on).
TENSOR_HMMA_LESS_HFMA2 = (
    "sm__inst_executed_pipe_tensor_op_hmma.sum",
    "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum",
)
# Counts whose 0 proves no Tensor work of any kind (op_hmma's 0 leaves IMMA and DMMA open).
TENSOR_PIPE_ZERO_PROOF = _forms(("pipe_tensor_cycles_active", "inst_executed_pipe_tensor"), (".sum",))
TENSOR_ACTIVITY = TENSOR_PIPE_ACTIVITY + TENSOR_MMA_ACTIVITY + list(TENSOR_HMMA_LESS_HFMA2[1:])


# Upper bounds on FLOPs a report did not count (rooftui.model.flop_caps): a pipe busy a
# fraction a of a launch's cycles did at most a × cycles × the per-cycle peak of the
# fastest instruction it runs [NCU "Metrics Reference": X.pct_of_peak_sustained_elapsed =
# X / (X.peak_sustained × cycles elapsed); X.peak_sustained is X's most per cycle].
# Which pipes each precision runs on: FP64 on fp64; FP16 (HADD2/HMUL2/HFMA2) on fma and,
# from sm_80, on the Tensor pipe as HFMA2.MMA ([KA] H200: math_hfma2 issues half its
# HFMA2 to each, sample_data/hopper_hmma/register_moves.raw-base.csv); every Tensor type
# on the Tensor pipe. The per-cycle peaks are the report's own .peak_sustained: dfma × 2,
# hfma × the FP16 rule's hfma weight, each sm__ops_path_tensor_src_* (the 2:4-sparse rate,
# twice the dense roof: a loose but safe bound).
PIPE_BUSY = {
    "fp64": "sm__pipe_fp64_cycles_active",
    "fma": "sm__pipe_fma_cycles_active",
    "tensor": "sm__pipe_tensor_cycles_active",
    "fp16": "sm__pipe_fp16_cycles_active",
}
PIPE_BUSY_FORMS = (".avg.pct_of_peak_sustained_elapsed", ".sum.pct_of_peak_sustained_elapsed")
CAPPED_PIPES = {"fp64": ("fp64",), "fp16": ("fma", "tensor")}  # Tensor types: ("tensor",)
# GA100 (sm_80) runs FP16x2 on its own fp16 pipe (the shared pipe with Tensor and FP64),
# not on fma; GA10x and GH100 dual-issue it to FMAheavy + FMAlite, the fma pipe ncu shows
# (NVIDIA, forums.developer.nvidia.com/t/separate-cuda-core-pipeline-for-fp16-and-fp32/
# 302018). So on sm_80 FP16 is capped only where the report holds the fp16 pipe's busy %.
FP16_PIPES_BY_CC = {"8.0": ("fma", "tensor", "fp16")}


def capped_pipes(pipeline: str, cc: str) -> tuple[str, ...]:
    """The pipes (``PIPE_BUSY`` keys) whose busy fractions bound ``pipeline``'s work on a GPU
    of compute capability ``cc``."""
    if pipeline == "fp16" and cc in FP16_PIPES_BY_CC:
        return FP16_PIPES_BY_CC[cc]
    return CAPPED_PIPES.get(pipeline, ("tensor",))


# FP8's per-cycle peak where a report lacks it: INT8's, the same rate on Hopper ([KA] H200:
# sm__ops_path_tensor_src_fp8 and _int8 .sum.peak_sustained both 2,162,688 per cycle,
# sample_data/hopper_hmma/register_moves.raw-base.csv; NVIDIA H100 datasheet: FP8 and INT8
# both 1,979 dense Tensor TFLOPS/TOPS).
PEAK_STANDS_IN = {"sm__ops_path_tensor_src_fp8.sum": "sm__ops_path_tensor_src_int8.sum"}


TENSOR_ISSUED_NOTE = (
    "{n} launch(es) issued instructions to the Tensor pipe (sm__inst_executed_pipe_tensor or "
    "sm__pipe_tensor_cycles_active above 0) but the report has no Tensor FLOP counter: from sm_80 "
    "on that pipe runs HFMA2 as well as MMA, and the FLOPs per MMA depend on its shape (CUTLASS "
    "m16n8k8: 2,048; cuBLAS m16n8k16: 4,096), so their Tensor FLOPs are blank, not 0: collect the "
    "sm__ops_path_tensor_* counters (rooftui profile)"
)
