"""Zero-AI in one vocabulary: launches and kernels named as such, integer Tensor work
never zero-AI, mixed groups shown as "13/18" (issue 24 item 3)."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from rooftui.analysis import grouped_kernels, zero_ai
from rooftui.model.columns import FLOP_COLUMNS
from rooftui.sample import sample_paths
from rooftui.views.summary import render_table
from tests.conftest import KNOWN


def test_the_known_answer_has_one_zero_ai_kernel_and_the_int8_gemm_is_not_one(load_once):
    # kernels/known_answer: copy_f32 moves bytes and does no arithmetic; wmma_gemm_int8 does
    # 2^31 integer Tensor ops and no FLOP.
    run = load_once(KNOWN / "known_answer.raw-base.csv")
    tally = zero_ai.tally(run.kernels)
    assert (tally.launches, tally.all_launches, tally.kernels, tally.all_kernels) == (1, 15, 1, 15)
    int8 = run.kernels[run.kernels["name"] == "wmma_gemm_int8"].iloc[0]
    assert int8["flops"] == 0 and int8["ops_tensor_int8"] == 2**31
    assert tally.text() == "1 of 15 launches zero-AI (1 of 15 kernels)"


def test_invocations_and_grouped_rows_tally_the_same_and_match_a_count_from_the_work_columns(load_once):
    run = load_once(sample_paths()[0])
    kernels = run.kernels
    # Straight from the work counted per launch: no FLOP of any pipeline, no integer Tensor op.
    flop_columns = list(FLOP_COLUMNS)  # one per pipeline (not the states or flops_partial beside them)
    work = kernels[flop_columns + ["ops_tensor_int8"]]
    idle = (work.fillna(0) == 0).all(axis=1) & work.notna().any(axis=1)
    per_name = idle.groupby(kernels["name"]).agg(["sum", "count"])
    expected = (
        int(idle.sum()),
        len(kernels),
        int((per_name["sum"] == per_name["count"]).sum()),
        int(((per_name["sum"] > 0) & (per_name["sum"] < per_name["count"])).sum()),
        len(per_name),
    )
    for rows in (kernels, grouped_kernels(run)):
        tally = zero_ai.tally(rows)
        got = (tally.launches, tally.all_launches, tally.kernels, tally.kernels_in_part, tally.all_kernels)
        assert got == expected == (34, 179, 6, 2, 73)


def test_a_mixed_group_reads_13_of_18(load_once):
    assert zero_ai.share_text(13, 18) == "13/18"
    assert zero_ai.share_text(18, 18) == "18" and zero_ai.share_text(0, 18) == ""
    run = load_once(sample_paths()[0])
    rows = grouped_kernels(run)
    mixed = rows[(zero_ai.launches(rows) > 0) & (zero_ai.launches(rows) < zero_ai.launch_counts(rows))]
    assert sorted(np.asarray(mixed["zero_ai_launches"]).tolist()) == [1, 13]
    console = Console(file=io.StringIO(), width=120, color_system=None)
    render_table(run, rows.sort_values("time_s", ascending=False), console, grouped=True)
    text = console.file.getvalue()
    assert "zero-AI launches 13/18" in text and "zero-AI launches 1/18" in text
    assert "34 of 179 launches zero-AI (6 of 73 kernels, 2 more in part)" in text
    assert "Zero-AI launches (Table III)" in text
