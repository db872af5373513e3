"""#28: ceilings others measured and published, for the exact GPU model they measured.

The expected values are typed from the paper's own notebook (github.com/cyanguwa/
DeepLearningProfiling, commit 1290c76, summary/hierarchical_roofline.ipynb, plot_roofs:
``smemroofs = [14*1024, 2996.77, 828.758]`` GB/s for L1, L2, HBM; FP64 7669.86, FP32
15158.6, FP16 29181.6, Tensor Core 106496.0 GFLOP/s), measured with ERT on NERSC's
Cori-GPU V100-SXM2-16GB; the expected bound is arithmetic on those numbers.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rooftui.analysis import load_run
from rooftui.analysis.ceilings import choose_ceilings, source_text
from rooftui.analysis.load_options import LoadOptions
from rooftui.views.summary import to_json
from tests.core.test_three_states import CUDA_CORES, FMA, TIME, write_raw

G = 1e9
PAPER = {
    "l1": 14 * 1024 * G,
    "l2": 2996.77 * G,
    "hbm": 828.758 * G,
    "fp64": 7669.86 * G,
    "fp32": 15158.6 * G,
    "fp16": 29181.6 * G,
    "tensor_fp16": 106496.0 * G,
}
# 10^6 FFMA = 2·10^6 FLOPs in 100 µs (2·10^10 FLOP/s) over 10^9 L1, 10^8 L2 and 10^7 HBM
# bytes: AI 0.002 / 0.02 / 0.2, so L1 allows 0.002 × 14,336 GB/s = 28.672 GFLOP/s, L2
# 59.9 and HBM 165.8: L1 binds, at 2e10 / 2.8672e10 of its roof. Every counter collected.
L1_HEAVY = {
    **TIME,
    **CUDA_CORES,
    FMA.format("ffma"): 1e6,
    "sm__inst_executed_pipe_tensor.sum": 0.0,
    "l1tex__t_bytes.sum": 1e9,
    "lts__t_bytes.sum": 1e8,
    "dram__bytes.sum": 1e7,
}


def _chosen(device: str):
    return choose_ceilings(pd.DataFrame({"x": [1.0]}), device, "7.0", None, find_measured=False)


def test_the_papers_v100_sxm2_16gb_gets_the_papers_measured_roofs_named_as_published():
    chosen = _chosen("Tesla V100-SXM2-16GB")
    found = {c.precision or c.level: c.value for c in chosen.ceilings if c.source == "published"}
    assert found == PAPER
    l1 = chosen.bandwidth("l1")
    assert l1 is not None and l1.method == "empirical"
    assert (
        source_text(l1)
        == "published measurement (Yang, Wang et al. 2020, ERT on Tesla V100-SXM2-16GB, NERSC Cori-GPU)"
    )
    assert "cyanguwa/DeepLearningProfiling commit 1290c76" in l1.to_dict()["published_source"]


@pytest.mark.parametrize(
    "device", ["V100", "Tesla V100-SXM2-32GB", "Tesla V100-PCIE-16GB", "Tesla V100S-PCIE-32GB"]
)
def test_no_other_model_borrows_the_papers_roofs(device):
    chosen = _chosen(device)
    assert not [c for c in chosen.ceilings if c.source == "published"]
    assert chosen.bandwidth("l1") is None


def test_an_l1_heavy_kernel_on_the_papers_gpu_is_l1_bound_and_elsewhere_says_no_l1_roof(tmp_path):
    path = write_raw(tmp_path / "v100.csv", "Tesla V100-SXM2-16GB", "7.0", [("k", L1_HEAVY)])
    run = load_run([path], LoadOptions(find_measured=False))
    row = run.kernels.iloc[0]
    assert not row["flops_partial"] and row["flops"] == 2e6
    assert row["bound"] == "L1" and row["bound_basis"] == "complete"
    assert row["roof_fraction"] == pytest.approx(2e10 / (0.002 * 14336e9), rel=1e-12)
    kernel = json.loads(json.dumps(to_json(run, run.kernels)))
    assert kernel["kernels"][0]["bound"] == "L1"
    other = write_raw(tmp_path / "v100_32.csv", "Tesla V100-SXM2-32GB", "7.0", [("k", L1_HEAVY)])
    row = load_run([other], LoadOptions(find_measured=False)).kernels.iloc[0]
    assert row["bound"] == "" and row["bound_reason"].startswith("no L1 roof")


def test_a_ceilings_file_or_a_measurement_still_comes_first(tmp_path):
    from rooftui.model.ceilings import Ceiling, CeilingSet, Device

    given = CeilingSet(
        Device("Tesla V100-SXM2-16GB", "7.0"), (Ceiling("L1", "bandwidth", 1e13, "empirical", level="l1"),)
    )
    chosen = choose_ceilings(
        pd.DataFrame({"x": [1.0]}), "Tesla V100-SXM2-16GB", "7.0", given, find_measured=False
    )
    assert chosen.bandwidth("l1").value == 1e13 and chosen.bandwidth("l1").source == "file"
    assert chosen.bandwidth("l2").value == PAPER["l2"]
