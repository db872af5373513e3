"""docs/advise.md's FP32 -> AMP table: what advise predicts from the FP32 run alone, beside
what the AMP run of the same step really shows. The actual side is kernel time summed per
operation class straight from the two reports; this test keeps the page's numbers true."""

from __future__ import annotations

import pytest

from rooftui.analysis.advise_findings import precision_gains
from rooftui.analysis.advise_run import advise
from rooftui.analysis.operations import MATRIX_CLASSES, operation_classes
from rooftui.sample import sample_ceilings, sample_pair

US = 1e6


@pytest.fixture(scope="module")
def pair(load_once):
    """The bundled pair as `rooftui advise` reads it (load_once: test_advise reads the AMP run too)."""
    fp32, amp = (load_once(path, ceilings=sample_ceilings()) for path in sample_pair())
    return fp32, amp


def per_class(run):
    return (run.kernels["time_s"].groupby(operation_classes(run.kernels)).sum() * US).round(1)


def test_the_actual_change_per_class_is_what_the_page_says(pair):
    fp32, amp = (per_class(run) for run in pair)
    assert fp32[list(MATRIX_CLASSES)].tolist() == [74.0, 149.2, 181.2, 266.0]  # GEMM, fprop, dgrad, wgrad
    assert amp[list(MATRIX_CLASSES)].tolist() == [59.3, 93.2, 87.7, 219.7]
    assert (fp32["copy/cast/layout"], amp["copy/cast/layout"]) == (180.9, 225.7)
    assert round(pair[0].kernels["time_s"].sum() * US, 1) == 1578.7
    assert round(pair[1].kernels["time_s"].sum() * US, 1) == 1378.5


def test_the_fp32_run_alone_predicts_what_the_page_says(pair):
    fp32 = pair[0]
    advice = advise(fp32)
    [finding] = [f for f in advice.findings if f.kind == "precision"]
    # L2 bytes are lts__t_sectors_srcunit_tex x 32 (docs/l2-bytes.md); from lts__t_bytes, which
    # counts far-partition lookups twice, these were 498.6, 102.2 and 378.5.
    assert round(finding.gain_s * US, 1) == 508.2 and finding.launches == 40
    priced = precision_gains(advice.launches, fp32.ceilings, advice.floors["NVIDIA H200"])
    assert round(priced["new_s"].sum() * US, 1) == 92.6
    assert round(priced["same_share_s"].sum() * US, 1) == 399.4
    assert round(priced["cast_s"].sum() * US, 1) == 69.6
