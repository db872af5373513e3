"""The roofline laid out on character cells, checked cell by cell.

For every cell a label covers, what the cell held before labels were placed must
be blank or that label's own line: never a point, never another roof's or slope's
line, never another label. Point cells are computed here from the figure's
numbers, independently of the layout's own bookkeeping.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from rooftui.views.tui.roofline_layout import ASCII, UNICODE, lay_out
from rooftui.views.tui.roofline_model import EXPLORER_HEADROOM, build_figure

REPO = Path(__file__).resolve().parents[2]
INPUTS = {
    "sample": None,
    "known_answer": REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv",
    "deepcam": REPO / "sample_data" / "deepcam" / "deepcam_amp.raw-base.csv.xz",
}
# Terminal sizes, and the roofline canvas the explorer gives each of them.
SIZES = {(80, 24): (80, 10), (100, 30): (100, 13), (120, 40): (120, 19), (200, 60): (200, 32)}


@pytest.fixture(scope="module", params=list(INPUTS))
def view(request):
    from rooftui.sample import sample_paths
    from rooftui.views.tui.view_state import ViewState
    from tests.tui.conftest import prepared_run

    path = INPUTS[request.param]
    run = prepared_run([path] if path else sample_paths())
    return run, ViewState(run)


def figure_for(view, grouped: bool, size: tuple[int, int]):
    run, state = view
    state.grouped = grouped
    positions = state.positions()
    frame = state.plot_rows(positions)
    # as the explorer's canvas builds it
    return build_figure(
        frame,
        run.ceilings,
        pipelines=state.shown_pipelines(),
        cells=size,
        selected=state.rows(positions).iloc[0],
        zoom=True,
        headroom=EXPLORER_HEADROOM,
    )


def point_cells(figure, layout) -> set[tuple[int, int]]:
    """Where each point must be, from its coordinates alone."""
    left, top, cols, rows = layout.plot
    (x_lo, x_hi), (y_lo, y_hi) = figure.x_range, figure.y_range
    cells = set()
    series = [(x, y) for s in figure.points for x, y in zip(s.xs, s.ys)]
    series += [(x, y) for _, x, y in figure.selected]
    for x, y in series:
        col = min(cols - 1, max(0, math.floor((x - x_lo) / (x_hi - x_lo) * cols)))
        row = min(rows - 1, max(0, math.floor((y_hi - y) / (y_hi - y_lo) * rows)))
        cells.add((top + row, left + col))
    return cells


def assert_no_label_hides_anything(figure, layout, ascii_mode: bool) -> None:
    glyphs = ASCII if ascii_mode else UNICODE
    if ascii_mode:
        assert all(char.isascii() for row in layout.chars for char in row)
    markers = {m for by_level in glyphs.markers.values() for m in by_level.values()} | {glyphs.selected}
    points = point_cells(figure, layout)
    assert points, "no point drawn"
    for row, col in points:
        assert layout.kinds[row][col] == "point", f"point at {row},{col} covered by {layout.kinds[row][col]}"
        assert layout.chars[row][col] in markers
    covered: dict[tuple[int, int], str] = {}
    for label in layout.labels:
        for i, char in enumerate(label.text):
            cell = (label.row, label.col + i)
            assert cell not in covered, f"{label.text!r} overlaps {covered[cell]!r}"
            covered[cell] = label.text
            assert layout.chars[label.row][label.col + i] == char  # nothing drawn over the label
            kind, owner = layout.before_labels[cell[0]][cell[1]]
            assert kind in ("", "line"), f"{label.text!r} covers a {kind} at {cell}"
            lines = layout.line_series.get(cell, set())
            assert lines <= {label.series}, f"{label.text!r} covers the line of {lines - {label.series}}"
        if label.series != "tag":
            # On its line's row or the next one, never two rows away.
            rows = {
                r
                for (r, c), owners in layout.line_series.items()
                if label.series in owners and label.col - 1 <= c <= label.col + len(label.text)
            }
            assert rows & {label.row - 1, label.row, label.row + 1}, f"{label.text!r} is away from its line"


@pytest.mark.parametrize("size", list(SIZES), ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "invocations"])
def test_no_label_covers_a_point_a_line_or_another_label(view, size, ascii_mode, grouped):
    for width, height in (size, SIZES[size]):
        figure = figure_for(view, grouped, (width - 8, height - 3))
        layout = lay_out(figure, width, height, ascii_mode=ascii_mode)
        assert_no_label_hides_anything(figure, layout, ascii_mode)
        text = "\n".join(layout.text_rows())
        assert "FLOP/s" in text and "FLOP/byte" in text  # both axis titles, at every size


def test_every_roof_is_labelled_on_the_plot_or_named_in_the_legend(view):
    from rooftui.views.tui.roofline_layout import short_label

    for width, height in list(SIZES) + list(SIZES.values()):
        figure = figure_for(view, True, (width - 8, height - 3))
        layout = lay_out(figure, width, height)
        drawn = {label.text for label in layout.labels}
        for roof in figure.roofs:
            # full label on the plot (value and source), else the pane's legend lists it
            assert roof.key in layout.labelled or roof.label not in drawn
            if roof.key in layout.labelled:
                assert roof.label in drawn
            assert short_label(roof) in roof.label


def test_ascii_draws_each_slope_and_roof_with_its_own_character():
    run_figure = build_figure(*_two_level_table(), pipelines=["fp64", "fp32", "tensor_fp16"], cells=(72, 27))
    layout = lay_out(run_figure, 80, 30, ascii_mode=True)
    drawn = {}
    for row, col in layout.line_series:
        if layout.kinds[row][col] == "line":
            drawn.setdefault(layout.owners[row][col], set()).add(layout.chars[row][col])
    assert drawn["l1"] == {"/"} and drawn["l2"] == {":"} and drawn["hbm"] == {"'"}
    roofs = [drawn[r.key] for r in run_figure.roofs if r.kind == "compute"]
    assert roofs == [{"="}, {"-"}]


def test_without_colour_the_slopes_differ_by_dash_pattern():
    figure = build_figure(*_two_level_table(), pipelines=["fp64"], cells=(112, 37))
    layout = lay_out(figure, 120, 40)
    gaps = {}
    for level in ("l1", "l2", "hbm"):
        path = [cell for cell, owners in layout.line_series.items() if level in owners]
        drawn = [cell for cell in path if layout.kinds[cell[0]][cell[1]] == "line"]
        gaps[level] = 1 - len(drawn) / len(path)
    assert gaps["l1"] < 0.05 < gaps["l2"] < gaps["hbm"]  # solid, dashed, dotted


def test_the_heaviest_kernels_are_tagged_1_to_5_beside_their_own_points():
    from rooftui.views.tui.roofline_model import tags_for

    frame, ceilings = _two_level_table()
    figure = build_figure(frame, ceilings, pipelines=["fp64", "fp32", "tensor_fp16"], cells=(112, 37))
    assert figure.tags == tags_for(frame)
    heaviest = frame[frame["flops"] > 0].sort_values("time_s", ascending=False, kind="stable").index[:5]
    assert list(figure.tags) == list(heaviest) and list(figure.tags.values()) == ["1", "2", "3", "4", "5"]
    layout = lay_out(figure, 120, 40)
    for label in layout.labels:
        if label.series == "tag":
            mine = [p for p in layout.points if p.kernel == label.kernel]
            assert any(abs(p.row - label.row) <= 1 and abs(p.col - label.col) <= 1 for p in mine)
    assert {label.text for label in layout.labels if label.series == "tag"} == {"1", "2", "3", "4", "5"}


def test_slow_kernels_with_little_time_sit_on_the_bottom_edge_and_are_counted():
    frame, ceilings = _two_level_table()
    slow = frame.iloc[[0]].assign(flop_rate=1.0e3, flops=1.0, time_s=1e-9).set_axis([999])
    import pandas as pd

    figure = build_figure(pd.concat([frame, slow]), ceilings, pipelines=["fp64"], zoom=True)
    assert figure.y_range[0] > 3  # the axis does not reach down to 1 kFLOP/s
    below = [s for s in figure.points if s.emphasis == "below"]
    assert {s.level for s in below} == {"l1", "l2", "hbm"} and all(list(s.kernels) == [999] for s in below)
    assert figure.below == 1 and "1 below" in figure.note
    full = build_figure(pd.concat([frame, slow]), ceilings, pipelines=["fp64"], zoom=False)
    assert full.y_range[0] <= 3 and full.below == 0


def _two_level_table():
    from tests.tui.synthetic import CEILINGS, kernel_table

    return kernel_table(repeat=2), CEILINGS
