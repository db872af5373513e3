"""Several ranks in one explorer: the rank column, the rank filter, the status line.

Checked on the committed two-H200 DDP step (sample_data/multigpu, one report per
rank); each rank's launch count comes from `rooftui summary --format json`, the
per-rank table of another view.
"""

from __future__ import annotations

import functools

import numpy as np

from rooftui.views.tui.table_columns import RANK_COLUMN
from rooftui.views.tui.widgets.kernel_table import KernelTable
from rooftui.views.tui.widgets.roofline import RooflineCanvas
from tests.tui.conftest import REPO, explorer_of, loaded, prepared_run, run_in_turn, screen_text

RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]


@functools.cache  # one summary document of the two reports for the checks that compare with it
def launches_per_rank_from_summary() -> dict[str, int]:
    """Each rank's launches as `rooftui summary --format json` counts them: its JSON
    document (``views.summary.to_json``, what the command prints) of the run the explorer
    was given, read once (``prepared_run``: the command's own read, `LoadOptions()`'s
    defaults; test_prepared_run.py), rather than the two reports read again."""
    from rooftui.views.summary import to_json

    run = prepared_run(RANKS).source
    return {str(row["rank"]): row["kernels"] for row in to_json(run, run.kernels)["ranks"]}


def status_line(app) -> str:
    return screen_text(app).splitlines()[app.explorer.query_one("#status").region.y]


async def two_ranks_show_a_rank_column_with_each_ranks_launches(app, pilot) -> None:
    expected = launches_per_rank_from_summary()
    assert expected == {"0": 215, "1": 215}  # the README's per-rank table
    await pilot.press("g")  # single invocations: one row per launch
    table = app.explorer.query_one(KernelTable)
    assert table.columns[1] is RANK_COLUMN
    assert " rank " in screen_text(app).splitlines()[table.region.y]
    shown = [table.columns[1].cell(row) for _, row in app.explorer.rows.iterrows()]
    assert {rank: shown.count(rank) for rank in set(shown)} == expected
    assert table._rows(0, 1)[0][1] in ("0", "1")  # the cell as drawn
    await pilot.press("g")  # grouped again, as found


async def rank_filter_keeps_only_that_ranks_rows_and_says_so(app, pilot) -> None:
    await pilot.press("g")
    assert "rank" not in status_line(app)
    choice = app.explorer.query_one("#filter-rank")
    assert choice.display
    choice.value = "1"
    await pilot.pause()
    rows = app.explorer.rows
    assert len(rows) == launches_per_rank_from_summary()["1"]
    assert set(rows["rank"]) == {"1"}
    assert set(rows["device"]) == {"NVIDIA H200 [device 1]"}
    assert "rank 1 only" in status_line(app) and "filtered" in status_line(app)
    # the roofline follows the selection to rank 1's GPU and its ceilings
    app.explorer.flush_redraw()
    await pilot.pause()
    assert app.explorer.query_one(RooflineCanvas).device == "NVIDIA H200 [device 1]"
    await pilot.press("x")  # clear filters: both ranks again
    await pilot.pause()
    assert set(app.explorer.rows["rank"]) == {"0", "1"}
    assert "rank" not in status_line(app)
    await pilot.press("g")  # grouped again, as found


async def grouped_rows_keep_the_ranks_apart(app, pilot) -> None:
    rows = app.explorer.rows  # grouped by name: a kernel of both ranks is two rows
    assert set(rows["rank"]) == {"0", "1"}
    for rank in ("0", "1"):
        assert rows.loc[rows["rank"] == rank, "count"].sum() == 215
    assert not rows.duplicated(["rank", "name"]).any()


async def v_shows_the_next_gpus_roofline_and_back(app, pilot) -> None:
    canvas = app.explorer.query_one(RooflineCanvas)
    first = canvas.device
    # the tags of the other GPU's kernels are named, in the legend or the status line
    # (which ones: test_tags.py, on the model)
    assert "tags 2, 4, 5 on another GPU" in " ".join(screen_text(app).split())
    await pilot.press("v")
    await pilot.pause()
    assert canvas.device != first and f"of 2: {canvas.device} (v: next GPU)" in screen_text(app)
    await pilot.press("v")
    await pilot.pause()
    assert canvas.device == first


async def test_two_rank_reports_in_the_explorer():
    # one app (run_in_turn: each check must leave the explorer as it found it)
    app = explorer_of(RANKS)
    async with app.run_test(size=(200, 60)) as pilot:
        await loaded(pilot)
        await run_in_turn(
            app,
            pilot,
            [
                grouped_rows_keep_the_ranks_apart,
                two_ranks_show_a_rank_column_with_each_ranks_launches,
                rank_filter_keeps_only_that_ranks_rows_and_says_so,
                v_shows_the_next_gpus_roofline_and_back,
            ],
        )


def test_nccl_rows_are_marked_communication_not_zero_ai():
    import pandas as pd

    from rooftui.views.tui.view_state import zero_ai_cells

    launches = pd.DataFrame({"zero_ai": [True, True, False], "communication": [np.True_, False, False]})
    assert zero_ai_cells(launches) == ["comm", "yes", ""]
