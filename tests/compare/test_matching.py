"""The matcher on hand-made kernel names: which tier pairs what, and what it leaves alone."""

from __future__ import annotations

import pandas as pd
import pytest

from rooftui.analysis.compare import match_kernels, operation_key, parameter_key

XMMA_FPROP_TF32 = (
    "sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_tf32f32_tf32f32_f32_nhwckrsc_nhwc_"
    "tilesize128x32x16_stage1_warpsize4x1x1_g1_tensor16x8x8_aligna4_alignc8_execute_kernel__5x_cudnn"
)
XMMA_FPROP_F16 = (
    "sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_f16f16_f16f32_f32_nhwckrsc_nhwc_"
    "tilesize128x32x64_stage1_warpsize4x1x1_g1_tensor16x8x16_aligna4_alignc8_execute_kernel__5x_cudnn"
)
# The brief's example: same operation (fprop conv), different architecture, precision and shape.
SM80_FPROP_F16 = (
    "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x32x32_stage4_"
    "warpsize4x1x1_g1_tensor16x8x16_t1r3s3_execute_kernel__5x_cudnn"
)
SM90_FPROP_TF32 = (
    "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_"
    "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn"
)
MUL_FLOAT = (
    "vectorized_elementwise_kernel<4, at::BinaryFunctor<float, float, float, "
    "binary_internal::MulFunctor<float>>, std::array<char *, 3>>"
)
MUL_HALF = (
    "elementwise_kernel<128, 4, void at::gpu_kernel_impl_nocast<at::BUnaryFunctor<c10::Half, "
    "c10::Half, c10::Half, binary_internal::MulFunctor<float>>>(at::TensorIteratorBase &, "
    "const T1 &)::[lambda(int) (instance 1)]>"
)
FILL_HALF = "vectorized_elementwise_kernel<8, at::FillFunctor<c10::Half>, std::array<char *, 1>>"


def kernels(*rows) -> pd.DataFrame:
    """(name, time in µs, phase) rows as a grouped-kernel frame."""
    return pd.DataFrame([{"name": n, "time_s": t * 1e-6, "phase": p} for n, t, p in rows])


def pairs(a, b) -> list[tuple[str, str, str]]:
    """(A's name, B's name, method) per match."""
    return [(a.name[m.a], b.name[m.b], m.method) for m in match_kernels(a, b)]


def test_same_name_is_an_exact_match_even_in_another_phase():
    a = kernels(("daxpy", 10, "forward"), ("dgemm", 5, "forward"))
    b = kernels(("dgemm", 7, "backward"), ("daxpy", 3, "forward"))
    assert sorted(pairs(a, b)) == [("daxpy", "daxpy", "exact"), ("dgemm", "dgemm", "exact")]


def test_exact_name_wins_over_a_heavier_fuzzy_candidate():
    a = kernels(("bn<float, 512>", 10, "forward"), ("bn<__half, 256>", 1, "forward"))
    b = kernels(("bn<__half, 256>", 2, "forward"))
    assert pairs(a, b) == [("bn<__half, 256>", "bn<__half, 256>", "exact")]


def test_batchnorm_in_float_and_half_match_by_parameters():
    a = kernels(
        (
            "batchnorm_fwtr_nhwc_semiPersist<float, float, float, 512, 16, 2, 4, 1, 1, 0, 0, 1, 2>",
            90,
            "forward",
        )
    )
    b = kernels(
        (
            "batchnorm_fwtr_nhwc_semiPersist<__half, float, __half, 512, 16, 5, 4, 1, 1, 0, 0, 1, 2>",
            79,
            "forward",
        )
    )
    assert [method for _, _, method in pairs(a, b)] == ["parameters"]


def test_cudnn_kernel_in_tf32_and_fp16_match_by_parameters():
    assert parameter_key(XMMA_FPROP_TF32) == parameter_key(XMMA_FPROP_F16)
    a, b = kernels((XMMA_FPROP_TF32, 48, "forward")), kernels((XMMA_FPROP_F16, 5, "forward"))
    assert pairs(a, b) == [(XMMA_FPROP_TF32, XMMA_FPROP_F16, "parameters")]


def test_fuzzy_tiers_need_the_same_phase():
    a = kernels((XMMA_FPROP_TF32, 48, "forward"))
    b = kernels((XMMA_FPROP_F16, 5, "backward"))
    assert pairs(a, b) == []


def test_fprop_convolutions_of_different_families_match_by_operation():
    assert operation_key(SM80_FPROP_F16) == operation_key(SM90_FPROP_TF32) == "conv fprop"
    assert parameter_key(SM80_FPROP_F16) != parameter_key(SM90_FPROP_TF32)
    a, b = kernels((SM90_FPROP_TF32, 33, "forward")), kernels((SM80_FPROP_F16, 17, "forward"))
    [match] = match_kernels(a, b)
    assert (match.method, match.key, match.rank) == ("operation", "conv fprop", 1)


def test_operation_matches_pair_by_time_rank_and_leave_the_rest():
    cutlass = "Kernel<cutlass_tensorop_f16_s16816fprop_optimized_f16_64x64_64x5_nhwc_align8>"
    a = kernels(
        (SM90_FPROP_TF32, 30, "forward"),
        (XMMA_FPROP_TF32, 50, "forward"),
        ("convolve_fprop_engine<float, 3>", 10, "forward"),
    )
    b = kernels((cutlass, 20, "forward"), (SM80_FPROP_F16, 25, "forward"))
    # XMMA_FPROP_TF32 has no parameters twin here: all five are "conv fprop".
    matches = match_kernels(a, b)
    assert [(a.name[m.a], b.name[m.b]) for m in matches] == [
        (XMMA_FPROP_TF32, SM80_FPROP_F16),
        (SM90_FPROP_TF32, cutlass),
    ]
    assert [(m.rank, m.candidates_a, m.candidates_b) for m in matches] == [(1, 3, 2), (2, 3, 2)]


def test_each_kernel_is_used_at_most_once():
    a = kernels(("k<float>", 3, "f"), ("k<double>", 2, "f"), ("k<int>", 1, "f"))
    b = kernels(("k<__half>", 5, "f"))
    matches = match_kernels(a, b)
    assert [(a.name[m.a], m.method, m.candidates_a) for m in matches] == [("k<float>", "parameters", 3)]


def test_elementwise_kernels_match_on_their_functor_not_their_launcher():
    assert operation_key(MUL_FLOAT) == operation_key(MUL_HALF) == "elementwise MulFunctor"
    a = kernels((MUL_FLOAT, 4, "backward"))
    b = kernels((FILL_HALF, 9, "backward"), (MUL_HALF, 3, "backward"))
    assert pairs(a, b) == [(MUL_FLOAT, MUL_HALF, "operation")]


@pytest.mark.parametrize(
    "name, key",
    [
        ("Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>", "gemm"),
        ("nvjet_sm90_hsh_64x32_64x16_2x4_h_bz_NTT", "gemm"),
        (
            "sm80_xmma_gemm_f16f16_f32f32_f32_nn_n_tilesize128x32x8_stage3_warpsize2x2x1_ffma_aligna2_alignc2_"
            "execute_kernel__5x_cublas",
            "gemm",
        ),
        ("dgrad_engine<float, 512, 6, 5, 3, 3, 3, 0>", "conv dgrad"),
        (
            "Kernel<conv::ImplicitGemmConvolution<conv::ImplicitGemmMultistage<gemm::GemmShape<64, 64, 64>, "
            "conv::Conv2dWgradOutputGradientTileAccessIteratorOptimized"
            "<cutlass__5x_cudnn::MatrixShape<64, 64>>>>>",
            "conv wgrad",
        ),
        # Prepares a wgrad, but is not one: its own name has no direction.
        (
            "init_device_workspace_kernel<wgrad_indexed::Warp_specialized_params"
            "<xmma__5x_cudnn::Grid_constant_params>>",
            "init_device_workspace_kernel",
        ),
        ("Kernel<reduction::ReduceSplitK<cutlass__5x_cudnn::MatrixShape<4, 128>, float>>", "ReduceSplitK"),
        (
            "reduce_kernel<128, 4, at::ReduceOp<c10::Half, at::MeanOps<c10::Half, float, float, c10::Half>, "
            "unsigned int, c10::Half, 4, 8>>",
            "reduce MeanOps",
        ),
        (
            "multi_tensor_apply_kernel<at::<unnamed>::TensorListMetadata<1>, "
            "at::<unnamed>::BinaryOpScalarFunctor<float, 1, 1, 0>, std::plus<float>, float>",
            "multi_tensor_apply BinaryOpScalarFunctor plus",
        ),
        ("gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>", "gemv"),
        ("nll_loss2d_forward_kernel<float, float, int>", "nll_loss2d_forward_kernel"),
    ],
)
def test_operation_keys(name, key):
    assert operation_key(name) == key


def test_numbers_that_name_different_kernels_are_kept():
    # User kernels told apart by a digit are different code, not one kernel with other parameters.
    assert parameter_key("stencil_step1") != parameter_key("stencil_step2")
    assert pairs(
        kernels(("stencil_step1", 5, "forward"), ("stencil_step2", 4, "forward")),
        kernels(("stencil_step1", 5, "forward"), ("stencil_step3", 4, "forward")),
    ) == [("stencil_step1", "stencil_step1", "exact")]


def test_tile_shapes_architectures_and_alignments_are_parameters():
    a = "nvjet_sm90_hsh_64x32_64x16_2x4_h_bz_NTT"
    b = "nvjet_sm100_hsh_128x64_64x8_1x2_h_bz_NTT"
    assert parameter_key(a) == parameter_key(b) == "nvjet_smN_hsh_NxN_NxN_NxN_h_bz_NTT"
    # ... but the transposes (NTT, TNT) are a different kernel.
    assert parameter_key(a) != parameter_key(a.replace("NTT", "TNT"))


def test_a_dgrad_outside_a_convolution_library_is_not_a_convolution():
    assert operation_key("batchnorm_backward_dgrad_kernel<float>") == "batchnorm_backward_dgrad_kernel"
    assert operation_key("convolve_fprop_engine<float, 3>") == "conv fprop"


def test_different_optimizer_functors_do_not_match():
    plus = (
        "multi_tensor_apply_kernel<at::<unnamed>::TensorListMetadata<1>, at::<unnamed>::"
        "BinaryOpScalarFunctor<float, 1, 1, 0>, std::plus<float>, float>"
    )
    times = plus.replace("std::plus", "std::multiplies")
    assert pairs(kernels((plus, 2, "optimizer")), kernels((times, 2, "optimizer"))) == []
