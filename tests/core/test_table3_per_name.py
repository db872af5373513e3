"""#28: Table III per kernel name counts every launch of a zero-AI kernel, whatever its name
is shown as.

The paper's PyTorch runs read 828 zero-AI launches per kernel name instead of the published
1,046 (sample_data/paper/reproduce_table3.py on the real data, 7fd63e0): two kernels whose
short names collide are shown by their qualified names in the grouped table, and Table III
looked the launches' short names up among those. Here two kernels share the short name
``copy``: ``a::copy`` moves bytes only (zero-AI, 2 launches), ``b::copy`` does 2·10^6 FP32
FLOPs (1 launch), so 2 of 3 launches are zero-AI by name, as by launch.
"""

from __future__ import annotations

from rooftui.analysis import load_run
from rooftui.analysis.grouping import group_by_name
from rooftui.analysis.load_options import LoadOptions
from rooftui.analysis.summary import zero_ai_table
from tests.core.test_three_states import CUDA_CORES, FMA, TIME, write_raw

COPY = {**TIME, **CUDA_CORES, "sm__inst_executed_pipe_tensor.sum": 0.0, "dram__bytes.sum": 1e8}
SAXPY = {**COPY, FMA.format("ffma"): 1e6}


def test_zero_ai_per_kernel_name_counts_kernels_whose_short_names_collide(tmp_path):
    launches = [
        ("void a::copy(float*)", COPY),
        ("void b::copy(float*)", SAXPY),
        ("void a::copy(float*)", COPY),
    ]
    path = write_raw(tmp_path / "v100.csv", "Tesla V100-SXM2-16GB", "7.0", launches)
    kernels = load_run([path], LoadOptions(find_measured=False)).kernels
    groups = group_by_name(kernels)
    assert sorted(groups["name"]) == ["a::copy", "b::copy"]  # shown apart, by namespace
    by_name = zero_ai_table(kernels, groups).iloc[-1]
    by_launch = zero_ai_table(kernels).iloc[-1]
    assert (by_name["zero_ai"], by_name["kernels"]) == (2, 3) == (by_launch["zero_ai"], by_launch["kernels"])
