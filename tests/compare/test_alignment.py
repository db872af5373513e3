"""Compare by alignment: the launch sequences of two runs of the same model code.

The DeepCAM pins come from the model code (sample_data/make/deepcam_step.py), not
from the matcher's output: DeepCAMLike has 9 BatchNorm2d layers (stem, enc1, enc2,
three ASPP branches, the ASPP projection, dec1, dec2), so one training step runs 9
batch-norm forward and 9 backward launches; its forward calls torch.cat three times
(ASPP, dec1, dec2); under AMP autocast adds casts of FP32 weights and inputs to FP16,
which have no counterpart in the FP32 step.
"""

from __future__ import annotations

import pandas as pd
import pytest

from rooftui.analysis.alignment import align_phase
from rooftui.analysis.compare import kernel_matches, launch_keys

BN_FW_FLOAT = "batchnorm_fwtr_nhwc_semiPersist<float, float, float, 512, 16, 2, 4, 1, 1, 0, 0, 1, 2>"
BN_FW_HALF = "batchnorm_fwtr_nhwc_semiPersist<__half, float, __half, 512, 16, 5, 4, 1, 1, 0, 0, 1, 2>"
_COPY = (
    "elementwise_kernel<128, {}, void gpu_kernel_impl_nocast<direct_copy_kernel_cuda("
    "TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() [lambda() (instance {})]"
    "::operator ()() [lambda({}) (instance 1)]>(TensorIteratorBase &, const T1 &)"
    "::[lambda(int) (instance 1)]>"
)
COPY_FLOAT = _COPY.format(2, 7, "float")
COPY_HALF = _COPY.format(4, 10, "Half")
CAST = (
    "vectorized_elementwise_kernel<8, float16_copy_kernel_cuda(TensorIteratorBase &)::[lambda(float) "
    "(instance 1)], array<char *, 2>>"
)
CONV = (
    "sm90_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x32x32_"
    "warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn"
)
DGRAD = CONV.replace("fprop", "dgrad")


def align(a: list[str], b: list[str]) -> list[tuple[str, str, str]]:
    shape = ("(1, 1, 1)", "(128, 1, 1)")
    pairs = align_phase(
        [launch_keys(n) for n in a], [launch_keys(n) for n in b], [shape] * len(a), [shape] * len(b)
    )
    return [(a[i], b[j], signal) for i, j, signal in pairs]


def test_casts_inserted_by_amp_are_gaps_and_the_rest_pairs_in_order():
    a = [CONV, BN_FW_FLOAT, COPY_FLOAT, CONV, BN_FW_FLOAT]
    b = [CAST, CONV, BN_FW_HALF, CAST, COPY_HALF, CONV, BN_FW_HALF]
    assert align(a, b) == [
        (CONV, CONV, "exact"),
        (BN_FW_FLOAT, BN_FW_HALF, "parameters"),
        (COPY_FLOAT, COPY_HALF, "parameters"),
        (CONV, CONV, "exact"),
        (BN_FW_FLOAT, BN_FW_HALF, "parameters"),
    ]


def test_kernels_with_no_shared_signal_are_never_paired():
    assert align([CONV, COPY_FLOAT], [DGRAD, CAST]) == []


def test_similar_base_names_pair_but_not_across_convolution_directions():
    spec = "bn_bw_1C11_singleread_spec<__half2, 512, 1, 2, 0>"
    assert align(["bn_bw_1C11_singleread<float, 512, 1, 1, 2, 0>"], [spec]) == [
        ("bn_bw_1C11_singleread<float, 512, 1, 1, 2, 0>", spec, "similar")
    ]
    # fprop and dgrad kernels share most words, but are different operations.
    assert align([CONV], [DGRAD]) == []


def frames(a: list[str], b: list[str]):
    """Launch frames in launch order and their grouped kernels, one phase, one GPU."""

    def launches(names):
        return pd.DataFrame(
            {
                "id": range(len(names)),
                "name": names,
                "device": "H200",
                "phase": "backward",
                "grid": "(1, 1, 1)",
                "block": "(512, 1, 1)",
                "time_s": 1e-6,
            }
        )

    def groups(frame):
        grouped = frame.groupby(["device", "name"], sort=False)
        return grouped["time_s"].sum().rename("time_s").to_frame().assign(count=grouped.size()).reset_index()

    la, lb = launches(a), launches(b)
    return groups(la), groups(lb), la, lb


def test_a_kernel_is_matched_to_the_counterpart_its_launches_align_with_not_a_name_twin():
    """The issue's DeepLabv3 case: bn_bw<float> launches are bn_bw_spec<__half2> in AMP, except one
    layer that runs bn_bw<__half>; the float kernel matches spec, and bn_bw<__half> (1 launch against
    59, not supported by the alignment) is no match."""
    fp32, spec, half = (
        "bn_bw_1C11_singleread<float, 512, 1, 1, 2, 0>",
        "bn_bw_1C11_singleread_spec<__half2, 512, 1, 2, 0>",
        "bn_bw_1C11_singleread<__half, 512, 1, 1, 2, 0>",
    )
    groups_a, groups_b, la, lb = frames([fp32] * 6, [spec] * 3 + [half] + [spec] * 2)
    from rooftui.analysis.alignment import align_launches

    launches = align_launches(la, lb, {n: launch_keys(n) for n in {fp32, spec, half}})
    assert len(launches) == 6
    matches = kernel_matches(groups_a, groups_b, la, lb, launches)
    assert [(groups_a.name[m.a], groups_b.name[m.b], m.method, m.how, m.aligned) for m in matches] == [
        (fp32, spec, "similar", "aligned", 5)
    ]


def test_counts_more_than_2x_apart_are_no_match_by_name_alone():
    groups_a, groups_b, la, lb = frames(["k<float>"] * 5, ["k<__half>"] * 2)
    la["phase"] = "forward"  # different phases: nothing aligns, only the name tiers are left
    assert kernel_matches(groups_a, groups_b, la, lb, []) == []
    groups_a, groups_b, la, lb = frames(["k<float>"] * 4, ["k<__half>"] * 2)
    [match] = kernel_matches(groups_a, groups_b, la, lb, [])
    assert (match.method, match.how, match.aligned) == ("parameters", "name", 0)


# ---------------------------------------------------------------- the DeepCAM samples


def pairs_of(comparison, name_a: str, name_b: str) -> pd.DataFrame:
    launches = comparison.launches
    return launches[(launches["name_a"] == name_a) & (launches["name_b"] == name_b)]


def test_every_batchnorm_launch_is_aligned_with_its_half_counterpart_layer_by_layer(
    comparison, fp32_run, amp_run
):
    launches = comparison.launches
    for prefix in ("batchnorm_fwtr_nhwc_semiPersist<", "batchnorm_bwtr_nhwc_semiPersist<"):
        bn = launches[launches["name_a"].str.startswith(prefix)]
        assert len(bn) == 9  # the 9 BatchNorm2d layers
        assert bn["name_a"].str.startswith(prefix + "float").all()
        assert bn["name_b"].str.startswith(prefix + "__half").all()
        # In launch order on both sides: layer k of FP32 is layer k of AMP.
        ids_a = fp32_run.kernels.loc[fp32_run.kernels["name"].str.startswith(prefix), "id"]
        ids_b = amp_run.kernels.loc[amp_run.kernels["name"].str.startswith(prefix), "id"]
        assert list(bn["id_a"]) == sorted(ids_a) and list(bn["id_b"]) == sorted(ids_b)


@pytest.mark.parametrize(
    "name_a, name_b, aligned",
    [
        (BN_FW_FLOAT, BN_FW_HALF, 9),
        (
            "batchnorm_bwtr_nhwc_semiPersist<float, float, float, 512, 16, 3, 4, 1, 1, 1, 2>",
            "batchnorm_bwtr_nhwc_semiPersist<__half, float, __half, 512, 16, 3, 4, 1, 1, 1, 2>",
            7,
        ),
        (
            "batchnorm_bwtr_nhwc_semiPersist<float, float, float, 512, 16, 3, 4, 1, 0, 1, 2>",
            "batchnorm_bwtr_nhwc_semiPersist<__half, float, __half, 512, 16, 3, 4, 1, 0, 1, 2>",
            2,
        ),
        (COPY_FLOAT, COPY_HALF, 5),
        (
            "CatArrayBatchedCopy<OpaqueType<4>, unsigned int, 4, 64, 64>",
            "CatArrayBatchedCopy<OpaqueType<2>, unsigned int, 4, 64, 64>",
            1,
        ),
        (
            "CatArrayBatchedCopy_alignedK_contig<OpaqueType<4>, unsigned int, 4, 128, 1, 16>",
            "CatArrayBatchedCopy_alignedK_contig<OpaqueType<2>, unsigned int, 4, 128, 1, 8>",
            2,
        ),
    ],
)
def test_batchnorm_copy_and_cat_kernels_match_their_real_counterparts(comparison, name_a, name_b, aligned):
    row = comparison.matched[comparison.matched["name_a"] == name_a].iloc[0]
    assert (row["name_b"], row["how"], row["aligned"]) == (name_b, "aligned", aligned)
    assert row["method"] == "parameters"


def test_the_three_concatenations_of_the_forward_pass_are_aligned(comparison):
    launches = comparison.launches
    cat = launches[launches["name_a"].str.startswith("CatArrayBatchedCopy")]
    assert len(cat) == 3 and set(cat["phase"]) == {"forward"}
    assert cat["name_b"].str.startswith("CatArrayBatchedCopy").all()


def test_amps_casts_have_no_counterpart_and_are_never_aligned(comparison, amp_run):
    casts = amp_run.kernels["name"].str.contains("float16_copy_kernel_cuda|LoadWithCast")
    assert casts.sum() >= 18
    assert not comparison.launches["name_b"].isin(set(amp_run.kernels.loc[casts, "name"])).any()
    only_b = set(comparison.only_b["name_b"])
    assert set(amp_run.kernels.loc[casts, "name"]) <= only_b
