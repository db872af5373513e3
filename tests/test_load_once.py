"""tests/conftest.py's ``load_once``: one load per worker, and a copy of its own per caller."""

from rooftui.analysis import load_run
from tests.conftest import KNOWN

REPORT = KNOWN / "known_answer.raw-base.csv"


def test_what_one_test_changes_in_its_run_the_next_caller_never_sees(load_once):
    first = load_once(REPORT)
    first.kernels.loc[:, "time_s"] = 0.0
    first.notes.append("changed by a test")
    second = load_once(REPORT)
    assert (second.kernels["time_s"] > 0).all()
    assert "changed by a test" not in second.notes


def test_a_run_from_load_once_is_the_run_load_run_gives(load_once):
    import pandas as pd

    fresh = load_run([REPORT])
    shared = load_once(REPORT)
    pd.testing.assert_frame_equal(shared.kernels, fresh.kernels, check_exact=True)
    assert (shared.notes, shared.missing_metrics) == (fresh.notes, fresh.missing_metrics)


def test_a_ncu_rep_through_the_run_wide_cache_is_the_run_a_cold_read_gives(load_once, tmp_path):
    """load_once reads a ``.ncu-rep`` through the report cache every worker shares: the run
    it gives is the one a read with this test's own empty cache gives, and the entry is
    in the shared folder, not in the test's."""
    import os

    import pandas as pd

    report = KNOWN / "known_answer.ncu-rep"
    own_cache = os.environ["XDG_CACHE_HOME"]
    shared = load_once(report)
    assert not any(os.scandir(own_cache)), "load_once wrote into the test's own cache"
    cold = load_run([report])
    assert any(os.scandir(own_cache)), "the cold read did not go through the test's own cache"
    pd.testing.assert_frame_equal(shared.kernels, cold.kernels, check_exact=True)
    assert (shared.notes, shared.missing_metrics) == (cold.notes, cold.missing_metrics)
