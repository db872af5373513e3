"""The two DeepCAM sample runs (FP32 and AMP on one H200) and their comparison."""

from __future__ import annotations

import pytest

from tests.conftest import DEEPCAM

FP32 = DEEPCAM / "deepcam_fp32.raw-base.csv.xz"
AMP = DEEPCAM / "deepcam_amp.raw-base.csv.xz"


@pytest.fixture(scope="session")
def fp32_run(load_once):
    return load_once(FP32)


@pytest.fixture(scope="session")
def amp_run(load_once):
    return load_once(AMP)


@pytest.fixture(scope="session")
def comparison(fp32_run, amp_run):
    from rooftui.analysis.compare import compare_runs

    return compare_runs(fp32_run, amp_run, "deepcam_fp32", "deepcam_amp")
