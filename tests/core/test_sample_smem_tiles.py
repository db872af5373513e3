"""#27 on the bundled sample (`rooftui` with no argument; re-profiled with the SMEM
counters): every Tensor Core GEMM/convolution launch has its shared-memory point inside
the range its tile allows, computed from the kernel's name alone
(kernels/known_answer/shared_memory/tile_rule.py, the rule in docs/shared-memory.md), and
no L1 point beyond 1e4 FLOP/byte is left unexplained."""

from __future__ import annotations

import re
import runpy
from types import SimpleNamespace

import pandas as pd
import pytest

from rooftui.sample import sample_pair
from tests.conftest import ROOT

rule = SimpleNamespace(**runpy.run_path(str(ROOT / "kernels/known_answer/shared_memory/tile_rule.py")))
RUNS = dict(zip(("fp32", "amp"), sample_pair()))


@pytest.fixture(scope="module", params=list(RUNS))
def kernels(request, load_once) -> pd.DataFrame:
    return load_once(RUNS[request.param]).kernels  # the sample as other tests read it


def threads(block: str) -> int:
    x, y, z = (int(v) for v in re.findall(r"\d+", block))
    return x * y * z


def test_every_tensor_core_gemm_and_convolution_has_its_smem_point_in_its_tiles_range(kernels):
    tensor = kernels[kernels["flops_tensor"] > 0]
    checked = 0
    for _, row in tensor.iterrows():
        tile = rule.tile_of(row["name"])
        if tile is None:
            continue
        least, most = tile.ai_range(threads(row["block"]))
        assert least <= row["ai_smem"] <= most, (row["name"][:120], least, row["ai_smem"], most)
        checked += 1
    # every Tensor Core launch but the ones whose name says their operands skip shared memory
    unstaged = tensor["name"].str.contains("wo_smem")
    assert checked == len(tensor) - unstaged.sum() and checked >= 30


def test_kernels_named_without_smem_move_less_than_a_staged_tile_would(kernels):
    """cuDNN's `..._wo_smem_...` kernels load their operands straight into registers: their
    shared-memory AI lies above what a tile staging both operands could reach."""
    unstaged = kernels[kernels["name"].str.contains("wo_smem") & (kernels["flops_tensor"] > 0)]
    assert len(unstaged) > 0
    for _, row in unstaged.iterrows():
        staged = rule.tile_of(row["name"].replace("_wo_smem", ""))
        assert row["ai_smem"] > staged.ai_range(threads(row["block"]))[1], row["name"][:120]


def test_the_rule_reads_the_tile_and_the_warp_layout_from_the_name():
    nvjet = rule.tile_of("nvjet_sm90_hsh_128x128_64x6_2x4_h_bz_NNT")
    assert (nvjet.bm, nvjet.bn, nvjet.bk, nvjet.mma) == (128, 128, 64, "wgmma")
    # 128x128 with wgmma n >= 64: every byte read once at most 32 FLOP/B (128·128/(256·2))
    assert nvjet.ai_range(384)[1] == 32
    xmma = rule.tile_of(
        "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x32x32_stage4_warpsize4x1x1_g1"
    )
    assert (xmma.bm, xmma.bn, xmma.bk, xmma.warps) == (128, 32, 32, (4, 1))
    # one k-step: 2·128·32·32 FLOP over (160 written + 1·128 + 4·32 read)·32·2 B + C in FP32
    assert xmma.ai_range(128)[0] == 2 * 128 * 32 * 32 / ((160 + 256) * 32 * 2 + 2 * 128 * 32 * 4)
    tf32 = rule.tile_of("sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32_nhwc_tilesize64x64x32")
    assert tf32.element_bytes == 4
    ffma = "sm80_xmma_gemm_f16f16_f32f32_f32_nn_n_tilesize128x32x8_stage3_warpsize2x2x1_ffma_"
    assert rule.tile_of(ffma) is None


def test_no_l1_point_beyond_1e4_is_left_unexplained(kernels):
    # the TMA counter was collected for every launch, so the mark comes from it, never from
    # the L2 >= 10 x L1 fallback for reports without it
    assert kernels["bytes_tma"].notna().all()
    far = kernels["ai_l1"] > 1e4
    assert far.any() and kernels.loc[far, "l1_bypassed"].all()
    assert (kernels["l1_bypassed"] == (kernels["bytes_tma"] > kernels["bytes_l1"])).all()
