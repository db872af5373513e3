"""Helpers for driving the explorer with Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftui.sample import sample_paths
from rooftui.views.tui.app import RooftuiApp, make_app


def screen_text(app: RooftuiApp) -> str:
    """What the terminal shows, as plain text (one line per row)."""
    return "\n".join(
        "".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()
    )


async def loaded(pilot) -> None:
    """Wait until the load worker finished and its messages were handled."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


REPO = Path(__file__).resolve().parents[2]
# The bundled sample, what `rooftui` opens with no argument: the mixed-precision
# DeepCAM-like training step, 179 launches of 73 kernels, with forward, backward
# and optimizer phases, Tensor Core and zero-AI kernels.
SAMPLE = sample_paths()[0]
TRACE = REPO / "sample_data" / "timeline" / "naive.json.gz"


@pytest.fixture(scope="session")
def sample_run():
    from rooftui.analysis import load_run

    return load_run([SAMPLE])


@pytest.fixture
def sample_app():
    def build(**options) -> RooftuiApp:
        return make_app([SAMPLE], **options)

    return build
