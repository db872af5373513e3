"""The roofline alone (zoomed with `z`) at 80x24 and 120x40, for the bundled sample,
the known-answer report and the DeepCAM raw CSV (100x30 and 200x60 are checked cell by
cell in test_roofline_layout.py, with no app).

``test_roofline_layout.py`` checks the same pictures cell by cell (no label over a
point, a line or another label); these catch any other visual change. Update after
an intended change with ``pytest tests/tui/test_roofline_snapshots.py --snapshot-update``
and look at the SVGs first.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from tests.tui.conftest import SAMPLE, loaded

REPO = Path(__file__).resolve().parents[2]
INPUTS = {
    "sample": SAMPLE,
    "known_answer": REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv",
    "deepcam": REPO / "sample_data" / "deepcam" / "deepcam_amp.raw-base.csv.xz",
}
# One app per input, resized from one size to the next (snap_compare_sizes in
# tests/conftest.py): zoomed, the roofline fills the screen and the filter bar (which a
# start at 24 rows hides and a resize keeps as it was) is not shown at any size.
SIZES = [[(120, 40), (80, 24)]]


async def zoomed(pilot):
    await loaded(pilot)
    pilot.app.explorer.flush_redraw()
    await pilot.pause()
    await pilot.press("z")
    await pilot.pause()


async def redrawn(pilot):
    """What a resize changed, drawn (the roofline redraws on a debounce timer)."""
    for _ in range(3):
        await pilot.pause()
        pilot.app.explorer.flush_redraw()
    await pilot.pause()


@pytest.mark.snapshots(*(f"{name}-{w}x{h}" for name in INPUTS for session in SIZES for w, h in session))
def test_zoomed_roofline(snap_compare_sizes):
    from rooftui.views.tui.app import make_app

    for name, path in INPUTS.items():
        snap_compare_sizes(
            partial(make_app, [path]), SIZES, run_before=zoomed, after_resize=redrawn, prefix=f"{name}-"
        )
