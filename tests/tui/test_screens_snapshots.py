"""Snapshots of what issue #24 brought to the explorer's standard, at 80x24 and 120x40:
the known-answer report's zero-AI and INT8 legend and tags, a two-rank run (tags on the
other GPU, the per-rank summary), the footer with a trace, and the dialogs in ASCII.
What each shows is asserted without pictures in test_zero_ai_vocabulary.py, test_tags.py,
test_summary_screen.py, test_footers.py and test_dialogs_ascii.py."""

from __future__ import annotations

from functools import partial

import pytest

from tests.tui.conftest import REPO, SAMPLE, TRACE
from tests.tui.test_snapshots import SIZES, pressing, redrawn, settle

KNOWN = REPO / "sample_data" / "known_answer" / "known_answer.raw.csv"
RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]
each_size = pytest.mark.snapshots("80x24", "120x40")


def app_of(paths, **options):
    from rooftui.views.tui.app import make_app

    return make_app(paths, **options)


@each_size
def test_known_answer_report_zero_ai_and_int8_legend(snap_compare_sizes):
    snap_compare_sizes(partial(app_of, [KNOWN]), SIZES, settle, redrawn)


@each_size
def test_two_ranks_tags_and_status(snap_compare_sizes):
    snap_compare_sizes(partial(app_of, RANKS), SIZES, settle, redrawn)


@each_size
def test_two_ranks_summary_screen(snap_compare_sizes):
    snap_compare_sizes(partial(app_of, RANKS), SIZES, pressing("s"), redrawn)


@each_size
def test_footer_with_a_trace(snap_compare_sizes):
    snap_compare_sizes(partial(app_of, [SAMPLE], trace=TRACE), SIZES, settle, redrawn)


@each_size
def test_ascii_compute_roofs_dialog_one_unticked(snap_compare_sizes):
    snap_compare_sizes(partial(app_of, [SAMPLE], ascii_mode=True), SIZES, pressing("p", "space"), redrawn)


@each_size
def test_ascii_export_dialog(snap_compare_sizes):
    async def export_dialog(pilot) -> None:
        from textual.widgets import Input

        await pressing("e")(pilot)
        pilot.app.screen.query_one(Input).cursor_blink = False  # a blinking cursor is no picture
        await pilot.pause()

    snap_compare_sizes(partial(app_of, [SAMPLE], ascii_mode=True), SIZES, export_dialog, redrawn)


@each_size
def test_compute_roofs_dialog_one_unticked(snap_compare_sizes):
    snap_compare_sizes(partial(app_of, [SAMPLE]), SIZES, pressing("p", "space"), redrawn)
