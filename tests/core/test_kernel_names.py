"""Kernel names people recognise: the one shortener keeps the operator, element types,
conv direction and tile, and tells every kernel of a run apart at the widths the views
use (17 to 40 characters)."""

from __future__ import annotations

from functools import cache

import pytest

from rooftui.sample import sample_paths
from rooftui.views.text import kernel_label, short_names
from tests.conftest import SAMPLES

RUNS = [
    sample_paths()[0],
    SAMPLES / "deepcam" / "deepcam_fp32.raw-base.csv.xz",
    SAMPLES / "deeplab" / "deeplab_amp.raw-base.csv.xz",
    SAMPLES / "deeplab" / "deeplab_fp32.raw-base.csv.xz",
    SAMPLES / "known_answer" / "known_answer.raw-base.csv",
]
WIDTHS = (17, 24, 32, 40)

# The operator a person reads in each kind of name, written by hand from the names in
# sample_data (PyTorch's functors and kernels, cuDNN's conv directions), first match wins.
OPERATORS = (
    "direct_copy_kernel_cuda",
    "float16_copy_kernel_cuda",
    "threshold_kernel_impl",
    "CUDAFunctor_add",
    "MulFunctor",
    "FillFunctor",
    "launch_clamp_scalar",
    "reciprocal_kernel_cuda",
    "masked_scale_kernel",
    "sum_functor",
    "MeanOps",
    "fprop",
    "dgrad",
    "wgrad",
    "nll_loss2d",
    "max_pool",
    "upsample_bilinear2d",
    "multiplies",
    "plus",
    "divides",
    "Sqrt",
    "LerpFunctor",
    "cunn_SpatialSoftMax",
    "CatArrayBatchedCopy",
    "nvjet",
    "fma_loop",
    "wmma_gemm",
)

CAST = (  # the example: a cast, shown at 200x60 as unrolled_elementwise_kernel‹di…
    "unrolled_elementwise_kernel<direct_copy_kernel_cuda(TensorIteratorBase &)::[lambda() (instance 3)]"
    "::operator ()() [lambda() (instance 7)]::operator ()() [lambda(float) (instance 1)], array<char *, 2>,"
    " 4, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>,"
    " LoadWithCast<1>, StoreWithCast<1>>"
)
COPY_128_2 = (
    "elementwise_kernel<128, 2, void gpu_kernel_impl_nocast<direct_copy_kernel_cuda(TensorIteratorBase &)"
    "::[lambda() (instance 3)]::operator ()() [lambda() (instance 7)]::operator ()() [lambda(float)"
    " (instance 1)]>(TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>"
)
FPROP = (
    "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x64x32_warpgroupsize1x1x1"
    "_g1_execute_segment_k_off_kernel__5x_cudnn"
)


@cache
def run_names(path, load_once) -> tuple[str, ...]:
    """The kernel names of ``path``, once per worker (two tests read them; ``load_once``
    shares the load with the other tests that read the same sample)."""
    return tuple(sorted(set(load_once(path).kernels["name"])))


def test_a_cast_reads_as_the_copy_it_is_with_its_element_type():
    assert kernel_label(CAST) == "direct_copy_kernel_cuda<float>"
    assert kernel_label(COPY_128_2) == "direct_copy_kernel_cuda<float>"  # the index lambda(int) is not a type
    assert short_names([CAST], 40) == {CAST: "direct_copy_kernel_cuda<float>"}


def test_a_cudnn_conv_keeps_arch_direction_types_and_tile():
    assert kernel_label(FPROP) == "sm90_xmma_fprop_f16f16_f16f32_f32_tilesize128x64x32"


def test_two_copies_that_differ_only_in_their_launch_are_told_apart_by_it():
    other = COPY_128_2.replace("<128, 2,", "<128, 4,").replace("_nocast<", "<")
    shown = short_names([CAST, COPY_128_2, other], 40)
    assert shown[CAST] == "direct_copy_kernel_cuda<float> unrolled"
    assert len(set(shown.values())) == 3
    assert all(text.startswith("direct_copy_kernel_cuda<float>") for text in shown.values())
    assert kernel_label(COPY_128_2, 2) == "direct_copy_kernel_cuda<float> elementwise<128,2>"


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_every_kernel_of_a_run_reads_differently_at_every_width(path, load_once):
    names = run_names(path, load_once)
    for width in WIDTHS:
        for ellipsis in ("…", "~"):
            shown = short_names(names, width, ellipsis)
            assert len(set(shown.values())) == len(names), width
            assert max(len(text) for text in shown.values()) <= width


@pytest.mark.parametrize("path", RUNS, ids=lambda p: p.name)
def test_at_40_characters_each_kernel_shows_its_operator(path, load_once):
    missing = []
    shown = short_names(run_names(path, load_once), 40)
    for name, text in shown.items():
        operator = next((op for op in OPERATORS if op in name), None)
        if operator and operator not in text:
            missing.append((operator, text))
    assert not missing


def test_csv_and_json_carry_the_label_beside_the_exact_name(capsys):
    import csv
    import io
    import json

    from rooftui.cli import main

    main(["summary", str(sample_paths()[0]), "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    labels = {row["name"]: row["label"] for row in rows}
    assert len(set(labels.values())) == len(labels) == 73
    cast = next(name for name in labels if name.startswith("unrolled_") and "lambda(float)" in name)
    assert labels[cast] == "direct_copy_kernel_cuda<float> unrolled"
    main(["summary", str(sample_paths()[0]), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert {kernel["name"]: kernel["label"] for kernel in doc["kernels"]} == labels
