"""The roofline's legend takes its rows from the pane's size and what is plotted, never
from the last draw: the same screen reached two ways lays out the same way."""

from __future__ import annotations

from rooftui.views.tui.widgets.roofline import RooflineCanvas, RooflinePane
from tests.tui.conftest import loaded


async def _settled(pilot) -> None:
    for _ in range(3):
        await pilot.pause(0.1)
        pilot.app.explorer.flush_redraw()
    await pilot.pause()


async def _picture(app) -> tuple:
    pane = app.explorer.query_one(RooflinePane)
    canvas = app.explorer.query_one(RooflineCanvas)
    legend = pane.query_one("#roofline-legend")
    return (legend.size.height, tuple(canvas.size), tuple(canvas.layout_.text_rows()), str(legend.render()))


async def test_the_second_kernels_details_at_200x60_look_the_same_however_reached(sample_app):
    # one app, each way from the top row with the details closed: the earlier ways are
    # part of the later ones' history, which must not matter either
    pictures = []
    app = sample_app()
    async with app.run_test(size=(200, 60)) as pilot:
        await loaded(pilot)
        for keys in (("down", "enter"), ("enter", "down"), ("down", "down", "enter", "up")):
            await pilot.press(*keys)
            await _settled(pilot)
            assert app.explorer.selected.name == app.explorer.rows.index[1]
            pictures.append(await _picture(app))
            await pilot.press("d", "home")
            await _settled(pilot)
    assert pictures[0] == pictures[1] == pictures[2]


async def test_a_resize_and_back_restores_the_layout(sample_app):
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await _settled(pilot)
        before = await _picture(app)
        await pilot.resize_terminal(80, 24)
        await _settled(pilot)
        small = await _picture(app)
        await pilot.resize_terminal(120, 40)
        await _settled(pilot)
        assert await _picture(app) == before != small
        # the legend holds in its rows what it says; the rest is on the status line
        assert 1 <= small[0] <= RooflinePane.LEGEND_ROWS
