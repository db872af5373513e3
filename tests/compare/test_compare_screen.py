"""The compare screen on the DeepCAM FP32 vs AMP runs: snapshots at 80x24 and 120x40, and
the wiring of keys to ``CompareModel`` (Pilot); what the model shows is checked without an
app in test_compare_model.py."""

from __future__ import annotations

import pytest
from textual.widgets import ContentSwitcher, DataTable

from rooftui.views.tui.compare_model import ARROWS
from rooftui.views.tui.screens.compare import CompareApp, CompareScreen, PairScreen
from rooftui.views.tui.widgets.compare_chart import CompareCanvas
from tests.snapshot_steps import as_it_opens, in_turn, pressing, resizing, settled
from tests.tui.conftest import screen_text
from tests.tui.test_chart_base import in_colour_and_unicode_and_redrawn_when_resized

# The unicode screen is one app brought through every state a picture or a Pilot check
# needs (snap_compare_steps in tests/conftest.py): an app start costs more CPU than the
# keys between two states, and each picture is compared with what a fresh start in that
# state drew (the stored files), so a key that leaves anything behind fails the next one.
# Each screen once where it has least room (the zoomed chart, the pair), the compare
# screen at both sizes and side by side: the zoomed chart and the pair at 120x40 are the
# same code given more cells (the model lays the zoomed pane out at every size:
# test_compare_model.py; the pair's text is the model's ``pair_detail``).
STATES = ("opens-80x24", "zoomed-80x24", "pair-80x24", "opens-120x40", "operations-at-l1-160x48")


@pytest.mark.snapshots(*STATES)
def test_the_compare_screen_at_each_size_and_what_its_keys_do(snap_compare_steps, comparison):
    # the pictures' keys are the keys the checks between them drive
    snap_compare_steps(
        CompareApp(comparison),
        (80, 24),
        [
            ("opens-80x24", as_it_opens),  # on the matched kernels and their arrows
            # the chart alone, every roof labelled
            ("zoomed-80x24", in_turn(the_chart_pane_has_the_rows_the_model_lays_out, pressing("z"))),
            (
                None,
                in_turn(
                    zoomed_the_chart_has_the_screen,
                    pressing("z"),
                    down_selects_the_next_pair_and_the_chart_follows,
                ),
            ),
            ("pair-80x24", pressing("enter")),  # the pair on both sides
            (
                None,
                in_turn(
                    the_pair_screen_shows_both_sides_and_escape_goes_back,
                    up_moves_the_selection_with_the_chart_alone_and_a_resize_refills_the_lists,
                ),
            ),
            ("opens-120x40", as_it_opens),  # resized in the step before, the lists filled again
            # the chart at HBM in colour, then resized (test_chart_base.py)
            (None, in_colour_and_unicode_and_redrawn_when_resized("compare")),
            # 160 columns: the lists and the chart side by side, operations at L1
            (None, in_turn(resizing(160, 48), l_and_plus_draw_five_more_arrows_at_l1)),
            ("operations-at-l1-160x48", pressing("o")),
            # o above; Table III's totals in view
            (
                None,
                in_turn(
                    letters_switch_the_list_and_its_focus, escape_never_quits_the_standalone_app_and_q_does
                ),
            ),
        ],
    )


@pytest.mark.snapshots("80x24", "120x40")
def test_snapshot_in_ascii_opens_on_the_matched_kernels_and_their_arrows(snap_compare_sizes, comparison):
    # one app through both sizes: a resize draws what a fresh start draws
    app = lambda: CompareApp(comparison, ascii_mode=True)  # noqa: E731
    snap_compare_sizes(app, [[(80, 24), (120, 40)]], as_it_opens, as_it_opens)


def chart_of(pilot) -> CompareCanvas:
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    return screen.query_one(CompareCanvas)


def the_chart_pane_has_the_rows_the_model_lays_out(pilot) -> None:
    """At 80x24, the compare screen as it opens."""
    screen, canvas = pilot.app.screen, chart_of(pilot)
    # the chart pane's sizes the model tests lay out (test_compare_model.PANES)
    assert tuple(screen.query_one("#compare-chart").size) == (80, 11)
    assert len(canvas.overlay.arrows) == ARROWS
    footer = screen_text(pilot.app).splitlines()[-1]
    assert "? help" in footer and "both sides" in footer  # kept at 80 columns


def zoomed_the_chart_has_the_screen(pilot) -> None:
    chart_of(pilot)
    assert tuple(pilot.app.screen.query_one("#compare-chart").size) == (80, 18)


async def down_selects_the_next_pair_and_the_chart_follows(pilot) -> None:
    app, canvas = pilot.app, chart_of(pilot)
    comparison = app.comparison
    await pilot.press("down")
    await settled(pilot)
    second = int(comparison.matched.index[1])
    assert app.screen.model.selected_pairs == {second}
    assert second in {a.row for a in canvas.overlay.arrows}
    assert f"same operation ({comparison.matched.iloc[1]['key']})" in screen_text(app)


async def the_pair_screen_shows_both_sides_and_escape_goes_back(pilot) -> None:
    app = pilot.app
    assert isinstance(app.screen, PairScreen)
    assert "not in" not in screen_text(app) and "change" in screen_text(app)
    await pilot.press("escape")
    await settled(pilot)
    assert isinstance(app.screen, CompareScreen)


async def up_moves_the_selection_with_the_chart_alone_and_a_resize_refills_the_lists(pilot) -> None:
    """z z: the chart alone and back, the list keeping the focus and the row; resized to
    120x40 while the lists are hidden, they are filled for 120 columns when shown."""
    app, screen = pilot.app, pilot.app.screen
    chart_of(pilot)
    await pilot.press("z")
    await settled(pilot)
    await pilot.press("up")  # the selection still moves with the chart alone
    await settled(pilot)
    assert screen.model.selected_pairs == {int(app.comparison.matched.index[0])}
    await pilot.resize_terminal(120, 40)  # resized while the lists are hidden
    await settled(pilot)
    # the zoomed pane at 120x40 the model tests lay out (its picture: at 80x24)
    assert tuple(screen.query_one("#compare-chart").size) == (120, 34)
    await pilot.press("z")
    await settled(pilot)
    matched = screen.query_one("#matched", DataTable)
    assert app.focused is matched and matched.cursor_row == 0
    widths = screen.model.column_widths("matched", 120)
    assert [column.width for column in matched.columns.values()] == widths  # filled for 120


async def l_and_plus_draw_five_more_arrows_at_l1(pilot) -> None:
    """On the matched list; leaves the arrows at L1, as many as before."""
    canvas = chart_of(pilot)
    for key in ("l", "plus"):
        await pilot.press(key)
    await settled(pilot)
    assert (canvas.overlay.level, len(canvas.overlay.arrows)) == ("l1", ARROWS + 5)
    await pilot.press("minus")
    await settled(pilot)
    assert (canvas.overlay.level, len(canvas.overlay.arrows)) == ("l1", ARROWS)


async def letters_switch_the_list_and_its_focus(pilot) -> None:
    """Run after `o` (the operations picture's key): checks what it did, then the rest."""
    app = pilot.app
    views = [("o", "operations"), ("a", "only-a"), ("b", "only-b"), ("t", "totals"), ("m", "matched")]
    for key, view in views:
        if key != "o":
            await pilot.press(key)
            await pilot.pause()
        assert app.screen.query_one(ContentSwitcher).current == view, key
        if view == "totals":
            text = screen_text(app)
            assert "Zero-AI launches (Table III)" in text
            row = next(line for line in text.splitlines() if line.strip().startswith("all "))
            assert row.split()[:8] == ["all", "153→179", "40", "26.1%", "8.6%", "34", "19.0%", "6.1%"]
        else:
            assert app.focused is app.screen.query_one(f"#{view}", DataTable), key


async def escape_never_quits_the_standalone_app_and_q_does(pilot) -> None:
    """On the compare screen, the standalone app's first: escape says how to quit; q asks
    the app to exit (recorded instead: the app still has its pictures to hand back)."""
    app = pilot.app
    await pilot.press("escape")
    await pilot.pause()
    assert app.is_running and isinstance(app.screen, CompareScreen)
    assert any(n.message == "q quits" for n in app._notifications)
    exits = []
    app.exit = lambda *result, **options: exits.append(result)
    try:
        await pilot.press("q")
        await pilot.pause()
    finally:
        del app.exit
    assert exits == [()]


def test_overlay_draws_each_heavy_pair_from_its_a_point_to_its_b_point(comparison):
    import math

    from rooftui.views.tui.compare_overlay import overlay_figure

    overlay = overlay_figure(comparison, "hbm", 10, (70, 30))
    assert len(overlay.arrows) == 10
    first = overlay.arrows[0]
    pair = comparison.kernels.loc[first.row]
    for side, (x, y) in (("a", (first.xa, first.ya)), ("b", (first.xb, first.yb))):
        expected = (math.log10(pair[f"ai_hbm_{side}"]), math.log10(pair[f"flop_rate_{side}"]))
        assert (x, y) == pytest.approx(expected)
    (x_lo, x_hi), (y_lo, y_hi) = overlay.figure.x_range, overlay.figure.y_range
    for arrow in overlay.arrows:
        assert x_lo <= min(arrow.xa, arrow.xb) and max(arrow.xa, arrow.xb) <= x_hi
        assert y_lo <= min(arrow.ya, arrow.yb) and max(arrow.ya, arrow.yb) <= y_hi
    # One GPU: each roof once, untagged; the TF32 roof from A's kernels, the FP16 one from B's.
    tags = [roof.tag for roof in overlay.figure.roofs]
    assert tags.count("HBM") == 1
    assert {"TC TF32", "TC FP16"} <= set(tags)


def test_diff_tui_opens_the_compare_app_on_the_two_reports(monkeypatch, expected):
    monkeypatch.setattr("rooftui.cli.terminal.has_terminal", lambda: True)  # in a terminal
    from click.testing import CliRunner

    from rooftui.cli.diff import diff
    from tests.conftest import KNOWN

    # Two small exports of the known-answer program (its roofline metrics, and ncu's basic
    # set): read and compared in a third of the DeepCAM pair's CPU; every kernel it
    # launches is in both (expected.json, written by the program itself).
    opened = []
    monkeypatch.setattr(CompareApp, "run", lambda app: opened.append(app.comparison))
    reports = [KNOWN / "known_answer.raw-base.csv", KNOWN / "known_answer_basic.raw.csv"]
    result = CliRunner().invoke(diff, [*map(str, reports), "--tui"])
    assert result.exit_code == 0, result.output
    [comparison] = opened
    assert (comparison.label_a, comparison.label_b) == ("known_answer", "known_answer_basic")
    assert len(comparison.matched) == len(expected) == 15


def test_the_compare_chart_is_laid_out_by_the_explorers_engine_one_arrow_per_pair(comparison):
    from rooftui.views.tui.compare_overlay import overlay_figure, with_arrows
    from rooftui.views.tui.roofline_layout import lay_out, plot_cells

    overlay = overlay_figure(comparison, "hbm", 10, plot_cells(100, 30))
    chosen = overlay.arrows[3].row
    layout = lay_out(with_arrows(overlay, {chosen}), 100, 30)
    text = "\n".join(layout.text_rows())
    # the axes say what they measure, with units, as the explorer's do
    assert text.startswith("FLOP/s") and "arithmetic intensity (FLOP/byte)" in text
    # each pair's line is on the grid, the chosen pair's ending in the selected glyph alone
    assert text.count("◆") == 1 and "○" in text and "●" in text
    owners = set().union(*layout.line_series.values())
    assert {"arrow", "selected", "hbm"} <= owners
    # no roof label covers an arrow, as no label covers a point or another series' line
    for label in layout.labels:
        for col in range(label.col, label.col + len(label.text)):
            assert not layout.line_series.get((label.row, col), set()) & {"arrow", "selected"}
            assert layout.before_labels[label.row][col][0] != "point"
