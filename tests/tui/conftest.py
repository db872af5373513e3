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


async def type_text(pilot, text: str) -> None:
    """Type ``text`` into the focused input in one step: what the input posts after the
    last key (one ``Input.Changed`` with the whole text), without a redraw of the
    explorer per character (0.05-0.1 s of CPU each). Key by key typing is driven in
    test_snapshots.py (find and filter) and test_tmux.py."""
    from textual.widgets import Input

    await pilot.pause()  # a focus() asked for just before takes effect
    field = pilot.app.focused
    assert isinstance(field, Input), f"typing needs a focused input, not {field!r}"
    field.value += text
    field.cursor_position = len(field.value)
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


# --- checks that leave the explorer as they found it ----------------------------------
# One app runs them in turn (an app start costs 1-3 s of CPU) and, after each, asserts
# that the explorer is back where it started, so each still sees what a fresh app shows:
# a check that left anything behind fails there, under its own name.


def where_it_stands(app) -> tuple:
    """What these checks must leave as they found it: the screen, the view (grouping,
    filters, sort, levels, roofs), the cursor, focus, zoom and which panes show."""
    from rooftui.views.tui.widgets.detail import DetailPane
    from rooftui.views.tui.widgets.filter_bar import FilterBar
    from rooftui.views.tui.widgets.kernel_table import KernelTable

    explorer, state = app.explorer, app.explorer.state
    return (
        type(app.screen),
        state.grouped,
        state.spec,
        state.sort_column,
        state.sort_descending,
        list(state.levels),
        set(state.hidden_pipelines),
        explorer.query_one(KernelTable).cursor_row,
        type(app.focused),
        explorer.maximized,
        explorer.query_one(FilterBar).display,
        explorer.query_one(DetailPane).display,
        app.return_code,
    )


async def run_in_turn(app, pilot, checks) -> None:
    home = where_it_stands(app)
    for check in checks:
        await check(app, pilot)
        name = getattr(check, "func", check).__name__
        assert where_it_stands(app) == home, f"{name} left the explorer changed"
