"""Driving the explorer with the keyboard and mouse, as a user would (Pilot)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from textual.widgets import Checkbox, Input, Select, SelectionList

from rooftui.views.tui.screens.explorer import ExplorerScreen
from rooftui.views.tui.screens.export import ExportScreen
from rooftui.views.tui.screens.help import HelpScreen
from rooftui.views.tui.screens.pipelines import PipelinesScreen
from rooftui.views.tui.widgets.detail import DetailPane
from rooftui.views.tui.widgets.filter_bar import FilterBar
from rooftui.views.tui.widgets.kernel_table import COLUMNS, KernelTable
from rooftui.views.tui.widgets.roofline import RooflineCanvas
from tests.tui.conftest import loaded, screen_text

SIZE = (100, 32)


def shown_names(app) -> list[str]:
    return list(app.explorer.query_one(KernelTable).frame["name"])


def figure(app):
    return app.explorer.query_one(RooflineCanvas).figure


async def test_opens_grouped_heaviest_first_with_totals(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert shown_names(app) == ["dgemm", "wmma_gemm", "sgemv", "daxpy", "memset_zero"]
        text = screen_text(app)
        assert "5 kernels · 10 launches · 45 ms (100.0%)" in text
        assert "zero-AI 2 (6.7% time)" in text
        assert isinstance(app.focused, KernelTable)


async def test_down_arrow_selects_next_kernel_and_joins_its_three_points(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("down")
        assert app.explorer.selected["name"] == "wmma_gemm"
        points = figure(app).selected
        assert [level for level, _, _ in points] == ["l1", "l2", "hbm"]
        # one FLOP/s for all three; x is log10 of AI 50, 100, 500
        assert {round(y, 6) for _, _, y in points} == {
            round(pd.Series([4e12 / 0.012]).pipe(lambda s: __import__("math").log10(s[0])), 6)
        }
        assert [round(x, 3) for _, x, _ in points] == [1.699, 2.0, 2.699]


async def test_navigation_keys_reach_both_ends(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.explorer.query_one(KernelTable)
        await pilot.press("end")
        assert table.cursor_row == 4 and app.explorer.selected["name"] == "memset_zero"
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("pagedown")
        assert table.cursor_row == 4
        await pilot.press("pageup", "up")
        assert table.cursor_row == 0


async def test_brackets_sort_by_the_column_under_the_cursor(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        # kernel -> count -> time -> %time -> GFLOP/s
        await pilot.press("right", "right", "right", "right")
        assert COLUMNS[app.explorer.query_one(KernelTable).cursor_column].key == "flop_rate"
        await pilot.press("right_square_bracket")
        assert shown_names(app)[0] == "wmma_gemm"
        await pilot.press("left_square_bracket")
        assert shown_names(app)[0] == "memset_zero"
        await pilot.press("home", "left", "left", "left", "left", "left_square_bracket")
        assert shown_names(app) == ["daxpy", "dgemm", "memset_zero", "sgemv", "wmma_gemm"]
        assert "by kernel▲" in screen_text(app)


async def test_every_column_sorts_both_ways(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        for index, column in enumerate(COLUMNS):
            table = app.explorer.query_one(KernelTable)
            table.cursor_column = index
            for key, descending in (("left_square_bracket", False), ("right_square_bracket", True)):
                await pilot.press(key)
                assert (app.explorer.state.sort_column, app.explorer.state.sort_descending) == (
                    column.key,
                    descending,
                )
                values = table.frame[column.key].dropna()
                if pd.api.types.is_numeric_dtype(values):
                    ordered = values.sort_values(ascending=not descending, kind="stable")
                    assert list(values) == list(ordered)


async def test_clicking_a_header_sorts_and_clicking_again_reverses(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.explorer.query_one(KernelTable)
        # "AI HBM" header: after kernel(26) count(6) time(9) %time(6) GFLOP/s(10) AI L1 AI L2
        x = 27 + 7 + 10 + 7 + 11 + 9 + 9 + 2
        await pilot.click(KernelTable, offset=(x, 0))
        assert app.explorer.state.sort_column == "ai_hbm" and app.explorer.state.sort_descending
        assert shown_names(app)[0] == "wmma_gemm"
        await pilot.click(KernelTable, offset=(x, 0))
        assert not app.explorer.state.sort_descending
        assert shown_names(app)[0] == "memset_zero"  # AI 0 at HBM
        await pilot.click(KernelTable, offset=(3, 3))
        assert table.cursor_row == 2


async def test_slash_focuses_the_name_filter_and_typing_filters_table_and_roofline(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("slash")
        assert app.focused.id == "filter-name"
        await pilot.press(*"gemm")
        assert shown_names(app) == ["dgemm", "wmma_gemm"]
        heavy = [s for s in figure(app).points if s.emphasis == "heavy" and s.level == "hbm"]
        assert len(heavy[0].xs) == 2
        assert "2 kernels · 4 launches" in screen_text(app)
        await pilot.press("escape")
        assert isinstance(app.focused, KernelTable)


async def test_regex_filter_and_a_bad_regex_keeps_the_last_good_filter(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        bar = app.explorer.query_one(FilterBar)
        bar.query_one("#filter-regex", Checkbox).value = True
        await pilot.press("slash", *"^d")
        assert shown_names(app) == ["dgemm", "daxpy"]
        await pilot.press("(")
        assert shown_names(app) == ["dgemm", "daxpy"]
        assert "regular expression" in str(bar.query_one("#filter-error").render())
        assert bar.has_class("-invalid")


@pytest.mark.parametrize(
    ("widget", "value", "expected"),
    [
        ("#filter-pipeline", "fp64", ["dgemm", "daxpy"]),
        ("#filter-zero-ai", "only", ["memset_zero"]),
        ("#filter-zero-ai", "hide", ["dgemm", "wmma_gemm", "sgemv", "daxpy"]),
        ("#filter-phase", "backward", ["wmma_gemm", "sgemv"]),
        ("#filter-bound", "memory", ["sgemv", "daxpy"]),
        ("#filter-bound", "compute", ["dgemm", "wmma_gemm"]),
    ],
)
async def test_filter_bar_selects(synthetic_app, widget, value, expected):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.explorer.query_one(widget, Select).value = value
        await pilot.pause()
        assert shown_names(app) == expected


async def test_ai_range_at_a_chosen_level_and_top_n(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        bar = app.explorer.query_one(FilterBar)
        bar.query_one("#filter-level", Select).value = "l1"
        await pilot.pause()
        bar.query_one("#filter-ai-min", Input).focus()
        await pilot.press("1")
        assert shown_names(app) == ["dgemm", "wmma_gemm"]  # L1 AI 5 and 50
        bar.query_one("#filter-ai-max", Input).focus()
        await pilot.press("1", "0")
        assert shown_names(app) == ["dgemm"]
        await pilot.press("escape", "x")
        assert len(shown_names(app)) == 5
        bar.query_one("#filter-top", Input).focus()
        await pilot.press("2")
        assert shown_names(app) == ["dgemm", "wmma_gemm"]
        await pilot.press("a")
        assert "top N must be a positive whole number" in str(
            bar.query_one("#filter-error").render()
        )


async def test_x_clears_every_filter(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.explorer.query_one("#filter-zero-ai", Select).value = "only"
        await pilot.pause()
        await pilot.press("slash", *"mem", "escape")
        assert shown_names(app) == ["memset_zero"]
        await pilot.press("x")
        assert len(shown_names(app)) == 5 and app.explorer.state.spec.is_empty
        assert app.explorer.query_one("#filter-name", Input).value == ""


async def test_f_hides_and_shows_the_filter_bar(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        bar = app.explorer.query_one(FilterBar)
        await pilot.press("f")
        assert not bar.display
        await pilot.press("f")
        assert bar.display


async def test_g_switches_between_grouped_kernels_and_single_invocations(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("g")
        assert not app.explorer.state.grouped
        assert len(shown_names(app)) == 10 and shown_names(app)[0] == "dgemm"
        assert "10 invocations · 10 launches" in screen_text(app)
        assert "single invocations" in screen_text(app)
        await pilot.press("g")
        assert len(shown_names(app)) == 5


async def test_number_keys_toggle_memory_levels_on_the_roofline(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        assert {s.level for s in figure(app).points} == {"l2", "hbm"}
        assert "l1" not in {r.key for r in figure(app).roofs}
        await pilot.press("2", "3")
        assert figure(app).points == []
        await pilot.press("1", "2", "3")
        assert {s.level for s in figure(app).points} == {"l1", "l2", "hbm"}


async def test_p_chooses_which_compute_roofs_are_drawn(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert {r.key for r in figure(app).roofs if r.kind == "compute"} == {
            "tensor_fp16",
            "fp64+fp32",
        }
        await pilot.press("p")
        assert isinstance(app.screen, PipelinesScreen)
        assert app.screen.query_one(SelectionList).selected == ["fp64", "fp32", "tensor_fp16"]
        await pilot.press("end", "space", "enter")  # untick Tensor FP16
        assert isinstance(app.screen, ExplorerScreen)
        assert {r.key for r in figure(app).roofs if r.kind == "compute"} == {"fp64+fp32"}
        await pilot.press("p", "space", "escape")  # cancel changes nothing
        assert {r.key for r in figure(app).roofs if r.kind == "compute"} == {"fp64+fp32"}


async def test_enter_and_d_show_the_selected_kernels_details(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=(140, 60)) as pilot:
        await loaded(pilot)
        detail = app.explorer.query_one(DetailPane)
        assert not detail.display
        await pilot.press("enter")
        await pilot.pause()
        assert detail.display
        text = screen_text(app)
        assert "dgemm(double*)" in text and "headroom" in text and "600 GFLOP" in text
        await pilot.press("down")
        await pilot.pause()
        assert "wmma_gemm(double*)" in screen_text(app)
        await pilot.press("d")
        assert not detail.display
        await pilot.press("d")
        assert detail.display


async def test_z_zooms_the_roofline_and_back(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("z")
        assert app.explorer.maximized is not None
        await pilot.press("z")
        assert app.explorer.maximized is None


async def test_question_mark_lists_every_key_and_escape_returns(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=(120, 60)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        for owner in (ExplorerScreen, KernelTable):
            for binding in owner.BINDINGS:
                assert (binding.tooltip or binding.description) in text
        await pilot.press("escape")
        assert isinstance(app.screen, ExplorerScreen)


async def test_e_exports_the_view_as_svg(synthetic_app, tmp_path):
    app = synthetic_app()
    target = tmp_path / "view.svg"
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("e")
        assert isinstance(app.screen, ExportScreen)
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
    svg = target.read_text()
    assert svg.startswith("<svg") and "dgemm" in svg


async def test_export_to_a_missing_folder_says_so_and_escape_cancels(synthetic_app, tmp_path):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("c")
        app.screen.query_one(Input).value = str(tmp_path / "nope" / "k.csv")
        await pilot.press("enter")
        assert "no such folder" in str(app.screen.query_one("#export-error").render())
        await pilot.press("escape")
        assert isinstance(app.screen, ExplorerScreen)
    assert not (tmp_path / "nope").exists()


async def test_c_exports_the_filtered_table_as_csv(synthetic_app, tmp_path):
    app = synthetic_app()
    target = tmp_path / "kernels.csv"
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("slash", *"gemm", "escape", "c")
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
    exported = pd.read_csv(target)
    assert list(exported["name"]) == ["dgemm", "wmma_gemm"]
    assert list(exported["count"]) == [2, 2]
    assert exported["time_s"].tolist() == pytest.approx([15e-3, 12e-3])


async def test_q_quits(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_no_color_turns_the_screen_monochrome(synthetic_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.no_color
        colours = {
            segment.style.color.triplet
            for strip in app.screen._compositor.render_strips()
            for segment in strip
            if segment.style and segment.style.color and segment.style.color.triplet
        }
        greys = {c for c in colours if c.red == c.green == c.blue}
        assert colours == greys


async def test_ascii_mode_draws_roofline_table_and_status_in_ascii(synthetic_app):
    app = synthetic_app(ascii_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        text = screen_text(app)
        non_ascii = sorted({ch for ch in text if ord(ch) > 127})
        assert non_ascii == []


async def test_t_opens_the_timeline_of_a_trace_and_escape_returns(synthetic_app):
    from rooftui.views.tui.timeline_screen import TimelineScreen

    trace = Path(__file__).resolve().parents[2] / "sample_data" / "timeline" / "naive.json.gz"
    app = synthetic_app(trace=trace)
    async with app.run_test(size=(120, 32)) as pilot:
        await loaded(pilot)
        assert "t timeline" in screen_text(app)
        await pilot.press("t")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, ExplorerScreen)


async def test_t_is_hidden_and_does_nothing_without_a_trace(synthetic_app):
    app = synthetic_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert "t timeline" not in screen_text(app)
        await pilot.press("t")
        assert isinstance(app.screen, ExplorerScreen)
