"""The roofline's legend takes its rows from the pane's size and what is plotted, never
from the last draw: the same screen reached two ways lays out the same way.

Checked on the explorer model (no app) at the roofline pane sizes the explorer gives:
200x60 with the details closed (200x32) and open beside the table (110x32), 120x40
(120x19) and 80x24 (80x12). That the screen gives the pane these sizes, and that the
widgets show the model's picture after a resize and back, is checked in test_explorer.py
(test_resizing_redraws_the_roofline_and_on_a_narrow_terminal_details_cover_the_table).
"""

from __future__ import annotations

import pytest

from rooftui.views.tui.explorer_model import ExplorerModel
from rooftui.views.tui.roofline_legend import LEGEND_ROWS
from rooftui.views.tui.view_state import LoadedRun
from tests.tui.conftest import SAMPLE, prepared_run

# The roofline pane (width, height) in the explorer on the sample at each terminal size.
PANE = {
    "200x60": (200, 32),
    "200x60 details open": (110, 32),
    "120x40": (120, 19),
    "80x24": (80, 12),
}


@pytest.fixture(scope="module")
def loaded_run() -> LoadedRun:
    return prepared_run([SAMPLE])


def picture(model: ExplorerModel, pane: tuple[int, int]) -> tuple:
    """The pane as drawn: the legend's rows, the plot's size and cells, the legend."""
    model.update_roofline()
    drawn = model.roofline_picture(*pane)
    assert drawn is not None
    layout = drawn.layout
    return (drawn.legend_rows, (layout.width, layout.height), tuple(drawn.plot_rows), drawn.legend.plain)


def press(model: ExplorerModel, key: str) -> tuple:
    """What ``key`` does to the model at 200x60, and the pane as drawn after it."""
    if key == "down":
        model.select(model.cursor + 1)
    elif key == "up":
        model.select(model.cursor - 1)
    elif key == "home":
        model.select(0)
    elif key in ("enter", "d"):
        if key == "d" or not model.detail_open:
            model.toggle_detail()
    return picture(model, PANE["200x60 details open" if model.detail_open else "200x60"])


def test_the_second_kernels_details_at_200x60_look_the_same_however_reached(loaded_run):
    # one model, each way from the top row with the details closed: the earlier ways are
    # part of the later ones' history, which must not matter either
    model = ExplorerModel(loaded_run)
    picture(model, PANE["200x60"])
    pictures = []
    for keys in (("down", "enter"), ("enter", "down"), ("down", "down", "enter", "up")):
        for key in keys:
            shown = press(model, key)
        assert model.selected.name == model.rows.index[1] and model.detail_open
        pictures.append(shown)
        for key in ("d", "home"):
            press(model, key)
    assert pictures[0] == pictures[1] == pictures[2]
    # and the same as a fresh explorer that selects the second kernel at once
    fresh = ExplorerModel(loaded_run)
    fresh.select(1)
    assert picture(fresh, PANE["200x60 details open"]) == pictures[0]


@pytest.mark.parametrize("size", ["120x40", "200x60"])
def test_a_resize_and_back_restores_the_layout(loaded_run, size):
    # at 200x60 the legend takes 2 rows, at 80x24 3: back at 200x60 it takes 2 again
    model = ExplorerModel(loaded_run)
    before = picture(model, PANE[size])
    small = picture(model, PANE["80x24"])
    assert picture(model, PANE[size]) == before != small
    # the legend holds in its rows what it says; the rest is on the status line
    assert 1 <= small[0] <= LEGEND_ROWS
    assert picture(ExplorerModel(loaded_run), PANE["80x24"]) == small


def test_legend_rows_asked_again_are_remembered_and_a_fresh_view_agrees(loaded_run):
    # The explorer's pane alternates between two heights as the selected name under the
    # table takes one line or two, and levels toggled off and on come back to what was
    # plotted before: the rows chosen for each are kept, not worked out again.
    model = ExplorerModel(loaded_run)
    model.update_roofline()
    view, content = model.roofline, model.roofline_content()
    chosen = {height: view.legend_rows(100, height, True, content) for height in (15, 14, 13)}
    planned: list[tuple] = []
    plan = view.plan
    view.plan = lambda *args, **options: planned.append(args) or plan(*args, **options)
    assert {height: view.legend_rows(100, height, True, content) for height in (15, 14, 13)} == chosen
    assert planned == []
    fresh = ExplorerModel(loaded_run)
    fresh.update_roofline()
    assert {h: fresh.roofline.legend_rows(100, h, True, content) for h in (15, 14, 13)} == chosen
