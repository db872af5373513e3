"""Reports collected with ncu's own sets: derive what can be derived, name what is missing."""

import pytest

from tests.conftest import KNOWN, run_cli

# What is derived from ncu's own sets, not the reading: each .ncu-rep is read by its reader
# child once per run (tests/ingest reads them cold), and loaded once per worker (load_once).
pytestmark = pytest.mark.usefixtures("shared_report_cache")


def test_roofline_set_counts_are_derived_from_its_rates(expected, load_once):
    run = load_once(KNOWN / "known_answer_roofline.ncu-rep.xz")
    rows = run.kernels.set_index("name")
    for name, answer in expected.items():
        for column in ("flops_fp64", "flops_fp32"):
            assert rows.loc[name, column] == pytest.approx(answer[column], rel=1e-6, abs=1.0), name
    assert rows.loc["wmma_gemm", "flops_tensor_fp16"] == pytest.approx(137_438_953_472, rel=1e-6)
    assert rows.loc["copy_f32", "zero_ai"]
    derived = next(n for n in run.notes if n.startswith("derived from rates"))
    assert "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum" in derived
    missing = next(n for n in run.notes if n.startswith("missing metrics"))
    assert "l1tex__t_bytes.sum" in missing and "--metrics" in missing


def test_basic_set_loads_with_time_only_and_says_what_to_collect(load_once):
    result = run_cli("summary", KNOWN / "known_answer_basic.ncu-rep.xz", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert "missing metrics" in result.stderr
    assert "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum" in result.stderr
    assert "rooftui profile" in result.stderr
    run = load_once(KNOWN / "known_answer_basic.ncu-rep.xz")
    assert run.kernels["time_s"].notna().all()
    # The basic set has no FLOP counter: nothing is 0 or "none". Its Tensor MMA pipe
    # counters show which kernels did Tensor work: those are not zero-AI, amount unknown.
    mma = run.kernels["name"].str.startswith("wmma_gemm")
    assert (run.kernels.loc[~mma, "pipeline"] == "unknown").all()
    assert run.kernels.loc[~mma, "zero_ai"].isna().all()
    assert (run.kernels.loc[mma, "pipeline"] == "tensor_uncounted").all()
    assert not run.kernels.loc[mma, "zero_ai"].any()
    assert run.kernels["flops"].isna().all() and run.kernels["flop_rate"].isna().all()
