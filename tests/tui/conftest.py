"""Helpers for driving the explorer with Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftui.sample import sample_paths
from rooftui.views.tui.app import RooftuiApp, make_app
from rooftui.views.tui.view_state import LoadedRun


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


async def wait_until(pilot, condition, what: str, pauses: int = 500) -> None:
    """Pause until ``condition()`` holds: a condition, not a time, so a loaded machine
    only makes it slower. Fails naming ``what`` if it still does not hold after
    ``pauses`` idle waits."""
    for _ in range(pauses):
        if condition():
            return
        await pilot.pause()
    assert condition(), f"still not so after {pauses} pauses: {what}"


async def open_the_timeline(pilot) -> list[str]:
    """Press ``t`` on the explorer and wait until the timeline screen is shown: the trace
    is analysed in a worker (the first time) whose message pushes the screen. Returns the
    toasts said meanwhile, recorded instead of shown: the "analysing ..." toast lasts 2 s,
    so whether it still covers the timeline when a test reads the screen would depend on
    the machine's load."""
    from rooftui.views.tui.screens.timeline import TimelineScreen

    app = pilot.app
    said: list[str] = []
    app.notify = lambda message, **options: said.append(message)
    try:
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: isinstance(app.screen, TimelineScreen), "the timeline is shown")
    finally:
        del app.notify
    return said


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
    """``load_run([SAMPLE])``: the run ``prepared_run`` read (a copy of its own)."""
    return prepared_run([SAMPLE]).source


_PREPARED: dict[tuple[str, ...], object] = {}


def prepared_run(paths) -> LoadedRun:
    """``paths`` read with the default report options and prepared (``LoadedRun``, what
    the explorer's load worker makes) once per worker; each call gets a deep copy of its
    own, so a test that changes it changes no other (the read and the preparation cost
    0.4-1.5 s of CPU per report set; a copy 0.005 s on the sample)."""
    import copy

    from rooftui.analysis.load_options import LoadOptions
    from rooftui.views.tui.view_state import LoadedRun

    key = tuple(str(path) for path in paths)
    if key not in _PREPARED:
        _PREPARED[key] = LoadedRun.from_run(LoadOptions().load(paths))
    return copy.deepcopy(_PREPARED[key])


def explorer_of(paths, **options) -> RooftuiApp:
    """``make_app(paths, **options)`` handed the run its load worker would prepare
    (``prepared_run``). For apps whose reports nothing in the test changes; the load
    worker reading from paths is driven by test_snapshots.py, test_explorer.py's load
    tests and test_tmux.py."""
    return make_app(paths, run=prepared_run(paths), **options)


@pytest.fixture
def sample_app():
    def build(**options) -> RooftuiApp:
        return explorer_of([SAMPLE], **options)

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
    # every check ends where it started: one full drawing of that screen for them all
    # (``_headless_apps_draw_only_what_a_test_reads``)
    assert screen_text(app).strip(), "the explorer draws nothing after its checks"
