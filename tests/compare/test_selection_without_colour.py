"""The compare chart's selected pair must be told apart by shape, not only by gold:
under NO_COLOR (or on a monochrome terminal) gold is one more grey."""

from __future__ import annotations

import pytest

from rooftui.views.tui.compare_overlay import A_MARKER, B_MARKER
from rooftui.views.tui.screens.compare import CompareApp
from rooftui.views.tui.widgets.compare_chart import CompareCanvas


def _legend(app) -> str:
    return str(app.screen.query_one("#compare-legend").render())


@pytest.mark.parametrize("ascii_mode, glyph", [(False, "◆"), (True, "@")])
async def test_the_selected_arrow_ends_in_its_own_glyph_and_the_legend_names_it(
    comparison, ascii_mode, glyph
):
    style = "ascii" if ascii_mode else "unicode"
    assert glyph not in (A_MARKER[style], B_MARKER[style])
    app = CompareApp(comparison, ascii_mode=ascii_mode)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        canvas = app.screen.query_one(CompareCanvas)
        drawn = canvas.render().plain
        assert len(app.screen.model.selected_pairs) == 1
        # One selected arrow drawn: its B end is the one glyph of that shape on the chart.
        assert drawn.count(glyph) == 1
        assert f"{glyph} 1 selected" in _legend(app)
        # Selecting another pair moves the glyph with it: still exactly one.
        await pilot.press("down")
        await pilot.pause()
        assert canvas.render().plain.count(glyph) == 1
