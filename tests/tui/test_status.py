"""The status line and the selection after a sort, at the smallest size (80x24)."""

from __future__ import annotations

from rooftui.views.tui.widgets.kernel_table import KernelTable
from tests.tui.conftest import loaded, screen_text


async def test_at_80_columns_the_status_keeps_sort_and_filter_state(sample_app):
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("right", "right", "right", "right", "right_square_bracket")
        await pilot.press("f", *"sm80", "escape")
        status = screen_text(app).splitlines()[app.explorer.query_one("#status").region.y]
        assert "by GFLOP/s▼" in status and "filtered" in status
        shown = len(app.explorer.rows)
        assert shown < 73 and status.lstrip().startswith(f"{shown} kernels, {shown} launches")


async def test_at_200_columns_the_status_has_room_for_everything(sample_app):
    app = sample_app()
    async with app.run_test(size=(200, 60)) as pilot:
        await loaded(pilot)
        # Table III: 34 of the 179 launches are zero-AI, 6.1% of the time
        everything = "73 kernels, 179 launches · 1.38 ms (100.0%) · 0-AI: 34 (6.1% time) · by time▼"
        assert everything in screen_text(app)


async def test_sorting_moves_the_selection_to_the_top_row(sample_app):
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("down", "down", "down")
        await pilot.press("right", "right", "right", "right", "right_square_bracket")
        table = app.explorer.query_one(KernelTable)
        assert table.cursor_row == 0
        assert app.explorer.selected["flop_rate"] == app.explorer.rows["flop_rate"].max()


async def test_at_80x24_the_status_line_says_what_the_full_legend_could_not(sample_app):
    from rooftui.views.tui.widgets.roofline import RooflinePane

    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        pane = app.explorer.query_one(RooflinePane)
        legend = pane.query_one("#roofline-legend").render().plain
        status = screen_text(app).splitlines()[app.explorer.query_one("#status").region.y]
        # the sample's FP32 and FP64 roofs have their full labels neither on the plot
        # nor in the three legend rows: the status line names them
        hidden = [said.text for said in pane.overflow]
        assert hidden and all(text not in legend for text in hidden)
        assert "FP32 65.7 TFLOP/s (empirical)" in hidden
        assert "legend full: FP32/FP64 roofs, sources" in status
        assert "by time▼" in status

        # zero-AI only: nothing can be plotted, and the status or the legend says why
        await pilot.press("g")
        app.explorer.query_one("#filter-zero-ai").value = "only"
        await pilot.pause(0.3)
        app.explorer.flush_redraw()
        await pilot.pause()
        legend = pane.query_one("#roofline-legend").render().plain
        status = screen_text(app).splitlines()[app.explorer.query_one("#status").region.y]
        shown = len(app.explorer.rows)
        said = f"{shown} zero-AI not plotted"
        assert said in legend or said in status, (legend, status)
        assert "filtered" in status


def test_the_status_line_counts_what_does_not_fit_and_never_cuts_an_item():
    from rooftui.views.tui.format import fit_items

    items = ["6 zero-AI not plotted", "FP32/FP64 roofs", "sources"]
    everything = "legend full: 6 zero-AI not plotted, FP32/FP64 roofs, sources"
    assert fit_items("legend full: ", items, 200) == everything
    assert fit_items("legend full: ", items, 40) == "legend full: 6 zero-AI not plotted +2"
    assert fit_items("legend full: ", items, 20) == "legend full +3"
    assert fit_items("legend full: ", [], 20) == ""
