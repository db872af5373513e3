"""What every chart widget guarantees (``widgets/chart.py``'s ``ChartCanvas``), checked on
both charts: the explorer's roofline and the compare screen's chart. Each check runs once
per chart, so a chart that stops going through the base fails here: in colour and Unicode,
and resized, in the apps the snapshot tests start anyway (test_snapshots.py,
test_compare_screen.py: ``in_colour_and_unicode_and_redrawn_when_resized``); in ASCII and
without colour, and in the models at every width, below."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from rich.text import Text

from rooftui.views.tui.ascii import BOX_TO_ASCII
from rooftui.views.tui.roofline_layout import LEVEL_COLOURS, SELECTED_COLOUR, plot_cells
from rooftui.views.tui.roofline_model import axis_ticks
from rooftui.views.tui.widgets.chart import ChartCanvas
from tests.tui.conftest import SAMPLE, loaded

CHARTS = ["roofline", "compare"]
BOX_DRAWING = {chr(code) for code in BOX_TO_ASCII}


@pytest.fixture(scope="module")
def comparison(load_once):
    """The DeepCAM FP32 vs AMP runs, as the compare screen's tests use them (read once per
    worker for both: ``load_once``)."""
    from rooftui.analysis.compare import compare_runs
    from tests.compare.conftest import AMP, FP32

    return compare_runs(load_once(FP32), load_once(AMP), "deepcam_fp32", "deepcam_amp")


@asynccontextmanager
async def chart(
    kind: str, size: tuple[int, int], comparison, *, ascii_mode: bool = False
) -> AsyncIterator[tuple[object, ChartCanvas]]:
    """The explorer on the bundled sample, or the compare screen; (pilot, its chart)."""
    if kind == "roofline":
        from tests.tui.conftest import explorer_of

        app = explorer_of([SAMPLE], ascii_mode=ascii_mode)
        async with app.run_test(size=size) as pilot:
            await loaded(pilot)
            yield pilot, chart_of(app, kind)
    else:
        from rooftui.views.tui.screens.compare import CompareApp

        app = CompareApp(comparison, ascii_mode=ascii_mode)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            yield pilot, chart_of(app, kind)


# Terminal sizes each chart is resized to, where the AI axis goes from every other decade
# to every decade between them (WIDTHS below). Every other width is the same code (the
# models at every width: the tests below); a small terminal draws in less CPU.
RESIZED = {"roofline": [(70, 30), (71, 30)], "compare": [(46, 30), (52, 30)]}


def chart_of(app, kind: str) -> ChartCanvas:
    """The chart on screen: the explorer's roofline, or the compare screen's chart."""
    if kind == "roofline":
        from rooftui.views.tui.widgets.roofline import RooflineCanvas

        return app.explorer.query_one(RooflineCanvas)
    from rooftui.views.tui.widgets.compare_chart import CompareCanvas

    return app.screen.query_one(CompareCanvas)


def in_colour_and_unicode_and_redrawn_when_resized(kind: str):
    """A step for an app showing the chart ``kind`` in colour and Unicode, at the first
    level (HBM): test_snapshots.py's 80x24 explorer on the sample, and
    test_compare_screen.py's app on the DeepCAM runs (an app start costs 0.5-1 s of CPU).
    It leaves the terminal at the last size of ``RESIZED``.
    The chart draws its axes in box-drawing characters, in colours, HBM and the selection
    in the same colours on both charts (HBM blue: the roofline's HBM points and slope, the
    compare chart's B points and HBM roof; gold: the selected kernel, the selected pair's
    arrow); resized to each of ``RESIZED``, the canvas gives the chart its new size and
    the chart redraws with the ticks of its new plot area (every width: the model tests
    below), across a change of tick step. The same chart in ASCII and without colour:
    ``test_ascii_mode_draws_only_ascii_and_no_color_only_greys_on_both_charts``."""

    async def run(pilot) -> None:
        app = pilot.app
        canvas = chart_of(app, kind)
        text = canvas.render()
        assert BOX_DRAWING & set(text.plain), kind  # the axes, in box-drawing characters
        assert not all(is_grey(c) for c in chart_colours(shown_on_screen(app, canvas))), kind
        assert {LEVEL_COLOURS["hbm"], SELECTED_COLOUR} <= colours(text), kind
        tick_counts = set()
        for size in RESIZED[kind]:
            before = figure_of(canvas)
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            figure = figure_of(canvas)
            assert figure is not before, (kind, size)  # redrawn
            assert ticks_follow_the_plot_area(figure, tuple(canvas.size)), (kind, size)
            tick_counts.add(len(figure.x_ticks))
        assert len(tick_counts) > 1, kind  # across a change of tick step

    run.__name__ = f"the_{kind}_in_colour_and_unicode_and_redrawn_when_resized"
    return run


def figure_of(canvas):
    """The ``RooflineFigure`` a chart drew last (the compare chart's is its overlay's)."""
    overlay = getattr(canvas, "overlay", None)
    return overlay.figure if overlay is not None else canvas.figure


def shown_on_screen(app, canvas) -> list[list]:
    """The segments the terminal shows in the chart's region, row by row (after the app's
    filters, as NO_COLOR leaves them)."""
    x, y, width, height = canvas.region
    strips = app.screen._compositor.render_strips()
    return [list(strips[row].crop(x, x + width)) for row in range(y, y + height)]


def colours(text: Text) -> set[tuple[int, int, int]]:
    """Every foreground and background colour the chart's picture uses, as RGB."""
    found = set()
    for span in text.spans:
        style = span.style
        for colour in (getattr(style, "color", None), getattr(style, "bgcolor", None)):
            if colour is not None and colour.triplet is not None:
                found.add(tuple(colour.triplet))
    return found


def test_plot_area_is_what_the_axes_leave():
    # 8 columns for the y tick labels and axis, 3 rows for the x axis, its labels and title.
    assert plot_cells(100, 30) == (92, 27)
    assert plot_cells(12, 5) == (10, 4)  # never smaller than 10 x 4


def test_ticks_thin_to_the_room_of_the_plot():
    # x: 7 decades, 0.01 to 10k; the widest label counted is "0.001" (5 + a gap of 2), so 20
    # columns hold 2 labels: every 4th decade. y: 7 decades in 10 rows, one label per 2 rows:
    # every 2nd decade.
    x, y = axis_ticks((-2.0, 4.0), (9.0, 15.0), (20, 10))
    assert x == [(-2.0, "0.01"), (2.0, "100")]
    assert y == [(9.0, "1G"), (11.0, "100G"), (13.0, "10T"), (15.0, "1P")]
    # With room for all, every decade.
    x, _ = axis_ticks((-2.0, 4.0), (9.0, 15.0), (200, 10))
    assert [label for _, label in x] == ["0.01", "0.1", "1", "10", "100", "1k", "10k"]


# Terminal widths around where each chart's AI axis goes from every other decade to every
# decade (the sample's 9 decade ticks in the explorer, 1e-4 to 10k, each given 7 columns
# ("0.001" and a gap of 2): 63 plot columns, the 8 of the y axis added: at 71 columns; the
# comparison's 6 at HBM: at 50): a chart that leaves its axes other cells than plot_cells,
# or thins ticks its own way, draws other ticks at one of them.
WIDTHS = {"roofline": range(66, 76), "compare": range(46, 53)}


def ticks_follow_the_plot_area(figure, size: tuple[int, int]) -> bool:
    """The same rule on both charts: the ticks are axis_ticks of the figure's ranges over
    the plot area the axes leave on a chart of ``size`` cells."""
    return (figure.x_ticks, figure.y_ticks) == axis_ticks(figure.x_range, figure.y_range, plot_cells(*size))


def test_the_roofline_model_thins_ticks_to_the_plot_area_at_every_width():
    from rooftui.views.tui.explorer_model import ExplorerModel
    from tests.tui.conftest import prepared_run

    model = ExplorerModel(prepared_run([SAMPLE]))
    model.update_roofline()
    labels_seen = set()
    for width in WIDTHS["roofline"]:
        picture = model.roofline_picture(width, 20)
        assert ticks_follow_the_plot_area(picture.figure, (picture.layout.width, picture.layout.height))
        labels_seen.add(len(picture.figure.x_ticks))
    assert len(labels_seen) > 1  # the widths do cross a change of tick step


def test_the_compare_model_thins_ticks_to_the_plot_area_at_every_width(comparison):
    from rooftui.views.tui.compare_model import CompareModel

    model = CompareModel(comparison)
    labels_seen = set()
    for width in WIDTHS["compare"]:
        figure = model.chart(width, 20).overlay.figure
        assert ticks_follow_the_plot_area(figure, (width, 20))
        labels_seen.add(len(figure.x_ticks))
    assert len(labels_seen) > 1


def is_grey(colour) -> bool:
    r, g, b = colour.get_truecolor()
    return r == g == b


def chart_colours(rows: list[list]) -> list:
    return [
        c
        for row in rows
        for segment in row
        if segment.style
        for c in (segment.style.color, segment.style.bgcolor)
        if c is not None
    ]


@pytest.mark.parametrize("kind", CHARTS)
async def test_ascii_mode_draws_only_ascii_and_no_color_only_greys_on_both_charts(
    kind, comparison, monkeypatch
):
    # one app per chart in ASCII mode under NO_COLOR (one changes the characters, the
    # other the colours); the same chart in Unicode and colour, with box-drawing axes and
    # colours not all grey: in_colour_and_unicode_and_redrawn_when_resized
    monkeypatch.setenv("NO_COLOR", "1")
    async with chart(kind, (100, 32), comparison, ascii_mode=True) as (pilot, canvas):
        ascii_text = canvas.render().plain
        assert canvas.markers["selected"] == "@" and canvas.markers["line"] == "."
        shown = chart_colours(shown_on_screen(pilot.app, canvas))
        assert shown and all(is_grey(c) for c in shown)
        if kind == "roofline":  # and the rest of the explorer around it (one app for both)
            from tests.tui.test_explorer import the_whole_explorer_is_ascii_and_grey

            await the_whole_explorer_is_ascii_and_grey(pilot.app, pilot)
    assert ascii_text.strip() and ascii_text.isascii()
    assert "|" in ascii_text and "+" in ascii_text  # the axes, in ASCII
