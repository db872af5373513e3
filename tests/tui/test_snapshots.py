"""What the main screens look like on the sample, at the sizes that matter: 80x24 (the
smallest terminal) and 120x40 (where the detail pane sits beside the table).

Each test starts the explorer once and brings it through a sequence of states, one
screenshot per state (snap_compare_steps in tests/tui/conftest.py); a state is reached
from the one before, and each picture is compared with what a fresh start in that state
drew (the stored files), so a key that leaves anything behind fails the next picture.
What the screen shows at other sizes (the status line, header, legend and roofline at
100x30 and 200x60) is checked without an app in test_explorer_model.py,
test_legend_layout.py and test_roofline_layout.py.

Update after an intended change with ``pytest tests/tui --snapshot-update`` and
look at the SVGs in ``__snapshots__`` before committing them.
"""

from __future__ import annotations

import pytest

from tests.snapshot_steps import in_turn, pressing
from tests.tui.conftest import SAMPLE, loaded
from tests.tui.test_chart_base import in_colour_and_unicode_and_redrawn_when_resized
from tests.tui.test_contrast import the_legend_and_header_read_in_16_colours_and_without_colour
from tests.tui.test_table_numbers import scrolling_sideways_never_cuts_a_number

# One app per size where the explorer itself is shown: a start at 24 rows hides the
# filter bar (the plot needs the rows) and a resize keeps it as it was. Screens that
# cover the explorer (Table III, help, the roofline zoomed) are drawn at both sizes in
# one app, resized between them.
EXPLORER_AT_80x24 = (
    "explorer-80x24",
    "compute-roofs-dialog-80x24",
    "sideways-80x24",
    "zero-ai-80x24",
    "advise-80x24",
    "details-80x24",
)
EXPLORER_AT_120x40 = (
    "explorer-120x40",
    "summary-120x40",
    "help-120x40",
    "details-120x40",
    "find-filter-sort-120x40",
)


def explorer(**options):
    """The explorer on the sample, handed the run its load worker would prepare
    (``explorer_of``); test_the_explorer_at_80x24 reads the sample in the worker, as
    ``rooftui`` does, and compares what it shows with the same files."""
    from tests.tui.conftest import explorer_of

    return explorer_of([SAMPLE], **options)


async def settle(pilot) -> None:
    """The explorer as it opens: the run read (or handed over) and shown. (Steps press
    their keys and wait no more: tests/snapshot_steps.py says why.)"""
    await loaded(pilot)


async def zero_ai_only(pilot) -> None:
    """From the table scrolled sideways: back to the first column, then single
    invocations, zero-AI launches only (the filter bar's choice)."""
    await pilot.press(*["left"] * 12, "g")
    pilot.app.explorer.query_one("#filter-zero-ai").value = "only"


def every_kernel_grouped_then(*keys: str):
    """The step back from ``zero_ai_only`` (all launches, grouped, the top row selected),
    then ``keys``."""

    async def run(pilot) -> None:
        pilot.app.explorer.query_one("#filter-zero-ai").value = "all"
        await pilot.pause()  # the filter's change handled, before g
        await pilot.press("g", *keys)

    return run


# found with /, then filtered with f and sorted by GFLOP/s: the status says both
FIND_FILTER_SORT = ["slash", *"fprop", "enter", "f", *"sm9", "escape", *["right"] * 4, "right_square_bracket"]


@pytest.mark.snapshots(*EXPLORER_AT_80x24)
def test_the_explorer_at_80x24(snap_compare_steps):
    from rooftui.views.tui.app import make_app

    snap_compare_steps(
        make_app([SAMPLE]),  # read by the load worker
        (80, 24),
        [
            ("explorer-80x24", settle),
            ("compute-roofs-dialog-80x24", pressing("p", "space")),  # FP64 unticked
            # every number whole or blank, the kernel column in place
            ("sideways-80x24", pressing("escape", *["right"] * 12)),
            ("zero-ai-80x24", zero_ai_only),
            ("advise-80x24", every_kernel_grouped_then("a")),  # the step budget and the findings
            # last: once shown over the table, the details leave its scrollbar changed
            ("details-80x24", pressing("escape", "down", "enter")),  # the details cover the table
            # no number cut at any sideways scroll (test_table_numbers.py): after the
            # pictures, as the scrolls leave the table's scrollbars drawn otherwise
            (None, in_turn(pressing("escape"), scrolling_sideways_never_cuts_a_number)),
            (
                None,
                in_turn(
                    # the roofline in colour and Unicode, then resized (test_chart_base.py)
                    in_colour_and_unicode_and_redrawn_when_resized("roofline"),
                    the_legend_and_header_read_in_16_colours_and_without_colour,  # test_contrast.py
                ),
            ),
        ],
    )


@pytest.mark.snapshots(*EXPLORER_AT_120x40)
def test_the_explorer_at_120x40_and_the_screens_over_it(snap_compare_steps):
    # each screen once, at the size where it has room: what the 80x24 app shows sideways
    # and with zero-AI launches only is the same code at 120 columns (the model's status
    # line and legend at every size: test_explorer_model.py, test_legend_layout.py). The
    # compute roofs dialog is 60 columns wide at any size (app.tcss): its picture at 80x24
    # above; the roofline alone at 120x40: test_screens_snapshots.py (the known-answer
    # report), the sample's roofline cell by cell at 120x40: test_roofline_layout.py
    snap_compare_steps(
        explorer(),
        (120, 40),
        [
            ("explorer-120x40", settle),
            ("summary-120x40", pressing("s")),  # Table III
            ("help-120x40", pressing("escape", "question_mark")),
            ("details-120x40", pressing("escape", "down", "enter")),  # beside the table
            ("find-filter-sort-120x40", pressing("d", "up", *FIND_FILTER_SORT)),
        ],
    )


async def export_dialog(pilot) -> None:
    from textual.widgets import Input

    await pressing("e")(pilot)
    pilot.app.screen.query_one(Input).cursor_blink = False  # a blinking cursor is no picture
    await pilot.pause()


ASCII_STATES = ("explorer-80x24", "compute-roofs-dialog-80x24", "export-dialog-80x24")


@pytest.mark.snapshots(*ASCII_STATES)
def test_ascii_mode(snap_compare_steps):
    # every frame, marker and checkbox in ASCII (test_dialogs_ascii.py: no other character),
    # at 80x24, where the dialogs have least room (at 120x40: the compute roofs dialog in
    # Unicode above; the explorer in ASCII at 100x32: test_chart_base.py)
    snap_compare_steps(
        explorer(ascii_mode=True),
        (80, 24),
        [
            ("explorer-80x24", settle),
            ("compute-roofs-dialog-80x24", pressing("p", "space")),
            (None, pressing("escape")),
            ("export-dialog-80x24", export_dialog),
        ],
    )
