"""What the main screens look like on the sample, at the sizes that matter: 80x24 (the
smallest terminal) and 120x40 (where the detail pane sits beside the table).

Each test starts the explorer once per list of sizes, brings it into one state and
screenshots that state at each size in turn, resizing the terminal between them
(snap_compare_sizes in tests/conftest.py). What the screen shows at other sizes (the
status line, header, legend and roofline at 100x30 and 200x60) is checked without an
app in test_explorer_model.py and test_roofline_layout.py.

Update after an intended change with ``pytest tests/tui --snapshot-update`` and
look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

from functools import partial

import pytest

from tests.tui.conftest import SAMPLE, loaded

# One app per size: a start at 24 rows hides the filter bar (the plot needs the rows)
# and a resize keeps it as it was; and where the kernel table is shown whole, a resize
# to 120x40 draws the table's horizontal scrollbar thumb one cell off from a fresh start
# at that size (the table's virtual width is one column wider at a fresh start: its name
# column is sized before the vertical scrollbar takes a column).
SIZES = [[(80, 24)], [(120, 40)]]
# Table III and the help screen cover the explorer, filter bar and table included, and
# after `f` the filter bar shows at every size: one app goes through both sizes.
SCREEN_SIZES = [[(120, 40), (80, 24)]]
each_size = pytest.mark.snapshots("80x24", "120x40")


def explorer(**options):
    from rooftui.views.tui.app import make_app

    return make_app([SAMPLE], **options)


async def settle(pilot) -> None:
    await loaded(pilot)
    pilot.app.explorer.flush_redraw()
    await pilot.pause()


async def redrawn(pilot) -> None:
    """Wait until the explorer has drawn what a key or a resize changed: both schedule a
    debounced redraw, which a loaded machine may not reach before the screenshot."""
    for _ in range(3):  # debounced filter and redraw timers, then the layout they ask for
        await pilot.pause()
        pilot.app.explorer.flush_redraw()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


def pressing(*keys: str):
    """``run_before`` that presses ``keys`` and waits until the explorer has drawn what
    they changed."""

    async def run(pilot) -> None:
        await settle(pilot)
        await pilot.press(*keys)
        await redrawn(pilot)

    return run


@each_size
def test_explorer(snap_compare_sizes):
    snap_compare_sizes(explorer, SIZES, settle, redrawn)


@each_size
def test_explorer_with_the_second_kernel_selected_and_its_details(snap_compare_sizes):
    snap_compare_sizes(explorer, SIZES, pressing("down", "enter"), redrawn)


@each_size
def test_explorer_filtered_to_zero_ai_invocations(snap_compare_sizes):
    async def zero_ai_only(pilot):
        await settle(pilot)
        await pilot.press("g")
        pilot.app.explorer.query_one("#filter-zero-ai").value = "only"
        await pilot.pause()

    snap_compare_sizes(explorer, SIZES, zero_ai_only, redrawn)


@each_size
def test_summary(snap_compare_sizes):
    snap_compare_sizes(explorer, SCREEN_SIZES, pressing("s"), redrawn)


@each_size
def test_help(snap_compare_sizes):
    snap_compare_sizes(explorer, SCREEN_SIZES, pressing("question_mark"), redrawn)


@each_size
def test_ascii_mode(snap_compare_sizes):
    snap_compare_sizes(partial(explorer, ascii_mode=True), SIZES, settle, redrawn)


@each_size
def test_table_scrolled_sideways(snap_compare_sizes):
    # every number whole or blank, the kernel column in place
    snap_compare_sizes(explorer, SIZES, pressing(*["right"] * 12), redrawn)


@each_size
def test_find_and_filtered_sorted_status(snap_compare_sizes):
    # found with /, then filtered with f and sorted by GFLOP/s: the status says both
    keys = ["slash", *"fprop", "enter", "f", *"sm9", "escape", *["right"] * 4, "right_square_bracket"]
    snap_compare_sizes(explorer, SCREEN_SIZES, pressing(*keys), redrawn)


def test_zoomed_roofline_with_single_invocations(snap_compare):
    assert snap_compare(explorer(), terminal_size=(160, 48), run_before=pressing(*["g", "z"]))
