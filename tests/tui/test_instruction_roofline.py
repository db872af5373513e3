"""The explorer's instruction roofline (key i), on the bundled sample (`rooftui` with no
argument: a DeepCAM AMP step profiled with the instruction counters) and on
the instruction known-answer kernels: every zero-AI kernel is placed, no label covers a
point, a line or another label, and the table, filter and selection stay as they were."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest

from rooftui.sample import sample_paths
from rooftui.views.tui.roofline_layout import lay_out
from tests.tui.test_roofline_layout import assert_no_label_hides_anything

REPO = Path(__file__).resolve().parents[2]
[DEEPCAM] = sample_paths()
KNOWN = REPO / "sample_data" / "known_answer" / "instructions" / "instructions.raw-base.csv"
# Terminal sizes, and the roofline canvas the explorer gives each (test_roofline_layout.py).
SIZES = {(80, 24): (80, 10), (120, 40): (120, 19)}


@pytest.fixture(scope="module", params=["deepcam", "known"])
def model(request):
    from rooftui.views.tui.explorer_model import ExplorerModel
    from tests.tui.conftest import prepared_run

    path = DEEPCAM if request.param == "deepcam" else KNOWN
    return ExplorerModel(prepared_run([path]))


def instruction_picture(model, size):
    if not model.state.instruction:
        model.toggle_instruction()
    model.update_roofline()
    return model.roofline_picture(*size)


def test_key_i_switches_to_the_instruction_roofline_and_back_keeping_the_table(model):
    before = (model.state.grouped, model.state.spec, model.cursor, list(model.positions))
    assert "instruction roofline" in model.toggle_instruction()
    model.update_roofline()
    picture = model.roofline_picture(80, 14)
    text = "\n".join(picture.plot_rows)
    assert "inst/s" in text and "inst/transaction" in text and "warp issue" in text
    assert (model.state.grouped, model.state.spec, model.cursor, list(model.positions)) == before
    assert model.toggle_instruction() == "FLOP roofline"
    model.update_roofline()
    assert "FLOP/s" in "\n".join(model.roofline_picture(80, 14).plot_rows)


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "invocations"])
def test_every_zero_ai_kernel_is_a_point_on_the_instruction_roofline_at_80x24(model, grouped):
    if model.state.grouped != grouped:
        model.toggle_grouped()
    picture = instruction_picture(model, (80, 14))
    rows = model.state.all_rows
    zero = set(np.flatnonzero(rows["zero_ai"].fillna(False).astype(bool).to_numpy()))
    assert zero, "the input has zero-AI kernels"
    plotted = {kernel for series in picture.figure.points for kernel in series.kernels}
    assert zero <= plotted
    assert "zero-AI not plotted" not in picture.legend.plain
    assert picture.figure.zero_ai == 0  # every row has warp instructions


@pytest.mark.parametrize("size", list(SIZES), ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
def test_no_instruction_roofline_label_covers_a_point_a_line_or_another_label(model, size, ascii_mode):
    instruction_picture(model, size)
    figure = model.roofline.figure
    layout = lay_out(figure, *SIZES[size], ascii_mode=ascii_mode, axis_titles=("inst/s", "x", "x"))
    assert_no_label_hides_anything(figure, layout, ascii_mode)
    walls = [roof for roof in figure.roofs if roof.kind == "wall"]
    assert [roof.tag for roof in walls] == ["1", "1/4", "1/32"]


def test_the_detail_pane_gives_intensity_per_level_efficiency_walls_and_what_binds():
    from rooftui.views.tui.explorer_model import ExplorerModel
    from tests.tui.conftest import prepared_run

    model = ExplorerModel(prepared_run([KNOWN]))
    assert model.select_name("shared_conflict32")
    from rooftui.views.tui.detail_text import instruction_pairs

    pairs = dict(instruction_pairs(model.selected))
    assert pairs["warp instructions"] == "14,680,064"
    assert pairs["warp efficiency"] == "100.0%"
    assert pairs["intensity L1"].startswith("0.388 inst/transaction")
    assert "nearest wall 32-way bank conflict" in pairs["shared wall"]
    assert pairs["binding roof"].startswith("L1 at ")


@pytest.mark.snapshots("80x24")
def test_instruction_roofline_snapshot(snap_compare_sizes):
    from tests.tui.conftest import explorer_of
    from tests.tui.test_snapshots import pressing, settle

    async def instruction_roofline(pilot) -> None:
        await settle(pilot)  # loaded first
        await pressing("i")(pilot)
        # `i`'s toast lasts 2 s: on a loaded machine it is gone before the screenshot or not,
        # so it is left out of the picture (its words: test_key_i_switches_... above)
        pilot.app.clear_notifications()

    snap_compare_sizes(partial(explorer_of, [DEEPCAM]), [[(80, 24)]], run_before=instruction_roofline)


def test_a_kernel_keeps_its_tag_on_the_instruction_roofline(model):
    """Tags 1-5 belong to the run's five heaviest kernels (ViewState.tags), whichever
    roofline is drawn: the instruction roofline tags the same kernels, not its own heaviest."""
    if model.state.instruction:
        model.toggle_instruction()
    model.update_roofline()
    model.roofline_picture(120, 19)
    flop_tags = model.roofline.tags
    model.toggle_instruction()
    model.update_roofline()
    model.roofline_picture(120, 19)
    instruction_tags = model.roofline.tags
    model.toggle_instruction()
    model.update_roofline()
    state_tags = model.state.tags()
    # The known-answer kernels do no FLOPs: the table tags none of them, so neither does
    # this plot (it used to tag its own five heaviest, which the table did not).
    assert all(state_tags.get(label) == tag for label, tag in instruction_tags.items())
    assert bool(instruction_tags) == bool(state_tags)
    assert all(instruction_tags.get(label, tag) == tag for label, tag in flop_tags.items())
