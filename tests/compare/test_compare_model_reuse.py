"""``CompareModel`` computes each list and each chart once and reuses it: what it gives
after any walk through the keys is what a model made afresh in that state gives, and a
key that changes what is drawn (level, arrows, selection, size) never gets an old chart.

The independent answer is a fresh ``CompareModel`` put in the same state, which has
nothing to reuse."""

from __future__ import annotations

import dataclasses

from rooftui.views.tui.compare_model import LISTS, CompareModel

PANE = (120, 21)  # the chart pane at 120x40 with the lists shown (test_compare_model.PANES)


def shown(model: CompareModel, width: int = PANE[0], height: int = PANE[1]):
    """Everything the screen takes from the model for the chart pane and the lists."""
    rows = model.legend_rows(width, height)
    picture = model.chart(width, height - rows)
    arrows = [(a.row, a.xa, a.ya, a.xb, a.yb) for a in picture.overlay.arrows]
    cells = (picture.layout.chars, picture.layout.styles)
    return (
        rows,
        arrows,
        cells,
        model.legend(width).plain,
        model.selected_pairs,
        model.views_line().plain,
        {view: (list(model.frame(view).index), model.rows(view, width)) for view in LISTS},
    )


def fresh(comparison, model: CompareModel) -> CompareModel:
    """A model made now in ``model``'s state: nothing laid out or split before."""
    again = CompareModel(comparison, ascii_mode=model.ascii_mode)
    again.view, again.cursors = model.view, dict(model.cursors)
    again.level, again.count, again.zoomed = model.level, model.count, model.zoomed
    return again


def test_after_each_key_the_model_shows_what_a_fresh_one_in_its_state_shows(comparison):
    model = CompareModel(comparison)
    steps = [
        lambda: None,
        lambda: model.select(3),  # another matched pair: gold moves
        model.next_level,  # L1
        lambda: model.change_arrows(1),  # more arrows
        lambda: model.show_view("operations"),
        lambda: model.select(2),  # another operation: its pairs in gold
        lambda: model.select(0),
        model.next_level,  # L2
        lambda: model.show_view("matched"),  # back: the cursor kept, the chart as before
        lambda: model.change_arrows(-1),
    ]
    for number, step in enumerate(steps):
        step()
        assert shown(model) == shown(fresh(comparison, model)), f"after step {number}"
        if number % 3 == 0:  # the pane at 80x24 too: a second size in what was kept
            small = (80, 11)
            assert shown(model, *small) == shown(fresh(comparison, model), *small), f"step {number} at 80x24"


def test_a_key_that_changes_the_chart_never_gets_the_last_layout(comparison):
    model = CompareModel(comparison)
    before = model.chart(*PANE)
    model.select(1)
    moved = model.chart(*PANE)
    assert moved.layout.styles != before.layout.styles  # the gold pair moved
    model.select(0)
    assert model.chart(*PANE).layout.styles == before.layout.styles
    model.next_level()
    assert model.chart(*PANE).overlay.level == "l1"


def test_a_comparison_given_new_kernels_is_split_again(comparison):
    model = CompareModel(comparison)
    assert len(model.frame("matched")) == 53
    before = {view: model.rows(view, 120) for view in LISTS}
    fewer = dataclasses.replace(comparison, kernels=comparison.kernels.iloc[:10])
    model.comparison = fewer
    # The rows first: asked before anything else, they must not be the old ones.
    assert model.rows("matched", 120) != before["matched"]
    for view in LISTS:
        assert model.rows(view, 120) == fresh(fewer, model).rows(view, 120), view
    assert list(model.frame("matched").index) == list(fewer.matched.index)
    assert model.views_line().plain == fresh(fewer, model).views_line().plain
