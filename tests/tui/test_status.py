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
