"""One zero-AI vocabulary in the explorer: the legend, the status line, the table's 0-AI
column and the "0-AI: only" filter count the same launches, named as launches, and
integer Tensor work is never zero-AI.

The independent answers: the known-answer report's kernels are built so that exactly
one (copy_f32) does no arithmetic and one (wmma_gemm_int8) does only integer Tensor
work (sample_data/known_answer/expected.json); for the two-rank DDP step the zero-AI
launches are counted here from the kernel table's own work columns, every FLOP
counter and the INT8 Tensor count known and zero, without rooftui.analysis.zero_ai.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from rooftui.analysis.filters import KernelFilter
from rooftui.model.columns import WORK_COLUMNS
from rooftui.views.tui.explorer_model import ExplorerModel
from rooftui.views.tui.view_state import LoadedRun
from tests.tui.conftest import REPO, SAMPLE, prepared_run

KNOWN = REPO / "sample_data" / "known_answer"
RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]
SIZES = [(80, 12), (120, 24)]  # the roofline pane at 80x24 and 120x40


def zero_ai_by_hand(kernels: pd.DataFrame) -> np.ndarray:
    """Per launch: every work counter present and zero."""
    work = kernels[list(WORK_COLUMNS)]
    return (work.notna().all(axis=1) & (work.fillna(1) == 0).all(axis=1)).to_numpy()


@pytest.fixture(scope="module")
def known() -> LoadedRun:
    return prepared_run([KNOWN / "known_answer.raw.csv"])


@pytest.fixture(scope="module")
def two_ranks() -> LoadedRun:
    return prepared_run(RANKS)


def legend_and_status(run: LoadedRun, grouped: bool, size: tuple[int, int]) -> tuple[str, str]:
    model = ExplorerModel(run)
    if not grouped:
        model.toggle_grouped()
    model.update_roofline()
    picture = model.roofline_picture(*size)
    said = picture.legend.plain + " " + " ".join(s.text for s in picture.overflow)
    return said, model.status_line(size[0])


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("size", SIZES)
def test_the_known_answer_report_has_one_zero_ai_launch_and_its_int8_gemm_is_not_one(known, grouped, size):
    expected = json.loads((KNOWN / "expected.json").read_text())["kernels"]
    no_arithmetic = [k["name"] for k in expected if k["pipeline"] == "none"]
    integer = [k["name"] for k in expected if k["pipeline"] == "tensor_int8"]
    assert no_arithmetic == ["copy_f32"] and integer == ["wmma_gemm_int8"]
    legend, status = legend_and_status(known, grouped, size)
    assert "1 zero-AI launch not plotted" in legend
    assert "1 INT8 Tensor launch not plotted (integer ops, no FLOP)" in legend
    assert "0-AI: 1 launch" in status and len(status) <= size[0]


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("size", SIZES)
def test_with_two_ranks_the_legend_and_the_status_line_count_the_same_launches(two_ranks, grouped, size):
    by_hand = int(zero_ai_by_hand(two_ranks.invocations).sum())
    assert by_hand == 70  # 35 per rank
    legend, status = legend_and_status(two_ranks, grouped, size)
    assert f"{by_hand} zero-AI launches not plotted" in legend
    assert f"0-AI: {by_hand} launches" in status and len(status) <= size[0]


def test_a_mixed_kernel_shows_its_zero_ai_launches_of_all_and_zero_ai_only_keeps_it():
    run = prepared_run([SAMPLE])
    model = ExplorerModel(run)
    launches = run.invocations.assign(zero=zero_ai_by_hand(run.invocations))
    per_name = launches.groupby("name")["zero"].agg(["sum", "count"])
    mixed = per_name[(per_name["sum"] > 0) & (per_name["sum"] < per_name["count"])]
    assert len(mixed) == 2
    model.set_filter(KernelFilter(zero_ai="only"))
    page = model.table_page(0, len(model.positions), name_width=40)
    zero_column = [c.key for c in model.columns].index("zero_ai")
    cells = dict(zip(model.rows["name"], (row[zero_column] for row in page)))
    for name, row in mixed.iterrows():
        assert cells[name] == f"{row['sum']}/{row['count']}"
    # every row the filter keeps says how many of its launches are zero-AI, and they add up
    whole = per_name[per_name["sum"] == per_name["count"]]
    assert set(cells) == set(mixed.index) | set(whole.index)
    assert all(cells[name] == str(row["sum"]) for name, row in whole.iterrows())
    assert f"0-AI: {int(per_name['sum'].sum())} launches" in model.status_line(120)


@pytest.mark.parametrize("grouped", [True, False])
def test_filtered_to_one_rank_time_is_a_share_of_that_ranks_time(two_ranks, grouped):
    model = ExplorerModel(two_ranks)
    if not grouped:
        model.toggle_grouped()
    assert "%rank" in [column.label for column in model.columns]
    model.set_filter(KernelFilter(rank="1"))
    rank_time = two_ranks.invocations.loc[two_ranks.invocations["rank"] == "1", "time_s"].sum()
    rows = model.rows
    assert set(rows["rank"]) == {"1"}
    assert rows["time_share"].to_numpy() == pytest.approx(rows["time_s"].to_numpy() / rank_time)
    assert rows["time_share"].sum() == pytest.approx(1.0)
    assert "(100.0%)" in model.status_line(200) and "rank 1 only" in model.status_line(80)


def test_with_two_ranks_at_80_columns_the_status_line_keeps_what_the_legend_hands_over(two_ranks):
    model = ExplorerModel(two_ranks)
    model.update_roofline()
    picture = model.roofline_picture(80, 12)
    assert picture.overflow
    status = model.status_line(78)
    assert "0-AI: 70 launches" in status and "legend full" in status and len(status) <= 78
