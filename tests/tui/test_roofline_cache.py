"""The roofline lays a figure out once per (inputs, size) and draws the selected kernel
and the point stepped to on top (``RooflineView.plan`` over ``roofline_layout.Layers``).
What it shows must be what laying the figure out from scratch shows (``build_figure`` or
``build_instruction_figure`` with the selection, then ``lay_out``), cell for cell, for
every kernel selected and every input changed: the reference here is that from-scratch
path, written out as ``plan`` did it before the layers.

Checked on the bundled sample (DeepCAM AMP, with the instruction counters), the DeepCAM
FP32 step, the known-answer kernels and the two-rank DDP step (two GPUs: one at a time
on the plot), at the pane sizes of 80x24, 120x40 and 200x60 (details open and closed)
and of the zoomed roofline (``z``: the pane takes the screen), ASCII and Unicode, FLOP
and instruction roofline.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from functools import partial

import numpy as np
import pandas as pd
import pytest
from textual.app import App
from textual.geometry import Region
from textual.widget import Widget

from rooftui.analysis.filter_spec import KernelFilter
from rooftui.analysis.instruction_roofline import InstructionCeilings
from rooftui.views.tui.explorer_model import ExplorerModel
from rooftui.views.tui.instruction_figure import AXIS_TITLES, build_instruction_figure
from rooftui.views.tui.roofline_layout import Layers, Layout, lay_out, plot_cells
from rooftui.views.tui.roofline_legend import legend, off_plot_tags, unlabelled_roofs
from rooftui.views.tui.roofline_model import (
    EXPLORER_HEADROOM,
    RooflineFigure,
    Segment,
    build_figure,
    device_labels,
    selected_points,
)
from rooftui.views.tui.roofline_view import RooflineInputs, RooflineView
from rooftui.views.tui.widgets.roofline import RooflineCanvas
from tests.tui.conftest import REPO, SAMPLE, prepared_run

DEEPCAM_FP32 = REPO / "sample_data" / "deepcam" / "deepcam_fp32.raw-base.csv.xz"
KNOWN_ANSWER = REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv"
RANKS = [REPO / "sample_data" / "multigpu" / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]
RUNS = {
    "sample": [SAMPLE],
    "deepcam_fp32": [DEEPCAM_FP32],
    "known_answer": [KNOWN_ANSWER],
    "two_ranks": RANKS,
}

# Roofline pane sizes (width, height): the explorer's at 80x24, 120x40, 200x60 with the
# details open and closed (test_legend_layout.py), and zoomed (`z`) at 80x24 and 120x40.
PANES = {
    "80x24": (80, 12),
    "120x40": (120, 19),
    "200x60": (200, 32),
    "200x60 details": (110, 32),
    "80x24 zoomed": (80, 21),
    "120x40 zoomed": (120, 37),
}
# (pane, ASCII, instruction roofline): every pane, each in both character sets, and the
# instruction roofline in both.
VIEWS = [
    ("120x40", False, False),
    ("80x24", True, False),
    ("200x60", False, False),
    ("200x60 details", True, False),
    ("80x24 zoomed", False, False),
    ("120x40 zoomed", True, False),
    ("120x40", False, True),
    ("80x24", True, True),
]


def from_scratch(view: RooflineView, width: int, height: int) -> tuple[RooflineFigure, Layout]:
    """The figure with the selection and its layout, built and laid out anew."""
    figure, layout, _ = drawn_anew(view, width, height)
    return figure, layout


def drawn_anew(view: RooflineView, width: int, height: int) -> tuple[RooflineFigure, Layout, pd.DataFrame]:
    """``from_scratch``, and the rows drawn (the shown GPU's)."""
    inputs = view.inputs
    assert inputs is not None
    frame, ceilings, selected = inputs.frame, inputs.ceilings, inputs.selected
    if len(view.ceilings_by_device) > 1 and view.device is not None:
        frame = frame[device_labels(frame) == view.device]
        ceilings = view.ceilings_by_device[view.device]
        if selected is not None and selected.name not in frame.index:
            selected = None
    cells = plot_cells(width, height)
    if inputs.instruction_roofs is not None:
        roofs = inputs.instruction_roofs.get(view.device or "") or next(
            iter(inputs.instruction_roofs.values()), InstructionCeilings(None, {}, None)
        )
        figure = build_instruction_figure(
            frame, roofs, levels=inputs.levels, selected=selected, cells=cells, tags=inputs.tags
        )
    else:
        figure = build_figure(
            frame,
            ceilings,
            levels=inputs.levels,
            pipelines=list(inputs.pipelines),
            selected=selected,
            cells=cells,
            zoom=True,
            headroom=EXPLORER_HEADROOM,
            counted=inputs.frame,
            tags=inputs.tags,
        )
    layout = lay_out(
        figure,
        max(width, 20),
        max(height, 4),
        ascii_mode=view.ascii_mode,
        title=view.title,
        cursor=view.cursor,
        axis_titles=AXIS_TITLES if inputs.instruction_roofs is not None else None,
    )
    return figure, layout, frame


def figure_fields(figure: RooflineFigure) -> dict:
    """Every field of ``figure``, its point series as lists (arrays do not compare)."""
    fields = {f.name: getattr(figure, f.name) for f in dataclasses.fields(figure)}
    fields["points"] = [
        (s.level, s.emphasis, s.xs.tolist(), s.ys.tolist(), np.asarray(s.kernels).tolist())
        for s in figure.points
    ]
    return fields


# Legends asked of a draw: (width, rows, grouped), each differing from the one before in one.
LEGENDS = ((118, 2, True), (30, 2, True), (30, 1, True), (30, 1, False))


def assert_as_from_scratch(
    view: RooflineView, width: int, height: int, what: str, legends=LEGENDS[:1]
) -> None:
    """What ``view`` draws at ``width`` × ``height`` is the from-scratch figure, layout
    and legend (of each of ``legends``)."""
    drawn = view.draw(width, height)
    assert drawn is not None and view.layout is not None and view.inputs is not None
    figure, layout, frame = drawn_anew(view, width, height)
    assert figure_fields(drawn) == figure_fields(figure), what
    # every cell's character, kind, owner and style, the lines' paths, labels, points,
    # stops and what each cell held before the labels
    assert view.layout == layout, what
    # and the legend under it, in two widths
    shown = dataclasses.replace(view.inputs, frame=frame)
    off_plot = off_plot_tags(view.inputs, shown, layout)
    for legend_width, rows, grouped in legends:
        text, overflow = view.legend(grouped, legend_width, rows)
        expected, left_over = legend(
            figure, unlabelled_roofs(figure, layout), grouped, legend_width, rows, view.ascii_mode, off_plot
        )
        assert (text.plain, text.spans, overflow) == (expected.plain, expected.spans, left_over), what


def model_for(name: str, ascii_mode: bool, instruction: bool) -> ExplorerModel:
    """An explorer model of the run ``name`` (``RUNS``; read once per worker)."""
    model = ExplorerModel(prepared_run(RUNS[name]), ascii_mode=ascii_mode)
    if instruction:
        model.toggle_instruction()
    return model


@pytest.mark.parametrize(
    ("name", "grouped", "every"),
    [
        ("sample", True, 1),
        ("sample", False, 5),
        ("known_answer", True, 1),
        ("deepcam_fp32", True, 5),
        ("two_ranks", True, 11),
    ],
    ids=["sample", "sample-invocations", "known_answer", "deepcam_fp32", "two_ranks"],
)
def test_every_kernel_selected_and_stepped_to_draws_as_from_scratch(name, grouped, every):
    # each ``every``-th row of the table selected in turn (every row of the sample and the
    # known-answer kernels, grouped; 13-36 rows of the others), and on every third the next
    # point stepped to (`.`); the views taken in turn: each row in one view, every view on
    # many rows
    models = [model_for(name, ascii_mode, instruction) for _, ascii_mode, instruction in VIEWS]
    for model in models:
        if model.state.grouped != grouped:
            model.toggle_grouped()
    rows = range(0, len(models[0].positions), every)
    assert len(rows) >= 12
    for turn, row in enumerate(rows):
        pane, _, _ = VIEWS[turn % len(VIEWS)]
        model = models[turn % len(VIEWS)]
        model.select(row)
        model.update_roofline()
        where = f"{name}, row {row}, {VIEWS[turn % len(VIEWS)]}"
        assert_as_from_scratch(model.roofline, *PANES[pane], where)
        if turn % 3 == 0 and model.roofline.step_point(1) is not None:
            assert model.roofline.cursor is not None
            layout = from_scratch(model.roofline, *PANES[pane])[1]
            assert model.roofline.layout == layout, f"{where}, stepped to {model.roofline.cursor}"


def test_every_view_draws_the_sample_as_from_scratch_for_a_few_kernels():
    # each view on the sample's heaviest rows, with a point stepped to and back
    for pane, ascii_mode, instruction in VIEWS:
        model = model_for("sample", ascii_mode, instruction)
        for row in range(2):
            model.select(row)
            model.update_roofline()
            assert_as_from_scratch(model.roofline, *PANES[pane], f"row {row}, {pane}")
            for step in (1, -1):
                model.roofline.step_point(step)
                assert model.roofline.layout == from_scratch(model.roofline, *PANES[pane])[1]


def change_each_input(model: ExplorerModel) -> Iterator[str]:
    """Change each thing the roofline depends on, in turn, with a kernel selected; say
    what was changed, after each change."""
    steps = [
        ("level L1 off", lambda: model.toggle_level("l1")),
        ("level L1 back", lambda: model.toggle_level("l1")),
        ("FP32 hidden", lambda: model.hide_pipelines({"fp32"})),
        ("no pipeline hidden", lambda: model.hide_pipelines(set())),
        ("instruction roofline", model.toggle_instruction),
        ("level HBM off", lambda: model.toggle_level("hbm")),
        ("FLOP roofline", model.toggle_instruction),
        ("level HBM back", lambda: model.toggle_level("hbm")),
        ("invocations", model.toggle_grouped),
        ("grouped", model.toggle_grouped),
        ("filter", lambda: model.set_filter(KernelFilter(name="conv"))),
        ("sorted by time", lambda: model.sort("time_s", True)),
        ("sorted by time, ascending", lambda: model.sort("time_s", False)),
        ("no filter", lambda: model.set_filter(KernelFilter())),
        ("next GPU", model.next_device),
    ]
    for what, change in steps:
        change()
        model.select(min(2, len(model.positions) - 1))
        model.update_roofline()
        yield what


@pytest.mark.parametrize(("name", "ascii_mode"), [("sample", False), ("two_ranks", True)])
def test_each_input_changed_draws_as_from_scratch(name, ascii_mode):
    # one view through every change: a layout kept for an input that changed shows here
    model = model_for(name, ascii_mode, False)
    pane = PANES["120x40"]
    model.update_roofline()
    model.roofline.draw(*pane)
    for what in change_each_input(model):
        assert_as_from_scratch(model.roofline, *pane, what, LEGENDS)
        model.roofline.step_point(1)
        assert model.roofline.layout == from_scratch(model.roofline, *pane)[1], f"{what}, stepped"


def test_every_input_of_the_roofline_but_the_selection_is_in_its_key():
    # each RooflineInputs field (a new one too) and each thing the view reads: changed
    # alone, the key that names what is laid out changes
    model = model_for("two_ranks", False, False)
    model.update_roofline()
    view = model.roofline
    inputs = view.inputs
    assert inputs is not None and inputs.tags
    key = view.content()
    others = {
        "frame": inputs.frame.copy(),
        "ceilings": dataclasses.replace(inputs.ceilings),
        "levels": inputs.levels[:-1],
        "pipelines": inputs.pipelines[:-1],
        "instruction_roofs": {},
        "tags": dict(list(inputs.tags.items())[:-1]),
    }
    for field in dataclasses.fields(RooflineInputs):
        if field.name == "selected":
            continue
        assert field.name in others, f"RooflineInputs.{field.name}: is it in RooflineView.content()?"
        view.inputs = dataclasses.replace(inputs, **{field.name: others[field.name]})
        assert view.content() != key, field.name
    view.inputs = dataclasses.replace(inputs, selected=None)
    assert view.content() == key  # the selection is drawn on top, not in the key
    view.inputs = inputs
    assert len(view.devices) == 2
    by_device = view.ceilings_by_device
    view.ceilings_by_device = {device: dataclasses.replace(c) for device, c in by_device.items()}
    assert view.content() != key, "each GPU's ceilings"
    view.ceilings_by_device = by_device
    view.next_device()
    assert view.content() != key, "the GPU shown"
    view.next_device()
    view.ascii_mode = True
    assert view.content() != key, "ASCII"


def test_the_legend_follows_what_the_plot_leaves_unsaid():
    # the legend names the roofs the plot could not label and the tags it could not
    # place: kept per figure, it still follows them
    model = model_for("sample", False, False)
    model.update_roofline()
    view = model.roofline
    view.draw(120, 19)
    assert view.figure is not None and view.layout is not None and view.inputs is not None
    assert view.layout.labelled and view.drawn_tags
    said = [view.legend(True, 118, 3)]
    for unsaid in ({"labelled": set()}, {"labelled": set(), "labels": []}):  # no roof label, then no tag
        view.layout = dataclasses.replace(view.layout, **unsaid)
        off_plot = off_plot_tags(view.inputs, view.inputs, view.layout)
        text, overflow = view.legend(True, 118, 3)
        expected, left_over = legend(view.figure, list(view.figure.roofs), True, 118, 3, False, off_plot)
        assert (text.plain, text.spans, overflow) == (expected.plain, expected.spans, left_over)
        said.append((text, overflow))
    assert off_plot and off_plot[0].text == "tags 1, 2, 3, 4, 5 off the plot"
    assert len({(text.plain, str(overflow)) for text, overflow in said}) == 3


def synthetic_figure() -> RooflineFigure:
    from tests.tui.synthetic import CEILINGS, kernel_table

    return build_figure(
        kernel_table(repeat=2), CEILINGS, pipelines=["fp64", "fp32", "tensor_fp16"], cells=(92, 27)
    )


def centre_of(figure: RooflineFigure, layout: Layout, row: int, col: int) -> tuple[float, float]:
    """(log10 AI, log10 FLOP/s) of the middle of the plot cell at ``row``, ``col``."""
    left, top, cols, rows = layout.plot
    (x_lo, x_hi), (y_lo, y_hi) = figure.x_range, figure.y_range
    return x_lo + (col - left + 0.5) / cols * (x_hi - x_lo), y_hi - (row - top + 0.5) / rows * (y_hi - y_lo)


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
def test_a_selected_point_on_a_roof_not_a_kernels_point_lays_out_as_from_scratch(ascii_mode):
    # no kernel's point under it: the roof passes behind the selected point when it is
    # drawn first, so the roof's cells are not those drawn without it
    figure = synthetic_figure()
    layers = Layers(figure, 100, 30, ascii_mode=ascii_mode)
    on_roof = [
        cell
        for cell, owners in layers.layout.line_series.items()
        if owners == {"hbm"} and layers.layout.kinds[cell[0]][cell[1]] == "line"
    ]
    (row, col), (row_b, col_b) = on_roof[len(on_roof) // 2], on_roof[len(on_roof) // 3]
    selected = [("hbm", *centre_of(figure, layers.layout, row, col))]
    selected.append(("l2", centre_of(figure, layers.layout, row_b, col_b)[0], selected[0][2]))
    expected = lay_out(dataclasses.replace(figure, selected=selected), 100, 30, ascii_mode=ascii_mode)
    assert expected.owners[row][col] == "selected"
    assert layers.lay_out(selected, None) == expected


def test_a_selected_line_under_compare_arrows_lays_out_as_from_scratch():
    # the compare chart's arrows are drawn over the selected line
    figure = synthetic_figure()
    layers = Layers(figure, 100, 30)
    kernel = next(iter(figure.tags))
    frame = kernel_table_row(kernel)
    selected = selected_points(frame, ["l1", "l2", "hbm"], figure.x_range[1], figure.y_range[0])
    assert len(selected) == 3
    (_, xa, y), (_, xb, _) = selected[0], selected[-1]
    arrows = [Segment((xa, xb), (y - 1.0, y + 1.0)), Segment((xa, xb), (y + 1.0, y - 1.0), selected=True)]
    figure = dataclasses.replace(figure, segments=arrows)
    layers = Layers(figure, 100, 30)
    expected = lay_out(dataclasses.replace(figure, selected=selected), 100, 30)
    assert "arrow" in {owner for row in expected.owners for owner in row}
    assert layers.lay_out(selected, None) == expected


def kernel_table_row(kernel):
    from tests.tui.synthetic import kernel_table

    return kernel_table(repeat=2).loc[kernel]


class CanvasApp(App):
    """The roofline canvas alone, drawing an explorer model's roofline."""

    def __init__(self, model: ExplorerModel) -> None:
        super().__init__()
        self.model = model

    def compose(self):
        yield RooflineCanvas(ascii_mode=self.model.ascii_mode)

    def on_mount(self) -> None:
        self.query_one(RooflineCanvas).view = self.model.roofline


def whole_picture(canvas: RooflineCanvas) -> list:
    """The canvas's lines as Textual renders a widget's whole picture (``render``) at once
    (``Widget.render_line``, after a refresh of the whole widget)."""
    canvas.refresh()
    return [Widget.render_line(canvas, y) for y in range(canvas.size.height)]


def drawn_rows(canvas: RooflineCanvas) -> list:
    return [canvas.render_line(y) for y in range(canvas.size.height)]


def repainted_rows(canvas: RooflineCanvas, change) -> tuple[set[int], set[int]]:
    """The rows whose cells ``change()`` changed, and the rows the canvas asked to paint
    again (every row, for a refresh of the whole widget)."""
    asked: list[tuple] = []
    canvas.refresh = lambda *regions, **options: asked.append(regions)  # type: ignore[method-assign]
    before = canvas.view.layout
    try:
        change()
    finally:
        del canvas.refresh  # the class's again
    after = canvas.view.layout
    assert before is not None and after is not None
    changed = {
        y
        for y in range(after.height)
        if (after.chars[y], after.styles[y]) != (before.chars[y], before.styles[y])
    }
    painted = {r.y for regions in asked for r in regions}
    if any(not regions for regions in asked):
        painted = set(range(after.height))
    return changed, painted


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
async def test_rows_drawn_one_at_a_time_show_the_whole_pictures_rows(ascii_mode):
    # the canvas renders its rows one by one, and after a move paints again only the rows
    # the move changed: each row is the whole picture's row, and every changed row is
    # painted again
    model = model_for("sample", ascii_mode, False)
    app = CanvasApp(model)
    async with app.run_test(size=(100, 20)) as pilot:
        canvas = app.query_one(RooflineCanvas)
        await pilot.pause()

        def select(row: int) -> None:
            model.select(row)
            model.update_roofline()
            canvas.rebuild()

        select(5)
        await pilot.pause()
        for row in (0, 1, 2, 1, 7, 3):
            changed, painted = repainted_rows(canvas, partial(select, row))
            assert changed <= painted and len(painted) < canvas.size.height, row
            canvas.refresh(*(Region(0, y, canvas.size.width, 1) for y in painted))
            await pilot.pause()
            assert drawn_rows(canvas) == whole_picture(canvas), row
        # a layout a row shorter or longer than the canvas (before the resize that draws
        # it again): its rows, then blank ones
        for rows in (-1, 1):
            model.roofline.draw(canvas.size.width, canvas.size.height + rows)
            assert drawn_rows(canvas) == whole_picture(canvas), rows
        canvas.rebuild()
        changed, painted = repainted_rows(canvas, lambda: canvas.action_step_point(1))
        assert model.roofline.cursor is not None
        assert changed and changed <= painted, "the cursor's row"
        canvas.refresh()
        await pilot.pause()
        assert drawn_rows(canvas) == whole_picture(canvas)
