"""``prepared_run`` (tests/tui/conftest.py) hands the model tests and the Pilot apps the run
the explorer's load worker prepares, read once per worker: it must be that run, and what
one test changes in its copy must reach no other."""

from __future__ import annotations

import pandas as pd

from tests.tui.conftest import REPO, prepared_run

KNOWN = REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv"


def test_a_prepared_run_is_the_load_workers_and_a_change_to_one_reaches_no_other():
    from rooftui.analysis import load_run
    from rooftui.views.tui.view_state import LoadedRun

    fresh = LoadedRun.from_run(load_run([KNOWN]))  # what the app's load worker makes
    mine = prepared_run([KNOWN])
    pd.testing.assert_frame_equal(mine.grouped, fresh.grouped)
    pd.testing.assert_frame_equal(mine.invocations, fresh.invocations)
    assert mine.ceilings == fresh.ceilings and mine.notes == fresh.notes
    mine.grouped.loc[0, "time_s"] = -1.0
    mine.invocations["time_s"] *= 2
    mine.notes.append("changed by a test")
    theirs = prepared_run([KNOWN])
    pd.testing.assert_frame_equal(theirs.grouped, fresh.grouped)
    pd.testing.assert_frame_equal(theirs.invocations, fresh.invocations)
    assert theirs.notes == fresh.notes
