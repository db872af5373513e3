"""The roofline alone (zoomed with `z`) at the issue's four sizes, for the bundled
sample, the known-answer report and the DeepCAM raw CSV.

``test_roofline_layout.py`` checks the same pictures cell by cell (no label over a
point, a line or another label); these catch any other visual change. Update after
an intended change with ``pytest tests/tui/test_roofline_snapshots.py --snapshot-update``
and look at the SVGs first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import SAMPLE, loaded

REPO = Path(__file__).resolve().parents[2]
INPUTS = {
    "sample": SAMPLE,
    "known_answer": REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv",
    "deepcam": REPO / "sample_data" / "deepcam" / "deepcam_amp.raw-base.csv.xz",
}
SIZES = [(80, 24), (100, 30), (120, 40), (200, 60)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(INPUTS))
def test_zoomed_roofline(snap_compare, name, size):
    from rooftui.views.tui.app import make_app

    async def zoomed(pilot):
        await loaded(pilot)
        pilot.app.explorer.flush_redraw()
        await pilot.pause()
        await pilot.press("z")
        await pilot.pause()

    assert snap_compare(make_app([INPUTS[name]]), terminal_size=size, run_before=zoomed)
