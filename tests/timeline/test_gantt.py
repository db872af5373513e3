"""The Gantt's cells on a hand-made step whose every microsecond is known."""

from __future__ import annotations

import pytest

from rooftui.timeline import analyze_trace
from rooftui.timeline.gantt import step_gantt


@pytest.fixture(scope="module")
def chart(built_naive):
    analysis = analyze_trace(built_naive)
    item = next(f for f in analysis.findings if "DtoH" in f.details.get("copy", ""))
    place = next(p for p in item.places if p.step == 2)
    # 100 columns over the 1000 µs step: one column is 10 µs
    return step_gantt(analysis, 1, 100, marker=place)


def row(chart, label):
    return next(r for r in chart.rows if r.label == label)


def test_rows_are_ranges_host_waits_streams_idle_and_marker(chart):
    assert [r.label for r in chart.rows] == ["ranges", "host waits", "stream 7", "GPU idle", "finding"]
    assert chart.step_label == "step 2"
    assert all(len(r.chars) == 100 for r in chart.rows)


def test_ranges_are_labelled_from_where_they_start(chart):
    text = row(chart, "ranges").text()
    assert text.startswith("▏data_loading")
    assert text[40:48] == "▏forward"  # forward starts at 400 µs
    assert text[60:70] == "▏optimizer"


def test_the_pageable_copy_and_the_kernels_have_their_columns(chart):
    kinds = row(chart, "stream 7").kinds
    assert kinds[31:39] == ["copy_pageable"] * 8  # 310–390 µs
    assert kinds[20] == "stream_idle"
    assert kinds[45] == "kernel"  # the convolutions, 410–590 µs
    assert kinds[79] == "copy_pageable"  # the 4-byte item() copy at 790 µs


def test_idle_columns_are_where_nothing_runs(chart):
    idle = row(chart, "GPU idle")
    assert idle.kinds[10] == "idle"
    assert idle.kinds[50] == ""
    assert idle.text()[95] == "░"  # 950 µs: the host does bookkeeping, GPU idle


def test_the_marker_points_at_the_selected_place(chart):
    marked = [c for c, kind in enumerate(row(chart, "finding").kinds) if kind == "marker"]
    assert marked == [78, 79]  # item() from 782 µs until the sync returns at 798 µs


def test_host_waits_show_the_blocking_copy_calls(chart):
    waits = row(chart, "host waits").kinds
    assert waits[30:40] == ["sync"] * 10  # cudaMemcpyAsync 303–363, then the sync to 397
    assert waits[50] == ""


def test_the_axis_is_in_microseconds_for_a_short_step(chart):
    assert chart.axis.startswith("┆0 µs")
    assert "┆120 µs" in chart.axis


def test_a_zoom_window_is_five_times_the_place_and_stays_in_the_step():
    from rooftui.timeline.finding import Place
    from rooftui.timeline.gantt import zoom_window

    assert zoom_window(0.0, 1.0, Place(1, 0.5, 0.6)) == pytest.approx((0.3, 0.8))
    assert zoom_window(0.0, 1.0, Place(1, 0.0, 0.01)) == pytest.approx((0.0, 0.05))
    assert zoom_window(0.0, 1.0, Place(1, 0.95, 1.0)) == pytest.approx((0.75, 1.0))


def test_a_zoomed_chart_counts_time_from_the_step_start(built_naive):
    analysis = analyze_trace(built_naive)
    step = analysis.steps[0]
    zoomed = step_gantt(analysis, 0, 100, window=(step.start + 300e-6, step.start + 400e-6))
    assert zoomed.axis.startswith("┆300 µs     ┆312 µs")
    assert row(zoomed, "stream 7").kinds[10:90] == ["copy_pageable"] * 80  # 310–390 µs
