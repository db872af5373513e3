"""The compare chart's selected pair must be told apart by shape, not only by gold:
under NO_COLOR (or on a monochrome terminal) gold is one more grey. Checked on the
chart as ``CompareModel`` lays it out, cell by cell, with no app started."""

from __future__ import annotations

import pytest

from rooftui.views.tui.compare_model import CompareModel
from rooftui.views.tui.compare_overlay import A_MARKER, B_MARKER

PANE = (160, 20)  # the chart pane at 160x48, where the lists sit beside it


@pytest.mark.parametrize("ascii_mode, glyph", [(False, "◆"), (True, "@")])
def test_the_selected_arrow_ends_in_its_own_glyph_and_the_legend_names_it(comparison, ascii_mode, glyph):
    style = "ascii" if ascii_mode else "unicode"
    assert glyph not in (A_MARKER[style], B_MARKER[style])
    model = CompareModel(comparison, ascii_mode=ascii_mode)
    drawn = "\n".join(model.chart(*PANE).layout.text_rows())
    assert len(model.selected_pairs) == 1
    # One selected arrow drawn: its B end is the one glyph of that shape on the chart.
    assert drawn.count(glyph) == 1
    assert f"{glyph} 1 selected" in model.legend(PANE[0]).plain
    # Selecting another pair moves the glyph with it: still exactly one.
    model.select(1)
    assert "\n".join(model.chart(*PANE).layout.text_rows()).count(glyph) == 1
