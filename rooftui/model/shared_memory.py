"""The shared-memory level (SMEM): which ncu counters count what a kernel moves through
shared memory, what they do not see, and when a kernel's L1 point means little.

Every counter was found with ``ncu --query-metrics`` on an H200 (ncu 2025.3; the lines
that mention shared memory or TMA are kept in
sample_data/known_answer/shared_memory/query_metrics_smem.txt) and pinned to the byte on
kernels whose traffic is known by construction (kernels/known_answer/shared_memory;
tests/core/test_shared_memory_known.py):

- ``smsp__sass_data_bytes_mem_shared_op_{ld,ldsm,st,stsm,atom}``: what LDS/LD, LDSM,
  STS/ST, STSM and ATOMS instructions move (smem_words, smem_vec4, smem_conflict: exact;
  bank conflicts change ncu's wavefronts, not these bytes).
- ``smsp__sass_data_bytes_mem_shared_op_gmma``: what wgmma (HGMMA) reads of its operands
  from shared memory: exactly (A + B tile bytes) per instruction on rooftui measure's own
  wgmma kernel. Not part of ``smsp__sass_data_bytes_mem_shared``, ncu's total.
- ``l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld``: what the TMA engine brings
  into an SM's shared memory (cp.async.bulk and cp.async.bulk.tensor), multicast copies
  counted once per receiving SM: exact on a bulk-copy kernel and on cuBLAS's 192x192 tiles.
- ``l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st``: what a TMA store reads out of
  shared memory (a GEMM's C tile, exact).
- ``smsp__sass_data_bytes_mem_global_op_ldgsts``: what cp.async (LDGSTS) writes into shared
  memory, counted at its global side: exact on FlashAttention-2's tiles. The shared side,
  ``..._mem_shared_op_ldgsts``, read 47 MB where the tiles write 1.1 GB, so it is not used.

Not seen: traffic between the CTAs of a cluster (distributed shared memory), TMA
reductions, and Blackwell's tensor memory. The counters exist on Hopper only as a set
(wgmma and TMA are Hopper's), so rooftui collects them there; a report from another GPU
that has ncu's LSU total (``smsp__sass_data_bytes_mem_shared``) gets that, said to be
loads and stores only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # metrics.py imports this module; the .ncu-rep readers start before numpy
    from numpy import ndarray

_SASS = "smsp__sass_data_bytes_mem_shared_op_"
LSU_TERMS = tuple(f"{_SASS}{op}.sum" for op in ("ld", "ldsm", "st", "stsm", "atom"))
WGMMA_READS = f"{_SASS}gmma.sum"
TMA_LOADS = "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"
TMA_STORES = "l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum"
CP_ASYNC_WRITES = "smsp__sass_data_bytes_mem_global_op_ldgsts.sum"
HOPPER_TERMS = (*LSU_TERMS, WGMMA_READS, TMA_LOADS, TMA_STORES, CP_ASYNC_WRITES)
LSU_TOTAL = "smsp__sass_data_bytes_mem_shared.sum"

WHAT = (
    "shared-memory bytes: LSU loads and stores (LDS, LDSM, STS, STSM, ATOMS), wgmma operand "
    "reads, TMA loads into and stores out of shared memory, cp.async writes"
)
LSU_ONLY_WHAT = (
    "smsp__sass_data_bytes_mem_shared: LSU shared loads and stores only (no wgmma operand "
    "reads, TMA or cp.async traffic)"
)
NOT_SEEN = "not seen: distributed shared memory (cluster) traffic and TMA reductions"

# An L1 point is marked bypassed when the TMA engine moved more bytes into shared memory
# than L1TEX's tag stage saw (l1tex__t_bytes, the paper's L1), or, where TMA was not
# collected, when a Tensor Core kernel's L2 saw at least this many times L1's bytes: its
# operands went around L1 (TMA), so L1's AI says nothing about reuse. On the H200 GPT
# step every nvjet GEMM and cuDNN attention kernel has TMA bytes 10^2 to 10^5 times its
# L1 bytes (sample_data/known_answer/shared_memory). Only Tensor Core kernels for the
# second rule: tiny launches (an 8-byte add) see L2 traffic from ncu's cache flush.
L1_BYPASS_RATIO = 10.0
L1_BYPASS_NOTE = (
    "L1 bypassed: l1tex__t_bytes (the paper's L1) counts requests at L1's tag stage, which "
    "TMA copies into shared memory skip, so this kernel's L1 AI says nothing about reuse; "
    "its operand traffic is in SMEM"
)


def l1_bypassed(bytes_l1: ndarray, bytes_l2: ndarray, bytes_tma: ndarray, flops_tensor: ndarray) -> ndarray:
    """Whether most of each launch's traffic went around L1's tag stage (``L1_BYPASS_RATIO``);
    the arguments per launch, NaN where not collected."""
    import numpy as np

    by_tma = bytes_tma > bytes_l1  # False where either was not collected
    tensor = flops_tensor > 0
    by_ratio = np.isnan(bytes_tma) & tensor & (bytes_l2 > 0) & (bytes_l2 >= L1_BYPASS_RATIO * bytes_l1)
    return by_tma | by_ratio
