"""Shared-memory bytes of the known-answer kernels, from their parameters alone.

    python3 expected.py PARAMS.json SHAPES.json

``PARAMS.json`` is what ``shared_memory.cu`` writes (grid, block, words per thread, bulk
chunk, wgmma trips), ``SHAPES.json`` what ``gemm_attention.py`` writes (problem shapes);
the tile shapes come from the kernel names. Nothing here reads a profile:
tests/core/test_shared_memory_known.py compares these with what ncu counted.

The traffic of each kind, as ncu splits it (sample_data/known_answer/shared_memory):
  lsu_load, lsu_store  ordinary shared loads and stores (LDS/STS, LDSM/STSM)
  gmma                 what wgmma (HGMMA) reads of its operands from shared memory
  tma_load             what the bulk copy engine (TMA) writes into shared memory
  tma_store            what it reads from shared memory for a bulk store
  ldgsts               what cp.async (LDGSTS) writes into shared memory
"""

from __future__ import annotations

import json
import re
import sys

KINDS = ("lsu_load", "lsu_store", "gmma", "tma_load", "tma_store", "ldgsts")
WGMMA_M = 64  # every wgmma is m64nNk16 (PTX ISA, "wgmma.mma_async")


def _bytes(**kinds: int) -> dict[str, int]:
    return {kind: kinds.get(kind, 0) for kind in KINDS}


def known_answer_bytes(params: dict) -> dict[str, dict[str, int]]:
    """Per kernel of shared_memory.cu, its bytes of each kind, by construction."""
    lsu = params["lsu"]
    each_way = lsu["grid"] * lsu["block"] * lsu["words_per_thread"] * lsu["word_bytes"]
    tma, mma = params["tma_bulk"], params["wgmma_bf16"]
    wgmmas = mma["grid"] * (mma["unroll"] * mma["trips"] + 1)
    return {
        "smem_words": _bytes(lsu_load=each_way, lsu_store=each_way),
        "smem_vec4": _bytes(lsu_load=each_way, lsu_store=each_way),
        "smem_conflict": _bytes(lsu_load=each_way, lsu_store=each_way),
        # lane 0 loads one 4-byte word of each chunk the engine wrote
        "tma_bulk": _bytes(
            lsu_load=tma["grid"] * tma["rounds"] * 4,
            tma_load=tma["grid"] * tma["rounds"] * tma["chunk_bytes"],
        ),
        # stores fill A, -A and B once per block; each wgmma reads one A tile and B
        "wgmma_bf16": _bytes(
            lsu_store=mma["grid"] * (2 * mma["a_tile_bytes"] + mma["b_tile_bytes"]),
            gmma=wgmmas * (mma["a_tile_bytes"] + mma["b_tile_bytes"]),
        ),
    }


def gemm_tile(name: str) -> tuple[int, int, int]:
    """(BM, BN, BK) from a cuBLAS nvjet kernel name: nvjet_sm90_tst_192x192_64x3_2x1_..."""
    match = re.search(r"nvjet_\w*?_(\d+)x(\d+)_(\d+)x\d+_", name)
    if not match:
        raise ValueError(f"no tile shape in {name!r}")
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def gemm_bytes(m: int, n: int, k: int, bm: int, bn: int, wgmma_n: int, elem: int = 2) -> dict[str, int]:
    """A TMA + wgmma GEMM with BM x BN tiles that divide M x N: TMA writes each tile's A
    and B slices once per k-step; each m64nN wgmma reads its 64 rows of A and N rows of
    B, so A is read BN / N times and B BM / 64 times; the epilogue stores C into shared
    memory (STSM) and the TMA store reads it back."""
    tiles = (m // bm) * (n // bn)
    return _bytes(
        tma_load=tiles * (bm + bn) * k * elem,
        gmma=tiles * (bm * (bn // wgmma_n) + bn * (bm // WGMMA_M)) * k * elem,
        lsu_store=m * n * elem,
        tma_store=m * n * elem,
    )


def gemm_ai_range(bm: int, bn: int, elem: int = 2, epilogue: float = 0.10) -> tuple[float, float]:
    """The FLOP per shared-memory byte a BM x BN tile allows, from its name alone. Per
    k-step a tile does 2 BM BN FLOPs per K element. At most: every operand byte written
    once (TMA) and read once (wgmma). At least: wgmma's n as small as 64, so A is read
    BN / 64 times and B BM / 64 times, plus ``epilogue`` for C passing through shared
    memory once per tile (STSM and the TMA store: under 10% for K >= 16 BK)."""
    flops = 2 * bm * bn
    most = flops / ((2 * (bm + bn)) * elem)
    worst_reads = bm * max(1, bn // 64) + bn * (bm // WGMMA_M)
    least = flops / (((bm + bn) + worst_reads) * elem) / (1 + epilogue)
    return least, most


def flash_tile(name: str) -> tuple[int, int, int, int]:
    """(head_dim, block_m, block_n, warps) of a FlashAttention-2 forward kernel name:
    ...Flash_fwd_kernel_traits<128, 128, 64, 4, ..."""
    match = re.search(r"Flash_fwd_kernel_traits<(\d+), (\d+), (\d+), (\d+),", name)
    if not match:
        raise ValueError(f"no tile shape in {name!r}")
    head_dim, block_m, block_n, warps = (int(g) for g in match.groups())
    return head_dim, block_m, block_n, warps


def flash_fwd_bytes(
    batch: int, heads: int, seq: int, head_dim: int, block_m: int, block_n: int, warps: int, elem: int = 2
) -> dict[str, int]:
    """FlashAttention-2 forward: cp.async writes a block's Q once and K, V per key block;
    per key block each warp reads (LDSM) its block_m / warps rows of Q and all of K and V;
    the epilogue passes O through shared memory (one store, one load)."""
    blocks = batch * heads * (seq // block_m)
    key_blocks = seq // block_n
    return _bytes(
        ldgsts=blocks * (block_m + key_blocks * 2 * block_n) * head_dim * elem,
        lsu_load=blocks * (key_blocks * (block_m + warps * 2 * block_n) + block_m) * head_dim * elem,
        lsu_store=blocks * block_m * head_dim * elem,
    )


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        answers = known_answer_bytes(json.load(handle))
    if len(sys.argv) > 2:
        with open(sys.argv[2], encoding="utf-8") as handle:
            shapes = json.load(handle)
        g, a = shapes["gemm"], shapes["attention"]
        answers["gemm 192x192 (wgmma n96)"] = gemm_bytes(g["m"], g["n"], g["k"], 192, 192, 96)
        answers["flash_fwd 128/128x64, 4 warps"] = flash_fwd_bytes(
            a["batch"], a["heads"], a["seq"], a["head_dim"], 128, 64, 4
        )
    print(json.dumps(answers, indent=1))
