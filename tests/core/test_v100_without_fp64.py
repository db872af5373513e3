"""#28: what the paper's V100 runs (no FP64 counter) show, and that nothing there is wrong.

The NERSC one-metric runs collected FP32, FP16 and Tensor instructions but no FP64: a
launch's FLOP total is partial (FP64 not collected), shown as such with the counters and
the ncu option that collect them; a Tensor type a V100 lacks is not applicable, so it is
neither part of a total nor named as missing.
"""

from __future__ import annotations

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.notes import kind_of
from tests.core.test_three_states import FMA, TIME, write_raw

V100 = ("Tesla V100-SXM2-16GB", "7.0")
NO_FP64 = {FMA.format(f"{p}{op}"): 0.0 for p in "fh" for op in ("add", "mul", "fma")}
COPY = {**TIME, **NO_FP64, "sm__inst_executed_pipe_tensor.sum": 0.0, "dram__bytes.sum": 1e8}
SAXPY = {**COPY, FMA.format("ffma"): 1e6}


def test_a_v100_run_without_fp64_counters_is_partial_and_names_the_counters_and_the_option(tmp_path):
    path = write_raw(tmp_path / "nersc.csv", *V100, [("copy", COPY), ("saxpy", SAXPY)])
    run = load_run([path], LoadOptions(find_measured=False))
    saxpy = run.kernels.iloc[1]
    assert saxpy["flops_partial"] and saxpy["flops"] == 2e6  # FP32 counted, FP64 unknown
    assert saxpy["flops_fp64_state"] == "not_collected"
    assert saxpy["flops_tensor_tf32_state"] == "not_applicable"
    partial = next(n for n in run.notes if "partial FLOP total" in n)
    assert "FP64 not collected" in partial and FMA.replace("sm__", "smsp__").format("dfma") in partial
    assert "--set full" in partial


def test_zero_ai_on_a_v100_is_judged_without_fp64_only_not_tensor_types_a_v100_lacks(tmp_path):
    path = write_raw(tmp_path / "nersc.csv", *V100, [("copy", COPY)])
    run = load_run([path], LoadOptions(find_measured=False))
    assert run.kernels.iloc[0]["zero_ai"]
    note = next(n for n in run.notes if kind_of(n) == "zero_ai_judged_without")
    assert note.startswith("zero-AI is judged without FP64 counters (not in the report)"), note


def test_a_zero_ai_launch_judged_without_fp64_is_bound_but_never_on_a_complete_basis(tmp_path):
    """The copy moves 10^8 DRAM bytes and nothing else: zero-AI, HBM-bound on the paper's
    roofs (828.758 GB/s); without FP64 counters its basis says it was judged on a partial
    set, and with them (all 0) it is complete."""
    path = write_raw(tmp_path / "nersc.csv", *V100, [("copy", COPY)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["bound"] == "HBM" and row["bound_basis"] == "zero_ai_partial"
    assert row["roof_fraction"] == 1e8 / 100e-6 / 828.758e9
    every = {**COPY, **{FMA.format(f"d{op}"): 0.0 for op in ("add", "mul", "fma")}}
    path = write_raw(tmp_path / "full.csv", *V100, [("copy", every)])
    row = load_run([path], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["bound"] == "HBM" and row["bound_basis"] == "complete"
