"""What the main screens look like on the sample, at 80x24, 100x30, 120x40 and 200x60.

Update after an intended change with ``pytest tests/tui --snapshot-update`` and
look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

import pytest

from tests.tui.conftest import SAMPLE, loaded

SIZES = [pytest.param((w, h), id=f"{w}x{h}") for w, h in ((80, 24), (100, 30), (120, 40), (200, 60))]


def explorer(**options):
    from rooftui.views.tui.app import make_app

    return make_app([SAMPLE], **options)


async def settle(pilot) -> None:
    await loaded(pilot)
    pilot.app.explorer.flush_redraw()
    await pilot.pause()


def pressing(*keys: str):
    """``run_before`` that presses ``keys`` and waits until the explorer has drawn what
    they changed: a key that resizes the roofline (the detail pane) schedules a
    debounced redraw, which a loaded machine may not reach before the screenshot."""

    async def run(pilot) -> None:
        await settle(pilot)
        await pilot.press(*keys)
        for _ in range(3):  # debounced filter and redraw timers, then the layout they ask for
            await pilot.pause(0.15)
            pilot.app.explorer.flush_redraw()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", SIZES)
def test_explorer(snap_compare, size):
    assert snap_compare(explorer(), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_explorer_with_the_second_kernel_selected_and_its_details(snap_compare, size):
    assert snap_compare(explorer(), terminal_size=size, run_before=pressing(*["down", "enter"]))


@pytest.mark.parametrize("size", SIZES)
def test_explorer_filtered_to_zero_ai_invocations(snap_compare, size):
    async def zero_ai_only(pilot):
        await settle(pilot)
        await pilot.press("g")
        pilot.app.explorer.query_one("#filter-zero-ai").value = "only"
        await pilot.pause()

    assert snap_compare(explorer(), terminal_size=size, run_before=zero_ai_only)


@pytest.mark.parametrize("size", SIZES)
def test_summary(snap_compare, size):
    assert snap_compare(explorer(), terminal_size=size, run_before=pressing(*["s"]))


@pytest.mark.parametrize("size", SIZES)
def test_help(snap_compare, size):
    assert snap_compare(explorer(), terminal_size=size, run_before=pressing(*["question_mark"]))


@pytest.mark.parametrize("size", SIZES)
def test_ascii_mode(snap_compare, size):
    assert snap_compare(explorer(ascii_mode=True), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_table_scrolled_sideways(snap_compare, size):
    # every number whole or blank, the kernel column in place
    assert snap_compare(explorer(), terminal_size=size, run_before=pressing(*["right"] * 12))


@pytest.mark.parametrize("size", SIZES)
def test_find_and_filtered_sorted_status(snap_compare, size):
    # found with /, then filtered with f and sorted by GFLOP/s: the status says both
    keys = ["slash", *"fprop", "enter", "f", *"sm9", "escape", *["right"] * 4, "right_square_bracket"]
    assert snap_compare(explorer(), terminal_size=size, run_before=pressing(*keys))


def test_zoomed_roofline_with_single_invocations(snap_compare):
    assert snap_compare(explorer(), terminal_size=(160, 48), run_before=pressing(*["g", "z"]))
