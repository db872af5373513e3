"""``TimelineModel`` makes each Gantt once and reuses it: what it gives after any walk
through the keys is what a model made afresh in that state gives, and a key that changes
the Gantt (step, jump, zoom) never gets an old one.

The independent answer is a fresh ``TimelineModel`` put in the same state, which has
nothing to reuse."""

from __future__ import annotations

from rooftui.views.tui.timeline_model import GANTT_PADDING, TimelineModel

SIZES = [(120, 40), (80, 24)]


def shown(model: TimelineModel, width: int, height: int):
    """Everything the screen takes from the model at a terminal size."""
    rows = model.rows(width, height)
    gantt = model.gantt(width - GANTT_PADDING, rows.lane_height)
    chart = model.chart(width - GANTT_PADDING)
    return (
        rows,
        gantt.plain,
        list(gantt.spans),
        [(row.label, row.text(), list(row.kinds)) for row in chart.rows],
        chart.axis,
        model.step_line().plain,
    )


def fresh(analysis, model: TimelineModel) -> TimelineModel:
    """A model made now in ``model``'s state: nothing drawn before."""
    again = TimelineModel(analysis, ascii_mode=model.ascii_mode)
    again.step_index, again.cursor, again.marker = model.step_index, model.cursor, model.marker
    again.marked_finding, again.zoomed = model.marked_finding, model.zoomed
    again.next_place = dict(model.next_place)
    return again


def test_after_each_key_the_model_shows_what_a_fresh_one_in_its_state_shows(naive_analysis):
    model = TimelineModel(naive_analysis)
    blocking = next(i for i, f in enumerate(naive_analysis.findings) if f.kind == "blocking_copy")
    steps = [
        lambda: None,
        model.next_step,
        lambda: model.select(blocking),
        model.jump,  # another step, the marker on the copy
        model.zoom,  # the Gantt zoomed in on it
        model.zoom,  # and out
        model.previous_step,  # the marker gone
        lambda: model.select(0),
        model.jump,
    ]
    for number, step in enumerate(steps):
        step()
        for size in SIZES:
            assert shown(model, *size) == shown(fresh(naive_analysis, model), *size), (
                f"step {number} at {size}"
            )


def test_a_key_that_changes_the_gantt_never_gets_the_last_one(naive_analysis):
    model = TimelineModel(naive_analysis)
    blocking = next(i for i, f in enumerate(naive_analysis.findings) if f.kind == "blocking_copy")
    whole = model.gantt(100).plain
    model.select(blocking)
    model.zoom()
    zoomed = model.gantt(100).plain
    assert model.window is not None and zoomed != whole
    model.zoom()
    assert model.gantt(100).plain != zoomed  # out again: the whole step, with the marker


def test_a_gantt_changed_by_its_caller_is_not_what_the_next_caller_gets(naive_analysis):
    model = TimelineModel(naive_analysis)
    first = model.gantt(100)
    first.stylize("reverse")
    first.append("changed")
    again = model.gantt(100)
    assert again.plain == TimelineModel(naive_analysis).gantt(100).plain
    assert again.spans == TimelineModel(naive_analysis).gantt(100).spans
