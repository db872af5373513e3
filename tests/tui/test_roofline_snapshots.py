"""The roofline alone (zoomed with `z`) at 120x40 and 80x24, for the known-answer report
(the bundled sample's: test_snapshots.py; the DeepCAM raw CSV is the bundled sample's
file, so its pictures were the sample's, byte for byte). 100x30 and 200x60 are checked
cell by cell in test_roofline_layout.py, with no app.

``test_roofline_layout.py`` checks the same pictures cell by cell (no label over a
point, a line or another label); these catch any other visual change. Update after
an intended change with ``pytest tests/tui/test_roofline_snapshots.py --snapshot-update``
and look at the SVGs first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.test_snapshots import pressing, resizing, settle

REPO = Path(__file__).resolve().parents[2]
KNOWN_ANSWER = REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv"


@pytest.mark.snapshots("known_answer-120x40", "known_answer-80x24")
def test_zoomed_roofline(snap_compare_steps):
    from tests.tui.conftest import explorer_of

    # zoomed, the roofline fills the screen: the filter bar (which a start at 24 rows
    # hides and a resize keeps as it was) is not shown at any size
    snap_compare_steps(
        explorer_of([KNOWN_ANSWER]),
        (80, 24),
        [(None, settle), ("known_answer-80x24", pressing("z")), ("known_answer-120x40", resizing(120, 40))],
    )
