"""Regression tests for what the 10,000-case fuzz run (round 3, seeds 300-) found.

Each through the real CLI entry point: one line naming the file and the fix, exit 2,
no traceback, no raw control characters, inputs unchanged, nothing left behind.
"""

from __future__ import annotations

import pytest

from tests.fuzz.helpers import (
    BASE,
    DETAILS,
    assert_one_line_error,
    base_rows,
    rooftui,
    write_rows,
)


@pytest.mark.parametrize("source", [BASE, DETAILS], ids=["raw", "details"])
def test_an_export_without_the_id_column_names_the_column(tmp_path, source):
    # found as exit 1 (KeyError 'ID'): seed 300, details-no-ID
    rows = base_rows(source)
    j = rows[0].index("ID")
    path = write_rows(tmp_path / "no-id.csv", [r[:j] + r[j + 1:] for r in rows])
    assert_one_line_error(rooftui(tmp_path, "summary", path), "no-id.csv", "without the ID column")
