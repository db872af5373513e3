"""The shared-memory AI a GEMM or implicit-GEMM convolution tile allows, from the kernel's
name alone (and, where the name gives no warp layout, its block size). Nothing here reads
a counter: tests/core/test_sample_smem_tiles.py compares these ranges with what ncu
counted on the bundled DeepCAM sample. The rule is stated in docs/shared-memory.md.

Per k-step (BK elements of K) a BM x BN tile does 2·BM·BN·BK FLOPs and moves, in shared
memory, e bytes per operand element:
  written   (BM + BN)·BK·e            TMA, cp.async (LDGSTS) or STS fill A and B once
  read      R·BK·e                    the MMA instructions read their operands:
            wgmma (sm90, nvjet)       m64nN: A is read BN/N times, B BM/64 times
            mma.sync (sm80, cutlass)  each warp of a wm x wn layout reads its rows of A and
                                      columns of B: R = wn·BM + wm·BN
and once per tile the epilogue may pass C through shared memory (stored and read back).

  most  = every operand byte written once and read once, no epilogue:
          BM·BN / ((BM + BN)·e)
  least = the most reads the instruction shape allows (wgmma N = min(BN, 64); the warp
          layout the name gives, or the worst wm x wn of the block's warps), plus C as FP32
          through shared memory (2·BM·BN·4 bytes), all against one k-step (K = BK, the
          least work a tile does)
"""

from __future__ import annotations

import re
from typing import NamedTuple

WGMMA_M = 64  # every wgmma is m64nNk16 (PTX ISA, "wgmma.mma_async")
WGMMA_N_LEAST = 64  # the narrowest wgmma a tile of BN >= 64 is assumed to use (round 6's rule)
ACCUMULATOR_BYTES = 4  # FP32 accumulators, the widest C an epilogue stages


class Tile(NamedTuple):
    """A kernel's CTA tile as its name gives it."""

    bm: int
    bn: int
    bk: int
    mma: str  # "wgmma", or "mma.sync" for warp-level MMA (mma.sync, wmma)
    warps: tuple[int, int] | None  # (wm, wn) where the name gives the layout
    element_bytes: int

    def operand_reads(self, threads: int) -> int:
        """The most operand elements the MMA instructions read per k-step, per BK."""
        if self.mma == "wgmma":
            m, n = (self.bm, self.bn) if self.bm >= WGMMA_M else (self.bn, self.bm)
            return m * max(1, n // WGMMA_N_LEAST) + n * max(1, m // WGMMA_M)
        if self.warps:
            wm, wn = self.warps
            return wn * self.bm + wm * self.bn
        count = max(1, threads // 32)
        layouts = [(wm, count // wm) for wm in range(1, count + 1) if count % wm == 0]
        return max(wn * self.bm + wm * self.bn for wm, wn in layouts)

    def ai_range(self, threads: int) -> tuple[float, float]:
        """(least, most) FLOP per shared-memory byte this tile allows (module docstring)."""
        bm, bn, bk, e = self.bm, self.bn, self.bk, self.element_bytes
        most = bm * bn / ((bm + bn) * e)
        written = (bm + bn) * bk * e
        read = self.operand_reads(threads) * bk * e
        epilogue = 2 * bm * bn * ACCUMULATOR_BYTES
        least = 2 * bm * bn * bk / (written + read + epilogue)
        return least, most


def _element_bytes(name: str) -> int:
    """FP32/TF32 operands take 4 bytes (cuDNN's `..._tf32f32_...`, CUTLASS's `tensorop_s1688`:
    FP32 data on TF32 Tensor Cores), FP16/BF16 ones 2."""
    return 4 if re.search(r"tf32|f32f32_f32f32|tensorop_s\d", name) else 2


def tile_of(name: str) -> Tile | None:
    """The tile of a Tensor Core GEMM/convolution kernel from its name; None where the name
    gives none, or where the kernel does not stage both operands in shared memory."""
    if "wo_smem" in name or "_ffma_" in name:
        return None  # operands loaded straight into registers; FFMA is not a Tensor Core kernel
    e = _element_bytes(name)
    if match := re.search(r"nvjet_\w*?_(\d+)x(\d+)_(\d+)x\d+_", name):
        return Tile(*(int(g) for g in match.groups()), "wgmma", None, e)
    if match := re.search(r"sm90_xmma_\w*?tilesize(\d+)x(\d+)x(\d+)", name):
        return Tile(*(int(g) for g in match.groups()), "wgmma", None, e)
    if match := re.search(r"sm80_xmma_\w*?tilesize(\d+)x(\d+)x(\d+)_stage\d+_warpsize(\d+)x(\d+)x1_", name):
        bm, bn, bk, wm, wn = (int(g) for g in match.groups())
        return Tile(bm, bn, bk, "mma.sync", (wm, wn), e)
    if match := re.search(r"cutlass\w*?_tensorop_\w+?_(\d+)x(\d+)_(\d+)x\d+_", name):
        return Tile(*(int(g) for g in match.groups()), "mma.sync", None, e)
    shapes = re.findall(r"GemmShape<(\d+), (\d+), (\d+)>", name)
    if "ImplicitGemm" in name and len(shapes) >= 2:  # CUTLASS templates: CTA shape, then warp shape
        bm, bn, bk = (int(v) for v in shapes[0])
        warp_m, warp_n = int(shapes[1][0]), int(shapes[1][1])
        return Tile(bm, bn, bk, "mma.sync", (bm // warp_m, bn // warp_n), e)
    return None
