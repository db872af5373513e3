"""The Timeline screen: snapshots of the real naive trace, and Pilot checks of what keys do."""

from __future__ import annotations

from rooftui.views.tui.screens.timeline import GanttView, TimelineScreen, make_timeline_app

SIZE = (100, 34)


def screen_text(app) -> str:
    return "\n".join(
        "".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()
    )


def test_snapshot_naive_step(snap_compare, naive_analysis):
    assert snap_compare(make_timeline_app(naive_analysis), terminal_size=SIZE)


def test_snapshot_jump_to_the_item_copy(snap_compare, naive_analysis):
    # the fifth finding is the blocking .item() copy; enter jumps to its costliest place
    assert snap_compare(
        make_timeline_app(naive_analysis), terminal_size=SIZE, press=["down", "down", "down", "down", "enter"]
    )


def test_snapshot_fixed_step(snap_compare, fixed_analysis):
    assert snap_compare(make_timeline_app(fixed_analysis), terminal_size=SIZE)


async def test_brackets_change_the_step(naive_analysis):
    app = make_timeline_app(naive_analysis)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert "step 2 (1 of 4)" in screen_text(app)
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.step_index == 2
        assert "step 4 (3 of 4)" in screen_text(app)
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket")
        assert screen.step_index == 0  # clamped at the first step


async def test_enter_jumps_to_the_findings_places_in_turn(naive_analysis):
    item = next(i for i, f in enumerate(naive_analysis.findings) if f.kind == "blocking_copy")
    places = naive_analysis.findings[item].places
    app = make_timeline_app(naive_analysis)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*["down"] * item, "enter")
        screen, gantt = app.screen, app.screen.query_one(GanttView)
        assert gantt.marker == places[0]
        assert naive_analysis.steps[screen.step_index].number == places[0].step
        assert "aten::item > aten::_local_scalar_dense" in screen_text(app)
        assert "▲" in screen_text(app)
        await pilot.press("enter")
        assert gantt.marker == places[1]
        assert naive_analysis.steps[screen.step_index].number == places[1].step


async def test_escape_never_quits_the_standalone_app_and_q_does(fixed_analysis):
    app = make_timeline_app(fixed_analysis)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, TimelineScreen)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


def test_snapshot_zoom_on_the_item_copy(snap_compare, naive_analysis):
    # zoomed in: the host waits in the item() sync while the GPU drains its queue
    assert snap_compare(
        make_timeline_app(naive_analysis),
        terminal_size=SIZE,
        press=["down", "down", "down", "down", "enter", "z"],
    )


async def test_z_zooms_in_on_the_marked_place_and_out_again(naive_analysis):
    app = make_timeline_app(naive_analysis)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        gantt = app.screen.query_one(GanttView)
        await pilot.press("z")  # nothing marked yet: stays on the whole step
        assert gantt.window is None
        await pilot.press("down", "down", "down", "down", "enter", "z")  # the item() copy
        step = naive_analysis.steps[app.screen.step_index]
        start, end = gantt.window
        assert step.start <= start <= gantt.marker.start < gantt.marker.end <= end <= step.end
        assert end - start < step.duration
        assert "zoomed to" in screen_text(app)
        await pilot.press("z")
        assert gantt.window is None
        await pilot.press("enter", "z", "right_square_bracket")  # a new step: whole step
        assert gantt.window is None and gantt.marker is None
