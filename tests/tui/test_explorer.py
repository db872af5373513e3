"""Driving the explorer on the sample report with keys and the mouse (Pilot): the wiring
of keys, mouse and widgets to the explorer model. What the model decides (rows, order,
find, status line, detail, roofline) is checked without an app in test_explorer_model.py.

The sample is the mixed-precision DeepCAM-like training step: 179 launches of 73
kernels, 1.38 ms, 34 zero-AI launches taking 6.1% of the time.
"""

from __future__ import annotations

import contextlib
from functools import partial

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
from tests.tui.conftest import loaded, run_in_turn, screen_text, type_text

SIZE = (100, 32)
WGRAD = "sm80_xmma_wgrad_implicit_gemm_indexed_wo_smem"  # the heaviest kernel


def shown_names(app) -> list[str]:
    return list(app.explorer.rows["name"])


def figure(app):
    return app.explorer.query_one(RooflineCanvas).figure


def compute_roofs(app) -> set[str]:
    return {roof.key for roof in figure(app).roofs if roof.kind == "compute"}


async def opens_grouped_most_to_gain_first_with_totals(app, pilot) -> None:
    names = shown_names(app)
    assert len(names) == 73 and names[0].startswith(WGRAD)
    gains = list(app.explorer.rows["gain_s"])
    assert gains == sorted(gains, reverse=True)
    text = screen_text(app)
    assert "by gain▼" in text
    # zero-AI launches, as Table III counts them: 34 of 179 (6 kernel names have no
    # launch with floating-point work; others mix zero-AI and FP16 launches)
    assert "73 kernels, 179 launches · 0-AI: 34 launches (6.1% time)" in text  # at 100 columns, no total
    assert isinstance(app.focused, KernelTable)
    # the selected kernel's full name (173 characters) under the table, wrapped
    name = app.explorer.selected["name"]
    assert len(name) == 173 and name in text.replace("\n", "").replace(" ", "")
    # one rank: no rank column, no rank choice (test_ranks.py: two ranks)
    from rooftui.views.tui.table_columns import RANK_COLUMN

    table = app.explorer.query_one(KernelTable)
    assert table.columns == COLUMNS and RANK_COLUMN not in table.columns
    assert " rank " not in text.splitlines()[table.region.y]
    assert not app.explorer.query("#filter-rank")


async def navigation_keys_reach_both_ends(app, pilot) -> None:
    table = app.explorer.query_one(KernelTable)
    await pilot.press("end")
    assert table.cursor_row == 72
    assert app.explorer.selected["name"] == shown_names(app)[-1]
    await pilot.press("home")
    assert table.cursor_row == 0
    # A page is the table's rows as shown when the key is pressed (the selected kernel's
    # full name under the table takes one or two lines, so the next page may differ).
    rows_shown = table.scrollable_content_region.height - 1
    await pilot.press("pagedown")
    page = table.cursor_row
    assert page == rows_shown > 3
    for key, direction in (("pagedown", 1), ("pageup", -1)):
        before, rows_shown = table.cursor_row, table.scrollable_content_region.height - 1
        await pilot.press(key)
        assert table.cursor_row == before + direction * rows_shown
    before = table.cursor_row
    await pilot.press("up")
    assert table.cursor_row == before - 1
    await pilot.press("home")


async def shift_f_hides_and_shows_the_filter_bar(app, pilot) -> None:
    bar = app.explorer.query_one(FilterBar)
    await pilot.press("F")
    assert not bar.display
    await pilot.press("F")
    assert bar.display


async def g_switches_between_grouped_kernels_and_single_invocations(app, pilot) -> None:
    await pilot.press("g")
    assert not app.explorer.state.grouped
    assert len(shown_names(app)) == 179 and shown_names(app)[0].startswith(WGRAD)
    text = screen_text(app)
    assert "179 launches · 0-AI: 34 launches" in text and "single invocations" in text, text
    assert "0-AI: 34 launches (6.1% time)" in text  # Table III's overall row
    await pilot.press("g")
    assert len(shown_names(app)) == 73


async def number_keys_toggle_memory_levels_on_the_roofline(app, pilot) -> None:
    # The sample's H200 has measured L1, L2, HBM and SMEM roofs, and the sample the SMEM
    # counters: four slopes, four point sets.
    assert {r.key for r in figure(app).roofs if r.kind == "bandwidth"} == {"l1", "l2", "hbm", "smem"}
    said: list[str] = []  # recorded: a 2 s toast may time out on a busy machine before it is read
    app.explorer.notify = lambda message, **options: said.append(message)
    try:
        await pilot.press("1")
    finally:
        del app.explorer.notify
    assert said == ["memory levels on the roofline: L2, HBM, SMEM"]  # a toast says what is shown
    assert {s.level for s in figure(app).points} == {"l2", "hbm", "smem"}
    assert {r.key for r in figure(app).roofs if r.kind == "bandwidth"} == {"l2", "hbm", "smem"}
    await pilot.press("2", "3", "4")
    assert figure(app).points == []
    await pilot.press("1", "2", "3", "4")
    assert {s.level for s in figure(app).points} == {"l1", "l2", "hbm", "smem"}


async def z_zooms_the_roofline_and_back(app, pilot) -> None:
    await pilot.press("z")
    assert app.explorer.maximized is not None
    await pilot.press("z")
    assert app.explorer.maximized is None
    assert isinstance(app.focused, KernelTable)


async def export_to_a_missing_folder_says_so_and_escape_cancels(app, pilot, tmp_path) -> None:
    await pilot.press("c")
    app.screen.query_one(Input).value = str(tmp_path / "nope" / "k.csv")
    await pilot.press("enter")
    assert "no such folder" in str(app.screen.query_one("#export-error").render())
    await pilot.press("escape")
    assert isinstance(app.screen, ExplorerScreen)
    assert not (tmp_path / "nope").exists()


async def every_close_key_of_help_and_summary_returns_to_the_explorer(app, pilot) -> None:
    # `?` then `?` (help's footer offers no help: the key closes it) and `?`/`s` then
    # escape: test_keys.py
    for open_key, close_key in [
        ("f1", "escape"),
        ("question_mark", "q"),
        ("s", "s"),
        ("s", "q"),
    ]:
        await pilot.press(open_key)
        assert not isinstance(app.screen, ExplorerScreen), open_key
        await pilot.press(close_key)
        assert isinstance(app.screen, ExplorerScreen), (open_key, close_key)
        assert app.return_code is None  # closing a screen never quits the app


async def brackets_sort_the_column_under_the_cursor_from_the_top_row(app, pilot) -> None:
    # The order itself (both ways, every column) is the model's: test_explorer_model.py.
    # `right`/`left` moving the column cursor are driven in test_table_numbers.py and the
    # snapshots (table scrolled sideways; find, filter and sort by GFLOP/s).
    table = app.explorer.query_one(KernelTable)
    column_of = {column.key: i for i, column in enumerate(table.columns)}
    await pilot.press("down", "down", "down", "right")
    assert table.current_column.key == "gain_s"
    table.cursor_column = column_of["flop_rate"]
    await pilot.press("right_square_bracket")
    rates = list(app.explorer.rows["flop_rate"])
    assert rates == sorted(rates, reverse=True) and "by GFLOP/s▼" in screen_text(app)
    assert table.cursor_row == 0 and app.explorer.selected["flop_rate"] == max(rates)
    await pilot.press("left_square_bracket")
    assert list(app.explorer.rows["flop_rate"]) == sorted(rates)
    table.cursor_column = column_of["gain_s"]
    await pilot.press("right_square_bracket", "home", "left")  # by gain, as it was
    assert app.explorer.state.sort_column == "gain_s" and app.explorer.state.sort_descending


async def slash_finds_n_and_shift_n_step_and_escape_returns(app, pilot) -> None:
    # Where each find lands (first match, wrapping both ways, from the cursor, nowhere) is
    # the model's: test_explorer_model.py; here, that `/`, typing, enter, n, N and escape
    # reach it, and that what it says reaches the user.
    table = app.explorer.query_one(KernelTable)
    everything = shown_names(app)
    matches = [i for i, name in enumerate(everything) if "batchnorm" in name.lower()]
    await pilot.press("slash")
    await type_text(pilot, "BATCHNORM")
    await pilot.press("enter")
    assert table.cursor_row == matches[0] and app.explorer.selected["name"] == everything[matches[0]]
    assert not app.explorer.query_one("#search").display and isinstance(app.focused, KernelTable)
    await pilot.press("n")
    assert table.cursor_row == matches[1]
    await pilot.press("N")  # backwards (wrapping: the model's)
    assert table.cursor_row == matches[0]
    assert shown_names(app) == everything and app.explorer.state.spec.is_empty
    said: list[str] = []  # recorded: a toast may time out on a busy machine before it is read
    app.explorer.notify = lambda message, **options: said.append(message)
    try:
        await pilot.press("end", "slash")
        await type_text(pilot, "sm90_xmma")
        found = next(i for i, n in enumerate(everything) if n.startswith("sm90_xmma"))
        assert table.cursor_row == found
        await type_text(pilot, "_no_such_kernel")  # matches nothing: said, and the cursor stays
        assert table.cursor_row == found
    finally:
        del app.explorer.notify
    assert said == ["no kernel shown matches 'sm90_xmma_no_such_kernel'"]
    await pilot.press("escape")  # a find abandoned: back where it started
    assert table.cursor_row == len(everything) - 1 and isinstance(app.focused, KernelTable)
    await pilot.press("home")


async def enter_opens_the_details_and_d_closes_them(app, pilot) -> None:
    detail = app.explorer.query_one(DetailPane)
    await pilot.press("enter")
    await pilot.pause()
    assert detail.display and "roofs per level" in screen_text(app)
    await pilot.press("d")
    assert not detail.display
    await pilot.press("d")
    assert detail.display
    await pilot.press("d")
    assert not detail.display and isinstance(app.focused, KernelTable)


async def t_does_nothing_without_a_trace(app, pilot) -> None:
    # and help does not offer it: it lists the bindings check_action allows (with a trace,
    # every key of the explorer is in its help: test_keys.py)
    assert app.explorer.check_action("timeline", ()) is False
    await pilot.press("t")
    assert isinstance(app.screen, ExplorerScreen)


async def clicking_a_header_sorts_and_clicking_again_reverses(app, pilot) -> None:
    table = app.explorer.query_one(KernelTable)
    # %roof: in view at 100 columns (AI HBM, clicked here before, now scrolls).
    roof = next(i for i, c in enumerate(COLUMNS) if c.key == "roof_fraction")
    x = table.column_offset(roof) + 2
    await pilot.click(KernelTable, offset=(x, 0))
    assert app.explorer.state.sort_column == "roof_fraction" and app.explorer.state.sort_descending
    fractions = app.explorer.rows["roof_fraction"].dropna().tolist()
    assert fractions == sorted(fractions, reverse=True) and len(fractions) > 60
    await pilot.click(KernelTable, offset=(x, 0))
    assert not app.explorer.state.sort_descending
    assert app.explorer.rows["roof_fraction"].dropna().tolist() == sorted(fractions)
    await pilot.click(KernelTable, offset=(3, 3))  # the third row on screen
    row = int(table.scroll_y) + 2
    assert table.cursor_row == row
    assert app.explorer.selected["name"] == shown_names(app)[row]
    gain = next(i for i, c in enumerate(COLUMNS) if c.key == "gain_s")
    await pilot.click(KernelTable, offset=(table.column_offset(gain) + 2, 0))  # by gain, as it was
    await pilot.press("home")


async def p_chooses_which_compute_roofs_are_drawn(app, pilot) -> None:
    assert compute_roofs(app) == {"tensor_fp16", "fp16", "fp32", "fp64"}
    await pilot.press("p")
    assert isinstance(app.screen, PipelinesScreen)
    assert app.screen.query_one(SelectionList).selected == [
        "fp64",
        "fp32",
        "fp16",
        "tensor_fp16",
    ]
    await pilot.press("end", "space", "enter")  # untick Tensor FP16
    assert isinstance(app.screen, ExplorerScreen)
    assert compute_roofs(app) == {"fp16", "fp32", "fp64"}
    await pilot.press("p", "space", "escape")  # cancelling changes nothing
    assert compute_roofs(app) == {"fp16", "fp32", "fp64"}
    await pilot.press("p", "end", "space", "enter")  # ticked again, as it was
    assert compute_roofs(app) == {"tensor_fp16", "fp16", "fp32", "fp64"}


async def e_exports_the_view_as_svg_c_the_filtered_table_and_q_quits(app, pilot, folder) -> None:
    svg, csv = folder / "view.svg", folder / "kernels.csv"
    await pilot.press("e")
    assert isinstance(app.screen, ExportScreen)
    app.screen.query_one(Input).value = str(svg)
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()
    await pilot.press("f")
    await type_text(pilot, "batchnorm")
    await pilot.press("escape", "c")
    app.screen.query_one(Input).value = str(csv)
    await pilot.press("enter")
    await pilot.pause()
    shown = app.explorer.rows
    await pilot.press("q")
    await pilot.pause()
    assert app.return_code == 0
    text = svg.read_text()
    assert text.startswith("<svg") and "73&#160;kernels,&#160;179&#160;launches" in text
    exported = pd.read_csv(csv)
    assert list(exported["name"]) == list(shown["name"]) and len(exported) == 3
    assert list(exported["count"]) == list(shown["count"])
    assert exported["time_s"].tolist() == pytest.approx(shown["time_s"].tolist())


async def test_keys_that_come_back_where_they_started(sample_app, tmp_path):
    app = sample_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await run_in_turn(
            app,
            pilot,
            [
                opens_grouped_most_to_gain_first_with_totals,
                navigation_keys_reach_both_ends,
                brackets_sort_the_column_under_the_cursor_from_the_top_row,
                slash_finds_n_and_shift_n_step_and_escape_returns,
                enter_opens_the_details_and_d_closes_them,
                t_does_nothing_without_a_trace,
                shift_f_hides_and_shows_the_filter_bar,
                g_switches_between_grouped_kernels_and_single_invocations,
                number_keys_toggle_memory_levels_on_the_roofline,
                z_zooms_the_roofline_and_back,
                partial(export_to_a_missing_folder_says_so_and_escape_cancels, tmp_path=tmp_path),
                every_close_key_of_help_and_summary_returns_to_the_explorer,
                clicking_a_header_sorts_and_clicking_again_reverses,
                p_chooses_which_compute_roofs_are_drawn,
            ],
        )
        # last, as it ends the app
        await e_exports_the_view_as_svg_c_the_filtered_table_and_q_quits(app, pilot, tmp_path)


async def f_focuses_the_name_filter_and_typing_filters_table_and_roofline(app, pilot) -> None:
    await pilot.press("f")
    assert app.focused.id == "filter-name"
    await type_text(pilot, "BatchNorm")
    names = shown_names(app)
    assert len(names) == 3 and all(n.startswith("batchnorm_") for n in names)
    heavy = [s for s in figure(app).points if s.emphasis == "heavy" and s.level == "hbm"]
    assert len(heavy[0].xs) == 3
    launches = int(app.explorer.rows["count"].sum())
    assert f"3 kernels, {launches} launches" in screen_text(app)
    await pilot.press("escape")
    assert isinstance(app.focused, KernelTable)
    await pilot.press("x", "home")


async def regex_filter_and_a_bad_regex_keeps_the_last_good_filter(app, pilot) -> None:
    from rooftui.views.tui.ascii import box

    bar = app.explorer.query_one(FilterBar)
    assert f"{box(False, False)} regex" in screen_text(app)  # a checkbox's character says it
    bar.query_one("#filter-regex", Checkbox).value = True
    await pilot.pause()
    assert f"{box(True, False)} regex" in screen_text(app)  # (in ASCII: test_dialogs_ascii.py)
    await pilot.press("f")
    await type_text(pilot, "^sm[89]0_xmma")
    names = shown_names(app)
    assert len(names) == 16
    assert all(n.startswith(("sm80_xmma_", "sm90_xmma_")) for n in names)
    await type_text(pilot, "(")
    assert shown_names(app) == names
    assert "regular expression" in str(bar.query_one("#filter-error").render())
    assert bar.has_class("-invalid")
    await pilot.press("escape", "x", "home")


async def a_tab_in_a_pasted_burst_moves_to_the_next_filter_field(app, pilot) -> None:
    from textual import events

    await pilot.press("f")
    app.focused.post_message(events.Paste("batchnorm\t"))
    await pilot.pause()
    assert app.explorer.query_one("#filter-name").value == "batchnorm"
    assert app.focused.id == "filter-regex"  # the Tab was not lost
    assert len(shown_names(app)) == 3
    await pilot.press("escape", "x", "home")


async def filter_bar_selects(app, pilot) -> None:
    # one choice of each select reaches the view (every choice's rows on the sample:
    # test_explorer_model.py's FILTER_BAR_CHOICES), each set alone and set back to what
    # it was before the next (a choice left behind would shrink what the next one shows)
    from tests.tui.test_explorer_model import FILTER_BAR_CHOICES

    on_screen = {}  # the first choice of each select
    for choice in FILTER_BAR_CHOICES:
        on_screen.setdefault(choice[0], choice)
    assert len(on_screen) == 4
    for field, value, count, column, allowed in on_screen.values():
        widget = f"#filter-{field.replace('_', '-')}"
        select = app.explorer.query_one(widget, Select)
        before, select.value = select.value, value
        await pilot.pause()
        assert getattr(app.explorer.state.spec, field) == value, widget
        rows = app.explorer.rows
        assert (len(rows), set(rows[column]) <= allowed) == (count, True), (widget, value)
        select.value = before
        await pilot.pause()
        assert len(app.explorer.rows) == 73
    await pilot.press("home")  # a filter keeps the selected kernel: back to the top


async def ai_range_at_a_chosen_level_and_top_n(app, pilot) -> None:
    bar = app.explorer.query_one(FilterBar)
    bar.query_one("#filter-level", Select).value = "l1"
    await pilot.pause()
    bar.query_one("#filter-ai-min", Input).focus()
    await type_text(pilot, "10")
    assert len(shown_names(app)) == 20 and app.explorer.rows["ai_l1"].min() >= 10
    bar.query_one("#filter-ai-max", Input).focus()
    await type_text(pilot, "100")
    assert len(shown_names(app)) == 11 and app.explorer.rows["ai_l1"].max() <= 100
    await pilot.press("escape", "x")
    assert len(shown_names(app)) == 73
    bar.query_one("#filter-top", Input).focus()
    await type_text(pilot, "2")
    assert len(shown_names(app)) == 2 and shown_names(app)[0].startswith(WGRAD)
    await type_text(pilot, "a")
    error = str(bar.query_one("#filter-error").render())
    assert "top N must be a positive whole number" in error
    assert len(shown_names(app)) == 2
    await pilot.press("escape", "x", "home")
    bar.query_one("#filter-level", Select).value = "hbm"
    await pilot.pause()


async def x_clears_every_filter(app, pilot) -> None:
    app.explorer.query_one("#filter-zero-ai", Select).value = "only"
    await pilot.pause()
    await pilot.press("f")
    await type_text(pilot, "vectorized")
    await pilot.press("escape")
    assert len(shown_names(app)) == 4
    await pilot.press("x")
    assert len(shown_names(app)) == 73 and app.explorer.state.spec.is_empty
    assert app.explorer.query_one("#filter-name", Input).value == ""
    await pilot.press("home")


async def test_the_filter_bar_filters_and_x_clears(sample_app):
    app = sample_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await run_in_turn(
            app,
            pilot,
            [
                f_focuses_the_name_filter_and_typing_filters_table_and_roofline,
                a_tab_in_a_pasted_burst_moves_to_the_next_filter_field,
                regex_filter_and_a_bad_regex_keeps_the_last_good_filter,
                filter_bar_selects,
                ai_range_at_a_chosen_level_and_top_n,
                x_clears_every_filter,
            ],
        )


async def test_a_report_that_cannot_be_read_ends_the_app_with_its_error(tmp_path):
    from textual.worker import WorkerCancelled

    from rooftui.errors import RooftuiError
    from rooftui.views.tui.app import make_app

    broken = tmp_path / "broken.csv"
    broken.write_text("not,a,report\n1,2,3\n")
    app = make_app([broken])
    async with app.run_test(size=SIZE) as pilot:
        # The failed load ends the app, and its exit cancels the workers left: a worker
        # that ended before the test looks at it is cancelled by then, not failed.
        for worker in list(app.workers):
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()
        await pilot.pause()
    assert app.return_code == 2
    assert isinstance(app.load_error, RooftuiError) and "broken.csv" in str(app.load_error)


async def the_whole_explorer_is_ascii_and_grey(app, pilot) -> None:
    """In ASCII mode under NO_COLOR (test_chart_base.py's app for the roofline, at 100x32):
    --ascii decides every character on screen, NO_COLOR every colour."""
    assert app.no_color
    colours = {
        segment.style.color.triplet
        for strip in app.screen._compositor.render_strips()
        for segment in strip
        if segment.style and segment.style.color and segment.style.color.triplet
    }
    assert colours and all(c.red == c.green == c.blue for c in colours)
    await pilot.press("down", "right", "right")
    text = screen_text(app)
    assert sorted({ch for ch in text if ord(ch) > 127}) == []
    assert "73 kernels, 179 launches | 0-AI: 34 launches" in text


async def test_loading_runs_in_a_worker_and_shows_its_progress(monkeypatch, sample_run):
    """The UI stays live while the reports load; the worker only posts messages."""
    import threading

    import rooftui.analysis
    from rooftui.views.tui.app import make_app

    release = threading.Event()

    def slow_load_run(paths, ceilings=None, progress=None, **options):
        progress(1, 2, "first report read")
        release.wait(10)
        return sample_run

    monkeypatch.setattr(rooftui.analysis, "load_run", slow_load_run)
    app = make_app(["a.csv", "b.csv"])
    async with app.run_test(size=SIZE) as pilot:
        bar = app.explorer.query_one("#loading-progress")
        while bar.total is None:  # until the worker's first progress message is handled
            await pilot.pause()
        assert app.explorer.query_one("#loading").display
        assert (bar.total, bar.progress) == (2, 1)
        assert "Loading reports… first report read" in screen_text(app)
        await pilot.press("question_mark")  # the app answers keys while loading
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        release.set()
        await loaded(pilot)
        assert not app.explorer.query("#loading")  # shown only while loading
        assert len(shown_names(app)) == 73


def roofline_pane(app) -> tuple:
    """The roofline pane as the screen shows it: its size, the legend's rows, the plot's
    rows and the legend's text."""
    from rooftui.views.tui.widgets.roofline import RooflinePane

    pane = app.explorer.query_one(RooflinePane)
    legend = pane.query_one("#roofline-legend")
    rows = tuple(app.explorer.query_one(RooflineCanvas).layout_.text_rows())
    return tuple(pane.size), legend.size.height, rows, legend.render().plain


def drawn_by_a_fresh_model(app, pane: tuple[int, int], row: int = 0) -> tuple:
    """``roofline_pane`` as a fresh explorer model with row ``row`` selected draws it."""
    from rooftui.views.tui.explorer_model import ExplorerModel

    model = ExplorerModel(app.explorer.state.run)
    model.select(row)
    model.update_roofline()
    drawn = model.roofline_picture(*pane)
    return pane, drawn.legend_rows, tuple(drawn.plot_rows), drawn.legend.plain


async def redrawn(pilot) -> None:
    for _ in range(3):  # the redraw waits on a debounce timer a loaded machine may not reach
        await pilot.pause()
        pilot.app.explorer.flush_redraw()
    await pilot.pause()


async def test_resizing_redraws_the_roofline_and_on_a_narrow_terminal_details_cover_the_table(sample_app):
    # plotext's own log scale crashed on the first resize; ours re-plots log10 values.
    # At each size the screen shows what a fresh model draws for the pane's size, and the
    # pane has the size test_legend_layout.py's model tests use (PANE).
    from tests.tui.test_detail import DETAIL_WIDTH_AT_120x40
    from tests.tui.test_legend_layout import PANE

    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert not app.explorer.query_one(FilterBar).display  # 24 rows: the plot needs them
        small = figure(app)
        at_start = roofline_pane(app)
        assert at_start == drawn_by_a_fresh_model(app, PANE["80x24"])
        # what the full legend could not say is on the status line (test_explorer_model.py:
        # what the model says for a width; the legend's rows: test_legend_layout.py)
        from rooftui.views.tui.widgets.roofline import RooflinePane

        hidden = [said.text for said in app.explorer.query_one(RooflinePane).overflow]
        assert hidden and all(text not in at_start[3] for text in hidden)
        assert "FP32 65.7 TFLOP/s (empirical)" in hidden
        status = screen_text(app).splitlines()[app.explorer.query_one("#status").region.y]
        # 78 columns inside the status line's padding: two short of naming the three roofs
        # (test_explorer_model.py names them at 80), so they are counted
        assert "legend full: 3 roofs, sources" in status and "0-AI: 34 launches" in status
        assert "by gain▼" in status
        # 160x48, once here too, ran the same lines of rooftui/views/tui as 200x60 (a line
        # trace of each resize and its fresh-model drawing; only one more bounds check
        # when placing a label, the model's: test_roofline_layout.py)
        for size in ((200, 60), (120, 40), (100, 30), (80, 24)):
            await pilot.resize_terminal(*size)
            if size in ((200, 60), (80, 24)):
                await pilot.press("F")  # the filter bar as a start at this size shows it
            await redrawn(pilot)
            canvas = app.explorer.query_one(RooflineCanvas)
            assert figure(app) is not small
            assert figure(app).x_range == small.x_range  # same data, same decades
            assert canvas.size.width == size[0]
            shown = roofline_pane(app)
            assert shown == drawn_by_a_fresh_model(app, PANE.get(f"{size[0]}x{size[1]}", shown[0]))
            if size == (120, 40):  # the width test_detail.py lays the details out for
                await pilot.press("enter")
                await pilot.pause()
                assert app.explorer.query_one(DetailPane).text_width == DETAIL_WIDTH_AT_120x40
                await pilot.press("d")
            if size == (200, 60):  # the second kernel's details beside the table
                await pilot.press("down", "enter")
                await redrawn(pilot)
                assert roofline_pane(app) == drawn_by_a_fresh_model(app, PANE["200x60 details open"], 1)
                await pilot.press("d", "up")
        assert roofline_pane(app) == at_start  # a resize and back restores the layout
        assert "73 kernels · 0-AI: 34 launches" in screen_text(app)  # at 80 columns
        # back at 80x24, where it started: the details cover the table until escape
        assert not app.explorer.query_one(FilterBar).display  # 24 rows: the plot needs them
        await pilot.press("enter")
        await pilot.pause()
        assert not app.explorer.query_one("#main").display
        assert isinstance(app.focused, DetailPane)
        assert "roofs per level" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.explorer.query_one("#main").display
        assert not app.explorer.query_one(DetailPane).display
        assert isinstance(app.focused, KernelTable)
        await pilot.press("f")
        assert app.explorer.query_one(FilterBar).display and app.focused.id == "filter-name"
