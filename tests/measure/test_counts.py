"""Operations and bytes per launch, counted from the kernels' loop structure, and the result checks.

On the GPU, ncu confirmed these counts exactly (test_gpu.py); here the
arithmetic itself is pinned, and the host's model of each kernel (hash,
constants) is checked against the CUDA source it mirrors.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from rooftui.measure import bandwidth as B
from rooftui.measure import compute as C
from rooftui.measure import kernels as K
from rooftui.measure.gpu import kernel_text

SPECS = {k.function: k for k in K.compute_kernels()}


def test_fp32_fma_launch_counts_chains_unroll_trips_and_two_flop_per_fma():
    spec = SPECS["fma_fp32"]
    grid = 132 * K.FMA_BLOCKS_PER_SM
    # ncu on the H200: smsp__sass_thread_inst_executed_op_ffma_pred_on.sum = 1,384,120,320 for 40 trips
    assert spec.instructions(grid, 40) == 1_384_120_320
    assert spec.operations(grid, 40) == 2 * 1_384_120_320


def test_half2_fma_counts_two_lanes():
    assert SPECS["fma_fp16x2"].operations(1, 1) == 4 * K.FMA_THREADS * K.FMA_CHAINS * K.FMA_UNROLL


def test_mma_sync_counts_the_final_mma_after_the_loop():
    spec = SPECS["mma_fp16"]
    warps = K.MMA_THREADS // 32
    # ncu on the H200: 1,360,128 HMMA for 264 blocks and 20 trips
    assert spec.instructions(264, 20) == 264 * warps * K.MMA_CHAINS * (K.MMA_UNROLL * 20 + 1) == 1_360_128
    assert spec.ops_per_instruction == 2 * 16 * 8 * 16


@pytest.mark.parametrize(
    "function, k", [("wgmma_fp16", 16), ("wgmma_tf32", 8), ("wgmma_fp8", 32), ("wgmma_int8", 32)]
)
def test_wgmma_counts_one_m64n256_per_warpgroup_step(function, k):
    spec = SPECS[function]
    assert spec.operations(10, 3) == 10 * (K.WGMMA_UNROLL * 3 + 1) * 2 * 64 * 256 * k


def test_only_hopper_runs_wgmma_and_fp8_needs_ada():
    assert SPECS["wgmma_fp16"].runs_on(90) and not SPECS["wgmma_fp16"].runs_on(100)
    assert not SPECS["mma_fp8"].runs_on(80) and SPECS["mma_fp8"].runs_on(89)


def test_unroll_is_even_so_a_and_minus_a_cancel():
    assert K.MMA_UNROLL % 2 == 0 and K.WGMMA_UNROLL % 2 == 0


def test_host_hash_matches_the_cuda_sources():
    for source in ("tensor_mma_sync.cu", "tensor_wgmma.cu"):
        text = kernel_text(source)
        assert f"{K.HASH_MULTIPLIER}u" in text
        assert "values[4] = {" + ", ".join(str(v) for v in K.A_VALUES) + "}" in text
        assert "(h >> 13) & 3u" in text
    assert "(lane * 64u + e) * 2654435761u" in kernel_text("tensor_mma_sync.cu")


def test_expected_tensor_sums_are_not_zero():
    # a zero expected sum would let an untouched accumulator pass the check
    for spec in SPECS.values():
        if spec.kind == "mma":
            assert K.mma_warp_sum(spec) != 0, spec.function
        if spec.kind == "wgmma":
            assert K.wgmma_block_sum(spec) != 0, spec.function


def test_buffer_checksum_closed_form_matches_summing_the_words():
    words = 1 << 16
    data = (np.arange(words, dtype=np.uint64) * B.FILL_MULTIPLIER) & 0xFFFFFFFF
    assert B.filled_sum(words) == int(data.sum()) & 0xFFFFFFFF
    fill = kernel_text("bandwidth_sweep.cu")
    assert re.search(rf"#define FILL_MULTIPLIER {B.FILL_MULTIPLIER}u", fill)


def test_sweep_working_sets_are_whole_16k_rows_per_sm():
    sizes = B.working_sets(132, 4 << 30, 4)
    row = 132 * B.SWEEP_THREADS * 16
    assert sizes[0] == row and all(s % row == 0 for s in sizes)
    assert sizes == sorted(set(sizes)) and sizes[-1] <= 4 << 30


def _simulate_fma(spec, steps, threads=2):
    """What the kernel computes, in numpy (round to the type after each step)."""
    b, c, start, _ = C._fma_arrays(spec, steps)
    if spec.precision in ("fp64", "fp32"):
        x = np.tile(start, (threads, 1))
        for _ in range(steps):
            x = x * b + c
        return x.reshape(-1), b, c
    dtype = np.float16 if spec.precision == "fp16" else None
    halves = np.asarray(start, np.uint32).view(np.uint16).reshape(-1, 2)
    to_f = (
        (lambda h: h.view(np.float16).astype(np.float64))
        if dtype
        else (lambda h: (h.astype(np.uint32) << 16).view(np.float32).astype(np.float64))
    )
    to_h = (
        (lambda v: v.astype(np.float16).view(np.uint16))
        if dtype
        else (lambda v: (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))
    )
    x = to_f(halves)
    for _ in range(steps):
        x = to_f(to_h(x * C.HALF_B + C.HALF_C))
    words = to_h(x).reshape(-1).view(np.uint32)
    return np.tile(words, threads), b, c


@pytest.mark.parametrize("function", ["fma_fp64", "fma_fp32", "fma_fp16x2", "fma_bf16x2"])
def test_fma_check_accepts_what_the_kernel_computes(function):
    spec = SPECS[function]
    raw, b, c = _simulate_fma(spec, 500)
    start64 = C._fma_arrays(spec, 500)[3]
    assert "within" in C._check_fma(spec, raw, b, c, start64, 500)


@pytest.mark.parametrize("function", ["fma_fp64", "fma_fp32"])
def test_fma_check_catches_a_kernel_that_did_half_the_steps(function):
    spec = SPECS[function]
    b, c, _, start64 = C._fma_arrays(spec, 1000)
    x = np.tile(np.asarray(C._fma_arrays(spec, 1000)[2]), (2, 1))
    for _ in range(500):
        x = x * b + c
    with pytest.raises(C.CheckFailed):
        C._check_fma(spec, x.reshape(-1), b, c, start64, 1000)


def test_tensor_check_catches_one_wrong_warp():
    spec = SPECS["mma_fp16"]
    per_thread = np.zeros(64)
    per_thread[0] = per_thread[32] = K.mma_warp_sum(spec)
    assert "exact" in C._check_tensor(spec, per_thread, 1, 64)
    per_thread[32] = 0.0
    with pytest.raises(C.CheckFailed, match="1 of 2 warps"):
        C._check_tensor(spec, per_thread, 1, 64)
