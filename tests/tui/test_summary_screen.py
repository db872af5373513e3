"""The explorer's summary screen (``s``) on a two-rank run: the per-rank table `rooftui
summary` prints, in both widths, in Unicode and ASCII. In Unicode the check runs in the
two-rank snapshot test's apps (test_screens_snapshots.py), right after the picture of
this screen at each size."""

from __future__ import annotations

from tests.tui.conftest import REPO, explorer_of, loaded, screen_text

RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]


async def the_per_rank_table_has_a_row_per_rank(pilot) -> list[str]:
    """On the summary screen of the two-rank run, opened at the terminal's size: a row
    per rank with its GPU and its launches, every line within the width (in ASCII mode,
    every character ASCII). Scrolls the table into view. Returns the ranks of its rows."""
    app = pilot.app
    width = app.size.width
    launches = app.explorer.state.run.invocations.groupby("rank").size().to_dict()
    ranks = app.screen.query_one("#summary-ranks")
    ranks.scroll_visible(animate=False, top=True)
    await pilot.pause()
    text = screen_text(app).splitlines()[ranks.region.y : ranks.region.bottom]
    assert text[0].strip().startswith("Per rank")
    rows = [line.split() for line in text if line.split()[:1] in (["0"], ["1"])]
    # rank, its GPU (wrapped at 80 columns), its launches
    assert [(r[0], r[1]) for r in rows] == [("0", "NVIDIA"), ("1", "NVIDIA")]
    assert [str(launches[r[0]]) in r[2:7] for r in rows] == [True, True]
    assert " ".join(text).count("[device") == 2  # NVIDIA H200 [device 0], [device 1]
    assert all(len(line) <= width for line in screen_text(app).splitlines())
    if app.ascii_mode:
        assert all(ord(ch) < 128 for ch in screen_text(app))
    return [r[0] for r in rows]


async def test_the_summary_screen_of_two_ranks_in_ascii_has_a_row_per_rank():
    # one app, resized; the screen is opened at each size (it lays its tables out for
    # the width it opens at)
    app = explorer_of(RANKS, ascii_mode=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        for size in ((80, 24), (120, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.press("s")
            await pilot.pause()
            assert await the_per_rank_table_has_a_row_per_rank(pilot) == ["0", "1"], size
            await pilot.press("escape")


def test_the_summary_tables_are_made_once_per_run_as_the_analysis_makes_them():
    """The summary screen's tables come from the explorer model, made on the first open
    and kept: the same tables as ``rooftui.analysis.summary`` and ``rank_rows`` make."""
    import pandas as pd

    from rooftui.analysis.summary import phase_table, pipeline_table, zero_ai_table
    from rooftui.views.summary import rank_rows
    from rooftui.views.tui.explorer_model import ExplorerModel
    from tests.tui.conftest import prepared_run

    run = prepared_run(RANKS)
    model = ExplorerModel(run)
    tables = model.summary_tables()
    assert model.summary_tables() is tables
    kernels = run.invocations
    for made, expected in zip(
        tables[:3], (zero_ai_table(kernels), phase_table(kernels), pipeline_table(kernels)), strict=True
    ):
        pd.testing.assert_frame_equal(made, expected)
    assert tables.ranks == rank_rows(run.source) and len(tables.ranks) == 2
