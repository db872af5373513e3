"""The Timeline screen: snapshots of the real naive trace at 80x24 and 120x40, and the
wiring of keys to ``TimelineModel`` (Pilot); what the model shows and how it shares the
terminal's rows is checked without an app in test_timeline_model.py."""

from __future__ import annotations

import pytest

from rooftui.views.tui.screens.help import HelpScreen
from rooftui.views.tui.screens.timeline import GanttView, TimelineScreen, make_timeline_app
from tests.pilot_steps import pressing, settled
from tests.tui.conftest import screen_text

# One app through both sizes: the screen shares its rows out again on a resize, so a
# resize draws what a fresh start draws.
SIZES = [[(80, 24), (120, 40)]]
each_size = pytest.mark.snapshots("80x24", "120x40")
ITEM_COPY = ["down", "down", "down", "down"]  # the fifth finding: the blocking .item() copy


@each_size
@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
def test_snapshot_naive_step(snap_compare_sizes, naive_analysis, ascii_mode):
    app = lambda: make_timeline_app(naive_analysis, ascii_mode=ascii_mode)  # noqa: E731
    snap_compare_sizes(app, SIZES, settled, settled)


@each_size
def test_snapshot_z_zooms_in_on_the_selected_item_copy(snap_compare_sizes, naive_analysis):
    # z on the finding, no enter first: the host waits in the item() sync while the GPU drains
    # one app per size: the list scrolled to its fifth row at 24 rows stays scrolled on a resize
    sizes = [[(80, 24)], [(120, 40)]]
    snap_compare_sizes(lambda: make_timeline_app(naive_analysis), sizes, pressing(*ITEM_COPY, "z"), settled)


def test_snapshot_fixed_step(snap_compare, fixed_analysis):
    assert snap_compare(make_timeline_app(fixed_analysis), terminal_size=(120, 40))


async def test_keys_reach_the_model_and_the_screen_uses_its_rows(naive_analysis):
    app = make_timeline_app(naive_analysis)
    async with app.run_test(size=(120, 40)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        gantt = screen.query_one(GanttView)
        rows = screen.model.rows(120, 40)
        assert gantt.size.height == rows.gantt and gantt.lane_height == rows.lane_height > 1
        assert screen.query_one("#timeline-findings").size.height == rows.table
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.step_index == 2 and "step 4 (3 of 4)" in screen_text(app)
        await pilot.press(*ITEM_COPY, "enter")
        place = naive_analysis.findings[4].places[0]
        assert gantt.marker == place and "aten::item > aten::_local_scalar_dense" in screen_text(app)
        await pilot.press("z")
        assert gantt.window is not None and "zoomed to" in screen_text(app)
        await pilot.press("escape")  # out of the zoom, not off the screen
        assert gantt.window is None and app.screen is screen
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = screen_text(app)
        for key, does in [("enter", "costliest place"), ("up", "previous finding"), ("down", "next finding")]:
            assert any(key in line and does in line for line in help_text.splitlines()), key
        assert "zoom the Gantt in on the selected finding" in help_text


async def test_escape_never_quits_the_standalone_app_and_q_does(fixed_analysis):
    app = make_timeline_app(fixed_analysis)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, TimelineScreen)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running
