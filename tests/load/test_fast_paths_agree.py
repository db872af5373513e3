"""The load path's shortcuts give what the general path gives: a one-GPU run is bounded
whole (``load_run``, ``instruction_roofline.with_bounds``), a run of several GPUs one GPU
at a time; a group's zero-AI comes from one groupby of every launch's columns."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.analysis import load_run, zero_ai
from rooftui.views.tui.view_state import LoadedRun

RANKS = ("sample_data/multigpu/ddp.rank0.raw.csv.xz", "sample_data/multigpu/ddp.rank1.raw.csv.xz")
BOUNDS = [
    "bound",
    "bound_basis",
    "bound_reason",
    "roof_fraction",
    "roof_l1",
    "roof_l2",
    "roof_hbm",
    "instruction_bound",
    "instruction_level",
    "instruction_roof_fraction",
]


def test_each_gpu_of_a_two_gpu_run_is_bounded_as_its_report_alone(load_once):
    # The two ranks ran on two H200s of one machine (device 0 and 1): one run of two GPUs,
    # each analysed against its own ceilings, as each report loaded alone is.
    both = LoadedRun.from_run(load_run(list(RANKS))).invocations
    assert both["device"].nunique() == 2
    for rank, report in enumerate(RANKS):
        alone = LoadedRun.from_run(load_once(report)).invocations
        mine = both[both["report"] == report].reset_index(drop=True)
        assert len(mine) == len(alone) > 100, report
        assert set(mine["device"]) == {f"NVIDIA H200 [device {rank}]"}
        for column in BOUNDS:
            pd.testing.assert_series_equal(mine[column], alone[column], check_dtype=False, obj=column)
        assert (alone["bound"] != "").sum() > 50  # most launches have a bound to compare


def test_a_groups_zero_ai_is_true_only_when_every_launch_is_known_to_be():
    known, unknown = True, pd.NA
    cases = {  # each group's launches' zero_ai -> the group's
        "all zero-AI": ([known, known], True),
        "one is not": ([known, False], False),
        "one unknown": ([known, unknown], pd.NA),
        "unknown and not": ([unknown, False], False),
        "all unknown": ([unknown, unknown], pd.NA),
    }
    names = [name for name, (launches, _) in cases.items() for _ in launches]
    kernels = pd.DataFrame(
        {
            "device": "GPU",
            "name": names,
            "zero_ai": pd.array([z for launches, _ in cases.values() for z in launches], dtype="boolean"),
            "time_s": np.arange(1.0, len(names) + 1.0),
        }
    )
    groups = zero_ai.group_columns(kernels, ["device", "name"])
    for (name, (launches, expected)), row in zip(cases.items(), groups.itertuples(index=False)):
        got = row.zero_ai
        assert (got is pd.NA) if expected is pd.NA else (got is not pd.NA and bool(got) == expected), name
        assert row.zero_ai_launches == sum(z is True for z in launches), name
    # the zero-AI time: launch 1 + 2 (all zero-AI), 3 (one is not), 5 (one unknown)
    assert groups[zero_ai.TIME].tolist() == [3.0, 3.0, 5.0, 0.0, 0.0]
