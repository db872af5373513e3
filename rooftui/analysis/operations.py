"""Operation classes: what a kernel does, in the few groups a step budget is read in.

Built on ``compare_match.operation_key`` (the operation ``diff`` matches kernels by), so a
kernel lands in the same operation here and in ``diff``; this only folds those keys
into classes. Communication comes from ``ranks.is_communication`` (the kernel table's
``communication`` column).
"""

from __future__ import annotations

import re

import pandas as pd

from rooftui.analysis.compare_match import operation_key

GEMM = "GEMM"
ATTENTION = "attention"
NORMALIZATION = "normalization"
ELEMENTWISE = "elementwise"
REDUCTION = "reduction"
COPY_CAST_LAYOUT = "copy/cast/layout"
COMMUNICATION = "communication"
OTHER = "other"
CONVOLUTIONS = ("conv fprop", "conv dgrad", "conv wgrad")
CLASSES = (
    GEMM,
    *CONVOLUTIONS,
    ATTENTION,
    NORMALIZATION,
    ELEMENTWISE,
    REDUCTION,
    COPY_CAST_LAYOUT,
    COMMUNICATION,
    OTHER,
)
MATRIX_CLASSES = (GEMM, *CONVOLUTIONS)  # the work Tensor Cores do

# Checked in this order on the lower-cased operation key: a copy launched through
# PyTorch's elementwise launcher is a copy, a split-K reduction of a GEMM is a reduction.
_RULES = (
    (ATTENTION, re.compile(r"attention|flash|fmha|\bmha|sdpa")),
    (NORMALIZATION, re.compile(r"norm|batchnorm|bn_fw|bn_bw|welford")),
    (
        COPY_CAST_LAYOUT,
        re.compile(
            r"copy|convert|cast|transpose|permute|nhwc|nchw|layout|fill|"
            r"\bcat|index_select|gather|scatter"
        ),
    ),
    (REDUCTION, re.compile(r"reduce|reduction|sum_functor|meanops|softmax|argmax|norm_kernel")),
    (ELEMENTWISE, re.compile(r"^elementwise|^multi_tensor_apply|^amp_|^vectorized|^unrolled")),
)


def operation_class(name: str) -> str:
    """The class of one kernel name: "GEMM", "conv wgrad", "copy/cast/layout", ..."""
    key = operation_key(name)
    if key in CONVOLUTIONS:
        return key
    if key in ("gemm", "gemv"):
        return GEMM
    lowered = key.lower()
    for label, pattern in _RULES:
        if pattern.search(lowered):
            return label
    return OTHER


def operation_classes(kernels: pd.DataFrame) -> pd.Series:
    """Each launch's class; communication kernels (``ranks``) are "communication"."""
    names = kernels["name"].astype(str)
    by_name = {name: operation_class(name) for name in names.unique()}
    classes = names.map(by_name)
    if "communication" in kernels:
        classes = classes.where(~kernels["communication"].fillna(False).astype(bool), COMMUNICATION)
    return classes
