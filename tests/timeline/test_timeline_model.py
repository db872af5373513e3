"""The Timeline screen without an app: ``TimelineModel`` on the real naive trace.

What the screen shows (the step, the Gantt and its lanes' heights, the findings, the
detail, the jump and the zoom) and how it shares a terminal's rows are decided by the
model; test_timeline_screen.py keeps the wiring of keys and widgets to it.
"""

from __future__ import annotations

import pytest

from rooftui.views.tui.timeline_model import FIXED_ROWS, GANTT_PADDING, TimelineModel, grows


@pytest.fixture
def model(naive_analysis) -> TimelineModel:
    return TimelineModel(naive_analysis)


def item_copy(analysis) -> int:
    """The blocking ``.item()`` copy: the fifth finding of the naive trace."""
    return next(i for i, f in enumerate(analysis.findings) if f.kind == "blocking_copy")


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
def test_every_row_of_the_terminal_goes_to_a_part_and_every_finding_shows(model, size):
    rows = model.rows(*size)
    assert FIXED_ROWS + rows.gantt + rows.table + rows.detail == size[1]
    assert rows.table >= len(model.findings) + 1  # the header and every finding
    lanes = model.chart(size[0] - GANTT_PADDING).rows
    growing = sum(grows(row) for row in lanes)
    assert rows.gantt == len(lanes) + (rows.lane_height - 1) * growing + 2  # lanes, axis, legend


def test_the_lanes_grow_with_the_terminal_and_leave_no_block_of_blank_rows(model):
    heights = [model.rows(*size).lane_height for size in [(80, 24), (120, 40), (200, 60)]]
    assert heights[0] == 1 and heights[0] < heights[1] < heights[2]
    # At 120x40 the list keeps fewer blank rows than one more row per growing lane needs
    # (there were 17 blank rows before the lanes grew).
    rows = model.rows(120, 40)
    growing = sum(grows(row) for row in model.chart(120 - GANTT_PADDING).rows)
    assert rows.table - (len(model.findings) + 1) < growing


@pytest.mark.parametrize("lane_height", [1, 3])
def test_a_taller_lane_repeats_its_cells_and_names_itself_once(model, lane_height):
    width = 100
    lines = model.gantt(width, lane_height).plain.splitlines()
    chart = model.chart(width)
    expected = sum(lane_height if grows(row) else 1 for row in chart.rows) + 2
    assert len(lines) == expected
    assert all(len(line) <= width for line in lines)
    stream = next(i for i, line in enumerate(lines) if line.strip().startswith("stream"))
    for follower in lines[stream + 1 : stream + lane_height]:
        assert follower[12:] == lines[stream][12:] and not follower[:12].strip()
    ranges = [line for line in lines if line.strip().startswith("ranges")]
    assert len(ranges) == sum(not grows(row) and row.label.startswith("ranges") for row in chart.rows)


def test_brackets_change_the_step_within_the_trace(model):
    assert model.step_line().plain.startswith("step 2 (1 of 4)")
    model.next_step()
    model.next_step()
    assert model.step_index == 2 and model.step_line().plain.startswith("step 4 (3 of 4)")
    for _ in range(3):
        model.previous_step()
    assert model.step_index == 0  # kept at the first step


def test_enter_jumps_to_the_findings_places_in_turn(model, naive_analysis):
    item = item_copy(naive_analysis)
    places = naive_analysis.findings[item].places
    model.select(item)
    assert model.jump()
    assert model.marker == places[0]
    assert naive_analysis.steps[model.step_index].number == places[0].step
    assert "aten::item > aten::_local_scalar_dense" in model.detail().plain
    assert "▲" in model.gantt(100).plain
    assert model.jump()
    assert model.marker == places[1]
    assert naive_analysis.steps[model.step_index].number == places[1].step


def test_z_on_a_finding_jumps_to_its_place_and_zooms_in_then_out(model, naive_analysis):
    item = item_copy(naive_analysis)
    model.select(item)
    assert model.zoom() is None  # no Enter needed first
    place = naive_analysis.findings[item].places[0]
    step = naive_analysis.steps[model.step_index]
    assert model.marker == place and step.number == place.step
    start, end = model.window
    assert step.start <= start <= place.start < place.end <= end <= step.end
    assert end - start < step.duration
    assert "zoomed to" in model.step_line().plain
    model.zoom()
    assert model.window is None and model.marker == place  # out again, the place still marked
    # z on another finding moves to that finding's place
    model.select(0)
    model.zoom()
    assert model.marker == naive_analysis.findings[0].places[0] and model.zoomed
    model.next_step()  # a new step: the whole step, nothing marked
    assert model.window is None and model.marker is None


def test_escape_leaves_the_zoom_first(model):
    model.zoom()
    assert model.escape() is True and model.window is None
    assert model.escape() is False


def test_ascii_mode_shows_nothing_but_ascii(naive_analysis):
    model = TimelineModel(naive_analysis, ascii_mode=True)
    model.select(item_copy(naive_analysis))
    model.zoom()
    texts = [model.summary().plain, model.step_line().plain, model.gantt(80, 2).plain, model.detail().plain]
    texts += [" ".join(cells) for cells in model.finding_rows()]
    assert all(text.isascii() for text in texts)
    assert "^" in texts[2]  # the finding's mark


def test_a_trace_without_findings_says_so(built_fixed):
    from rooftui.timeline import analyze_trace

    model = TimelineModel(analyze_trace(built_fixed))
    assert model.findings == []
    assert model.detail().plain == "No stalls found in this trace."
    assert model.zoom() == "no finding to zoom in on" and not model.zoomed
    assert model.rows(80, 24).lane_height > 1  # the rows an empty list leaves go to the lanes


@pytest.mark.parametrize("width", [80, 120])
def test_the_findings_list_fits_the_width_with_names_shortened_not_cut(model, naive_analysis, width):
    widths = model.column_widths(width)
    assert sum(w + 2 for w in widths) + 2 <= width  # every column on screen, the last too
    rows = model.finding_rows(width)
    assert all(len(cell) <= w for row in rows for cell, w in zip(row, widths))
    host_calls = [row[-1] for row in rows]
    item = item_copy(naive_analysis)
    whole = naive_analysis.findings[item].host_call
    if len(whole) <= widths[-1]:
        assert host_calls[item] == whole
    else:  # shortened with an ellipsis, not cut off at the screen's edge
        assert host_calls[item].endswith("…") and whole.startswith(host_calls[item][:-1])
    assert [row[3] for row in rows] == [
        "GPU idle",
        "serial data loading",
        "launch-bound",
        "pageable copy",
        "blocking copy",
    ]
