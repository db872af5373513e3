"""The Timeline screen: snapshots of the real naive trace at 80x24 and 120x40, and the
wiring of keys to ``TimelineModel`` (Pilot); what the model shows and how it shares the
terminal's rows is checked without an app in test_timeline_model.py."""

from __future__ import annotations

import pytest

from rooftui.views.tui.screens.help import HelpScreen
from rooftui.views.tui.screens.timeline import GanttView, TimelineScreen, make_timeline_app
from tests.snapshot_steps import as_it_opens, in_turn, pressing, resizing, settled
from tests.tui.conftest import screen_text

ITEM_COPY = ["down", "down", "down", "down"]  # the fifth finding: the blocking .item() copy

# The naive step in Unicode is one app brought through every state a picture or the keys
# check needs (snap_compare_steps in tests/conftest.py): the screen shares its rows out
# again on a resize, so a resize draws what a fresh start draws, and each picture is
# compared with what a fresh start in that state drew (the stored files).
# The zoom once, where it has least room: at 120x40 it is the same code given more rows
# (how the rows are shared at each size: test_timeline_model.py; the zoom's window:
# the keys check below).
STATES = ("naive-80x24", "zoomed-on-the-item-copy-80x24", "naive-120x40")


@pytest.mark.snapshots(*STATES)
def test_the_naive_step_at_each_size_and_what_its_keys_do(snap_compare_steps, naive_analysis):
    # z on the finding, no enter first: the host waits in the item() sync while the GPU drains
    snap_compare_steps(
        make_timeline_app(naive_analysis),
        (80, 24),
        [
            ("naive-80x24", as_it_opens),
            ("zoomed-on-the-item-copy-80x24", pressing(*ITEM_COPY, "z")),
            (None, in_turn(pressing("escape", *["up"] * len(ITEM_COPY)), as_a_fresh_start_has_it)),
            ("naive-120x40", resizing(120, 40)),
            (
                None,
                in_turn(
                    keys_reach_the_model_and_the_screen_uses_its_rows,
                    escape_never_quits_the_standalone_app_and_q_does,
                ),
            ),
        ],
    )


@pytest.mark.snapshots("80x24", "120x40")
def test_snapshot_naive_step_in_ascii(snap_compare_sizes, naive_analysis):
    # one app through both sizes
    app = lambda: make_timeline_app(naive_analysis, ascii_mode=True)  # noqa: E731
    snap_compare_sizes(app, [[(80, 24), (120, 40)]], as_it_opens, as_it_opens)


def test_snapshot_fixed_step(snap_compare, fixed_analysis):
    assert snap_compare(make_timeline_app(fixed_analysis), terminal_size=(120, 40))


async def as_a_fresh_start_has_it(pilot) -> None:
    """Back to the first step with nothing marked (``[`` leaves the marker z set behind),
    and Enter going to the item copy's costliest place first: z jumped there once (z and
    Enter go on to a finding's next place each time; no key goes back)."""
    model = pilot.app.screen.model
    await pilot.press(*["left_square_bracket"] * len(model.analysis.steps))
    await settled(pilot)
    assert (model.step_index, model.marker, model.next_place) == (0, None, {len(ITEM_COPY): 1})
    model.next_place.clear()


async def keys_reach_the_model_and_the_screen_uses_its_rows(pilot) -> None:
    """At 120x40, the first step and the first finding selected, nothing marked or zoomed."""
    app = pilot.app
    naive_analysis = app.screen.analysis
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


async def escape_never_quits_the_standalone_app_and_q_does(pilot) -> None:
    """From the help screen (where the keys check leaves it): escape closes it, escape on
    the timeline, the standalone app's first screen, leaves it open; q asks the app to
    exit (recorded instead: the app still has its pictures to hand back)."""
    app = pilot.app
    await pilot.press("escape")
    assert isinstance(app.screen, TimelineScreen)
    await pilot.press("escape")
    await pilot.pause()
    assert app.is_running and isinstance(app.screen, TimelineScreen)
    exits = []
    app.exit = lambda *result, **options: exits.append(result)
    try:
        await pilot.press("q")
        await pilot.pause()
    finally:
        del app.exit
    assert exits == [()]
