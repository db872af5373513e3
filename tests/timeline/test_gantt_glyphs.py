"""The Gantt readable without colour and in ASCII (issue 24 item 7): a glyph of its own
per kind of work, rows exactly as wide as the screen gives them (a lane that wraps reads
as two lanes), ASCII only with --ascii."""

from __future__ import annotations

import pytest

from rooftui.timeline.gantt import step_gantt
from tests.timeline.test_timeline_screen import screen_text


def glyph_kinds(chart) -> dict[str, set[str]]:
    """Which kinds each glyph stands for, over every cell but the ranges' names."""
    seen: dict[str, set[str]] = {}
    for row in chart.rows:
        for char, kind in zip(row.chars, row.kinds, strict=True):
            if kind and not kind.startswith("range:"):
                seen.setdefault(char, set()).add(kind)
    return seen


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
@pytest.mark.parametrize("width", [40, 68, 188])
def test_every_row_is_as_wide_as_asked_and_ascii_is_ascii(naive_analysis, width, ascii_mode):
    for step in range(len(naive_analysis.steps)):
        chart = step_gantt(naive_analysis, step, width, ascii_mode=ascii_mode)
        lines = [row.text() for row in chart.rows] + [chart.axis]
        assert {len(line) for line in lines} == {width}
        if ascii_mode:
            legend = "".join(glyph + name for name, _, glyph in chart.legend)
            assert all(line.isascii() for line in lines) and legend.isascii()


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
def test_each_kind_of_work_has_a_glyph_of_its_own(naive_analysis, ascii_mode):
    item = next(f for f in naive_analysis.findings if f.kind == "blocking_copy")
    place = item.places[0]
    step = next(i for i, s in enumerate(naive_analysis.steps) if s.number == place.step)
    chart = step_gantt(naive_analysis, step, 188, marker=place, ascii_mode=ascii_mode)
    seen = glyph_kinds(chart)
    # the naive step holds kernels, pageable copies, memsets, host waits, idle time, a marker
    kinds = set().union(*seen.values())
    assert kinds >= {"kernel", "copy_pageable", "memset", "sync", "idle", "stream_idle", "marker"}
    assert all(len(kinds_of_glyph) == 1 for kinds_of_glyph in seen.values()), seen  # was "#"/"█" for all
    legend = [glyph for _, _, glyph in chart.legend]
    assert len(set("".join(legend))) == len("".join(legend)) and len(legend) == 7
    said = {kind: glyphs for _, kind, glyphs in chart.legend}
    for glyph, (kind,) in seen.items():  # what the legend says a glyph is, it is
        assert kind == "stream_idle" or glyph in said[kind]


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
async def test_at_80_columns_each_lane_is_one_line(naive_analysis, ascii_mode):
    from rooftui.views.tui.screens.timeline import make_timeline_app

    app = make_timeline_app(naive_analysis, ascii_mode=ascii_mode)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = screen_text(app).splitlines()
    labels = ["ranges", "ranges 2", "host waits", "stream 7", "GPU idle", "finding"]
    first = next(i for i, line in enumerate(lines) if line.startswith(f" {'ranges':>11} "))
    # one lane per line, in order, each starting with its label (was: the ranges' names
    # cut with "..." ran past the edge and wrapped onto a line of their own)
    assert [line[1:12].strip() for line in lines[first : first + len(labels)]] == labels
    tick = ":" if ascii_mode else "┆"
    assert lines[first + len(labels)].strip().startswith(f"{tick}0.0 ms")
    if ascii_mode:
        assert all(line.isascii() for line in lines)
