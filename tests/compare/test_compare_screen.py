"""The compare screen on the DeepCAM FP32 vs AMP runs: snapshots, and what each key does (Pilot)."""

from __future__ import annotations

import pytest
from textual.widgets import ContentSwitcher, DataTable

from rooftui.views.tui.screens.compare import CompareApp, CompareScreen
from rooftui.views.tui.widgets.compare_chart import ARROWS, CompareCanvas


def screen_text(app) -> str:
    return "\n".join(
        "".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()
    )


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_opens_on_the_matched_kernels_and_their_arrows(snap_compare, comparison, size):
    assert snap_compare(CompareApp(comparison), terminal_size=size)


def test_snapshot_operations_at_l1(snap_compare, comparison):
    assert snap_compare(CompareApp(comparison), terminal_size=(160, 48), press=["o", "l"])


async def test_opens_with_the_heaviest_pair_selected_and_described(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        canvas = screen.query_one(CompareCanvas)
        first = int(comparison.matched.index[0])
        assert canvas.selected_rows == {first}
        assert len(canvas.overlay.arrows) == ARROWS
        text = screen_text(app)
        assert "A deepcam_fp32 1.58 ms → B deepcam_amp 1.38 ms (-13%)" in text
        assert "same name but its parameters, 3 launches aligned" in text
        assert "A sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32" in text
        assert "B sm90_xmma_wgrad_indexed_implicit_gemm_f16f16_f16f32" in text


async def test_down_selects_the_next_pair_and_its_arrow(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("down")
        await pilot.pause()
        second = comparison.matched.iloc[1]
        canvas = app.screen.query_one(CompareCanvas)
        assert canvas.selected_rows == {int(comparison.matched.index[1])}
        assert f"same operation ({second['key']})" in screen_text(app)


async def test_letters_switch_the_list(comparison):
    # one app: each letter is pressed from another list, so each one switches
    app = CompareApp(comparison)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for key, view in [
            ("o", "operations"),
            ("a", "only-a"),
            ("b", "only-b"),
            ("t", "totals"),
            ("m", "matched"),
        ]:
            await pilot.press("t" if key == "m" else "m", key)
            await pilot.pause()
            assert app.screen.query_one(ContentSwitcher).current == view, key
            if view != "totals":
                assert app.focused is app.screen.query_one(f"#{view}", DataTable), key


async def test_operations_list_leads_with_the_convolutions(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        table = app.screen.query_one("#operations", DataTable)
        # cells are Text: a DataTable reads a str cell as markup, and names come from files
        assert [str(table.get_row_at(i)[-1]) for i in range(3)] == ["conv wgrad", "conv dgrad", "conv fprop"]
        cells = [str(cell) for cell in table.get_row_at(0)[2:6]]
        assert cells == ["268µs", "219µs", "-18%", "TC TF32→TC FP16"]
        assert "backward · conv wgrad: 5 kernels in A, 6 in B" in screen_text(app)
        # Every matched pair of that operation is drawn in gold, whatever its rank by time.
        matched = comparison.matched
        wgrad = matched[(matched["operation_b"] == "conv wgrad") & (matched["phase_b"] == "backward")]
        canvas = app.screen.query_one(CompareCanvas)
        assert canvas.selected_rows == set(wgrad.index) and len(wgrad) >= 5
        assert {a.row for a in canvas.overlay.arrows} >= set(wgrad.index)


async def test_totals_show_table3_side_by_side(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(160, 60)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        text = screen_text(app)
        assert "Zero-AI launches (Table III)" in text
        row = next(line for line in text.splitlines() if line.strip().startswith("all "))
        assert row.split()[:8] == ["all", "153→179", "40", "26.1%", "8.5%", "34", "19.0%", "6.1%"]


async def test_l_cycles_the_memory_level_of_the_arrows(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        canvas = app.screen.query_one(CompareCanvas)
        seen = []
        for _ in range(3):
            await pilot.press("l")
            await pilot.pause()
            seen.append((canvas.level, canvas.overlay.level))
        assert seen == [("l1", "l1"), ("l2", "l2"), ("hbm", "hbm")]
        await pilot.press("l")
        await pilot.pause()
        assert "10 heaviest matched at L1" in screen_text(app)


async def test_plus_and_minus_change_how_many_arrows(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        canvas = app.screen.query_one(CompareCanvas)
        await pilot.press("plus")
        await pilot.pause()
        assert len(canvas.overlay.arrows) == ARROWS + 5
        await pilot.press("minus", "minus", "minus")
        await pilot.pause()
        assert len(canvas.overlay.arrows) == 4  # 15, 10, 5, then one by one
        assert "4 heaviest matched at HBM" in screen_text(app)


async def test_z_shows_the_chart_alone_and_back(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lists = app.screen.query_one("#compare-lists")
        await pilot.press("z")
        await pilot.pause()
        assert not lists.display
        await pilot.press("z")
        await pilot.pause()
        assert lists.display


async def test_escape_never_quits_the_standalone_app_and_q_does(comparison):
    app = CompareApp(comparison)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, CompareScreen)
        assert any(n.message == "q quits" for n in app._notifications)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_ascii_mode_draws_the_lists_and_chart_in_ascii(comparison):
    app = CompareApp(comparison, ascii_mode=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "TC TF32->TC FP16" in text and "o A deepcam_fp32  * B deepcam_amp" in text
        chart = app.screen.query_one(CompareCanvas)
        assert all(ord(ch) < 128 for ch in chart.render().plain)


def test_overlay_draws_each_heavy_pair_from_its_a_point_to_its_b_point(comparison):
    import math

    from rooftui.views.tui.widgets.compare_chart import overlay_figure

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


def test_diff_tui_opens_the_compare_app_on_the_two_reports(monkeypatch):
    monkeypatch.setattr("rooftui.cli.terminal.has_terminal", lambda: True)  # in a terminal
    from click.testing import CliRunner

    from rooftui.cli.diff import diff
    from tests.compare.conftest import AMP, FP32

    opened = []
    monkeypatch.setattr(CompareApp, "run", lambda app: opened.append(app.comparison))
    result = CliRunner().invoke(diff, [str(FP32), str(AMP), "--tui"])
    assert result.exit_code == 0, result.output
    [comparison] = opened
    assert (comparison.label_a, comparison.label_b) == ("deepcam_fp32", "deepcam_amp")
    assert len(comparison.matched) == 53


def test_the_compare_chart_is_laid_out_by_the_explorers_engine_one_arrow_per_pair(comparison):
    from rooftui.views.tui.roofline_layout import lay_out, plot_cells
    from rooftui.views.tui.widgets.compare_chart import overlay_figure, with_arrows

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
