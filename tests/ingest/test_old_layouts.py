"""Exports of ncu 2019.5/2020.x load with the same numbers as today's, given the GPU."""

import csv

import pandas as pd
import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.notes import kind_of
from tests.conftest import KNOWN, run_cli
from tests.ingest.old_layouts import old_details, old_raw

COMPARED = [
    "time_s",
    "flops_fp64",
    "flops_fp32",
    "flops_fp16",
    "flops_tensor",
    "bytes_l1",
    "bytes_l2",
    "bytes_hbm",
]


@pytest.fixture(scope="module")
def today():
    return load_run([KNOWN / "known_answer.details-base.csv"]).kernels.set_index("name")[COMPARED]


@pytest.mark.parametrize(
    "make, source",
    [
        (lambda s, t: old_details(s, t), "known_answer.details-base.csv"),
        (
            lambda s, t: old_details(s, t, sm_spelling=False, quoting=csv.QUOTE_MINIMAL),
            "known_answer.details-base.csv",
        ),
        (old_raw, "known_answer.raw-base.csv"),
    ],
    ids=["details-2020", "details-unquoted", "raw-2020"],
)
def test_old_layout_with_gpu_option_gives_todays_numbers(make, source, tmp_path, today):
    path = make(KNOWN / source, tmp_path / "old.csv")
    run = load_run([path], LoadOptions(gpu="H200"))
    old = run.kernels.set_index("name")[COMPARED]
    assert list(old.index) == list(today.index)
    assert old.to_numpy() == pytest.approx(today.to_numpy(), rel=1e-9, nan_ok=True)
    assert set(run.kernels["device"]) == {"H200"} and set(run.kernels["cc"]) == {"9.0"}


def test_old_layout_without_the_gpu_leaves_tensor_flops_blank_and_names_the_options(tmp_path):
    path = old_details(KNOWN / "known_answer.details-base.csv", tmp_path / "old.csv")
    result = run_cli("summary", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    assert "--gpu NAME" in result.stderr and "--arch sm_XY" in result.stderr
    run = load_run([path])
    rows = run.kernels.set_index("name")
    assert rows["flops_tensor"].isna().all()
    assert rows.loc["daxpy", "flops_fp64"] == 33_554_432  # CUDA-core FLOPs need no architecture
    assert rows.loc["wmma_gemm", "pipeline"] == "unknown" and pd.isna(rows.loc["wmma_gemm", "zero_ai"])


def test_old_layout_with_the_device_name_needs_no_option(tmp_path, today):
    """No CC column, but the device's own name: its compute capability is NVIDIA's, not a guess."""
    path = old_details(KNOWN / "known_answer.details-base.csv", tmp_path / "old.csv", display_name=True)
    run = load_run([path])
    assert set(run.kernels["cc"]) == {"9.0"}
    old = run.kernels.set_index("name")[COMPARED]
    assert old.to_numpy() == pytest.approx(today.to_numpy(), rel=1e-9, nan_ok=True)
    assert "unknown_arch" not in map(kind_of, run.notes)
