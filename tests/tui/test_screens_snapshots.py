"""Snapshots of what issue #24 brought to the explorer's standard, at 80x24 and 120x40:
the known-answer report's zero-AI and INT8 legend and tags, and a two-rank run (tags on
the other GPU, the per-rank summary). What each shows is asserted without pictures in
test_zero_ai_vocabulary.py, test_tags.py and test_summary_screen.py; the footer with a
trace in test_keys.py, the dialogs in ASCII in test_dialogs_ascii.py (their pictures:
test_snapshots.py).

The known-answer report's app is resized from 80x24 to 120x40 (snap_compare_steps in
tests/conftest.py), where `F` shows the filter bar as a start at 40 rows does, and then
draws what a fresh start at 120x40 drew (the stored picture). The same app then shows its
roofline alone (`z`) at 120x40 and, resized, at 80x24: the pictures that
test_roofline_snapshots.py took of ``known_answer.raw-base.csv`` in an app of its own,
byte for byte (the same 17 kernels and columns from another profiling run: the measured
values differ, the cells they land on do not). The roofline at 100x30 and 200x60 is checked cell by cell
in test_roofline_layout.py, with no app: no label over a point, a line or another label;
these pictures catch any other visual change."""

from __future__ import annotations

import pytest

from tests.snapshot_steps import pressing, resizing
from tests.tui.conftest import REPO
from tests.tui.test_snapshots import settle
from tests.tui.test_summary_screen import the_per_rank_table_has_a_row_per_rank

KNOWN = REPO / "sample_data" / "known_answer" / "known_answer.raw.csv"
RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]


def app_of(paths, **options):
    from tests.tui.conftest import explorer_of

    return explorer_of(paths, **options)


@pytest.mark.snapshots("120x40", "80x24", "zoomed-120x40", "zoomed-80x24")
def test_known_answer_report_zero_ai_and_int8_legend(snap_compare_steps):
    # zoomed, the roofline fills the screen: the filter bar (which a start at 24 rows hides
    # and a resize keeps as it was) is not shown at any size
    snap_compare_steps(
        app_of([KNOWN]),
        (80, 24),
        [
            ("80x24", settle),
            ("120x40", resizing(120, 40, "F")),
            ("zoomed-120x40", pressing("z")),  # the roofline alone
            ("zoomed-80x24", resizing(80, 24)),
        ],
    )


@pytest.mark.snapshots("tags-and-status-80x24", "summary-80x24")
def test_two_ranks_tags_status_and_summary_screen(snap_compare_steps):
    # at 80x24, where they have least room; at 120x40 the same code lays them out (the
    # tags of the other GPU, the legend and the status line at 120 columns:
    # test_tags.py and test_zero_ai_vocabulary.py; Table III's per-rank rows at 120x40:
    # test_summary_screen.py)
    snap_compare_steps(
        app_of(RANKS),
        (80, 24),
        [
            ("tags-and-status-80x24", settle),
            ("summary-80x24", pressing("s")),  # the per-rank table
            (None, the_per_rank_table_has_a_row_per_rank),  # its rows (scrolled: after the picture)
        ],
    )
