"""Choosing kernels on the roofline (keys, mouse) and one GPU's roofline at a time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rooftui.views.tui.roofline_layout import nearest_in_order
from rooftui.views.tui.roofline_model import ceilings_per_device, device_labels
from rooftui.views.tui.widgets.kernel_table import KernelTable
from rooftui.views.tui.widgets.roofline import RooflineCanvas
from tests.tui.conftest import loaded

REPO = Path(__file__).resolve().parents[2]
KNOWN_ANSWER = REPO / "sample_data" / "known_answer" / "known_answer.raw-base.csv"
SIZE = (100, 32)


def table_kernel(app):
    table = app.explorer.query_one(KernelTable)
    return int(table.positions[table.cursor_row])


async def full_stop_and_comma_step_through_points_left_to_right_and_select_their_kernel(app, pilot) -> None:
    canvas = app.explorer.query_one(RooflineCanvas)
    selected = table_kernel(app)
    start = (canvas.figure.selected[0][0], selected)
    expected = nearest_in_order(canvas.layout_.stops, start, 1)
    await pilot.press("full_stop")
    await pilot.pause()
    assert canvas.cursor == (expected.level, expected.kernel)
    assert table_kernel(app) == expected.kernel
    assert app.explorer.selected.name == expected.kernel  # the detail and plot follow
    following = nearest_in_order(canvas.layout_.stops, canvas.cursor, 1)
    assert (following.col, -following.row) >= (expected.col, -expected.row)  # left to right
    await pilot.press("full_stop")
    await pilot.pause()
    assert table_kernel(app) == following.kernel
    await pilot.press("comma")
    await pilot.pause()
    assert canvas.cursor == (expected.level, expected.kernel)
    # the cursor's point is drawn highlighted
    styles = [s for row in canvas.layout_.styles for s in row]
    assert styles.count("cursor") == 1


async def clicking_a_point_selects_its_kernel_in_the_table(app, pilot) -> None:
    canvas = app.explorer.query_one(RooflineCanvas)
    chosen = next(p for p in canvas.layout_.points if p.kernel != table_kernel(app))
    await pilot.click(RooflineCanvas, offset=(chosen.col, chosen.row))
    await pilot.pause()
    assert table_kernel(app) == chosen.kernel


async def the_heaviest_kernels_tags_are_drawn_and_offered_to_the_table(app, pilot) -> None:
    canvas = app.explorer.query_one(RooflineCanvas)
    rows = app.explorer.state.all_rows
    heaviest = rows[rows["flops"] > 0].sort_values("time_s", ascending=False, kind="stable")
    assert list(canvas.tags) == list(heaviest.index[:5])
    drawn = {label.text: label.kernel for label in canvas.layout_.labels if label.series == "tag"}
    assert drawn and all(canvas.tags[kernel] == tag for tag, kernel in drawn.items())


async def every_tag_drawn_on_the_plot_starts_exactly_one_table_row_its_kernels(app, pilot) -> None:
    canvas = app.explorer.query_one(RooflineCanvas)
    table = app.explorer.query_one(KernelTable)
    drawn = {label.text: label.kernel for label in canvas.layout_.labels if label.series == "tag"}
    assert len(drawn) >= 2
    names = [row[0] for row in table._rows(0, len(table.positions))]
    for tag, kernel in drawn.items():
        rows = [i for i, name in enumerate(names) if name.split(" ", 1)[0] == tag]
        assert len(rows) == 1 and int(table.positions[rows[0]]) == kernel


async def test_choosing_points_with_keys_and_the_mouse_and_the_tags_of_plot_and_table(sample_app):
    # one app: the point keys and a click at 100x32, then the tags with the rows
    # scattered by a sort, at 80x24 and 200x60 (the model's tags at every pane size:
    # test_tags.py)
    app = sample_app()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await the_heaviest_kernels_tags_are_drawn_and_offered_to_the_table(app, pilot)
        await full_stop_and_comma_step_through_points_left_to_right_and_select_their_kernel(app, pilot)
        await clicking_a_point_selects_its_kernel_in_the_table(app, pilot)
        await pilot.press("right", "right", "right", "right", "left_square_bracket")  # scattered
        for size in ((80, 24), (200, 60)):
            await pilot.resize_terminal(*size)
            for _ in range(3):
                await pilot.pause()
                app.explorer.flush_redraw()
            await pilot.pause()
            await every_tag_drawn_on_the_plot_starts_exactly_one_table_row_its_kernels(app, pilot)
            # after the keys, the click, the sort and the resize: the table row and the
            # selection the plot and detail pane follow are still the same kernel
            assert table_kernel(app) == app.explorer.selected.name, size


def two_gpu_reports(tmp_path: Path) -> list[Path]:
    """The known-answer report twice: as run on the H200, and as if on a second GPU
    whose HBM peak (``dram__bytes.sum.peak_sustained``) is half as high."""
    import csv

    with KNOWN_ANSWER.open(newline="") as f:
        rows = list(csv.reader(f))
    peak = rows[0].index("dram__bytes.sum.peak_sustained")
    for row in rows[2:]:  # after the header and the units row
        row[:] = ["NVIDIA H100 80GB HBM3" if cell == "NVIDIA H200" else cell for cell in row]
        row[peak] = str(float(row[peak].replace(",", "")) / 2)
    other = tmp_path / "known_answer_h100.raw-base.csv"
    with other.open("w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)
    return [KNOWN_ANSWER, other]


@pytest.fixture(scope="module")
def two_gpus(tmp_path_factory) -> list[Path]:
    return two_gpu_reports(tmp_path_factory.mktemp("two-gpus"))


def two_gpu_model(paths: list[Path]):
    """A model of its own on the two reports, read and prepared once (``prepared_run``)."""
    from rooftui.views.tui.explorer_model import ExplorerModel
    from tests.tui.conftest import prepared_run

    return ExplorerModel(prepared_run(paths))


def test_with_two_gpus_the_roofline_shows_one_at_a_time_against_its_own_ceilings(two_gpus):
    model = two_gpu_model(two_gpus)
    view, rows = model.roofline, model.state.all_rows
    per_device = ceilings_per_device(model.state.run.source)
    model.update_roofline()
    picture = model.roofline_picture(120, 19)
    assert view.devices == ["NVIDIA H200", "NVIDIA H100 80GB HBM3"]
    # the plot shows the selected kernel's GPU
    assert view.device == device_labels(rows.loc[[model.selected.name]])[0]
    first = view.device
    for _ in view.devices:
        device = view.device
        number = view.devices.index(device) + 1
        assert picture.plot_rows[0].startswith(f"FLOP/s GPU {number} of 2: {device} (v: next GPU)")
        hbm = next(r for r in picture.figure.roofs if r.key == "hbm")
        own = per_device[device].bandwidth("hbm")
        assert hbm.ys[0] - hbm.xs[0] == np.log10(own.value)  # this device's HBM slope
        kernels = {k for s in picture.figure.points for k in s.kernels}
        assert kernels and set(device_labels(rows.loc[sorted(kernels)])) == {device}
        assert model.next_device() is None
        picture = model.roofline_picture(120, 19)
    assert view.device == first  # round and back
    # selecting a kernel of the other GPU in the table brings up that GPU's roofline
    model.select(
        next(i for i, p in enumerate(model.positions) if device_labels(rows.iloc[[int(p)]])[0] != first)
    )
    model.update_roofline()
    assert view.device != first
    # The two devices' HBM roofs really differ (the H200's measured ceilings ship with
    # rooftui; the other GPU has its report's halved peak), so the test can tell them apart.
    h200, h100 = (per_device[d].bandwidth("hbm") for d in view.devices)
    assert (h200.method, h100.method) == ("empirical", "report") and h200.value != h100.value


def test_with_two_gpus_the_detail_pane_uses_the_selected_kernels_own_gpu(two_gpus):
    model = two_gpu_model(two_gpus)
    run = model.state.run.source
    shown = []
    original = model.ceilings_of

    def recording(row):
        ceilings = original(row)
        shown.append((row, ceilings))
        return ceilings

    model.ceilings_of = recording
    for i in range(len(model.positions)):
        model.select(i)
        assert model.detail() is not None
    assert [row.name for row, _ in shown] == list(model.state.all_rows.index[model.positions])
    devices = {str(row["device"]) for row, _ in shown}
    assert devices == {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}
    for row, ceilings in shown:
        assert ceilings == run.ceilings_for(str(row["device"]))


def test_a_legend_too_small_for_its_notes_hands_them_to_the_status_line():
    from rooftui.views.tui.roofline_legend import in_few_words, legend
    from rooftui.views.tui.roofline_model import build_figure
    from tests.tui.synthetic import CEILINGS, kernel_table

    figure = build_figure(kernel_table(repeat=2), CEILINGS, pipelines=["fp64"])
    roomy, overflow = legend(figure, list(figure.roofs), grouped=True, width=200)
    assert overflow == [] and "2 zero-AI launches not plotted" in roomy.plain
    assert "HBM 4 TB/s (empirical)" in roomy.plain
    cramped, overflow = legend(figure, list(figure.roofs), grouped=True, width=12)
    # what must be said is either under the plot or handed over, never dropped
    handed_over = [said.text for said in overflow]
    for part in ("2 zero-AI launches not plotted", "HBM 4 TB/s (empirical)", "FP64 67 TFLOP/s (spec)"):
        assert part in cramped.plain or part in handed_over
    assert "L1/L2/HBM/FP64 roofs" in in_few_words(overflow)


def test_roof_labels_use_the_terminal_foreground_and_the_selection_a_background():
    from rooftui.views.tui.widgets.roofline import STYLES

    # no fixed grey that vanishes on a white 16-colour terminal
    assert STYLES["roof-label"].color is None and STYLES["roof-label"].bold
    assert STYLES["roof"].color is None
    assert STYLES["selected"].bgcolor is not None and STYLES["selected"].color is not None


def test_a_missing_roof_is_said_first_in_the_legend_not_just_left_out():
    from rooftui.model.ceilings import CeilingSet
    from rooftui.views.tui.roofline_legend import must_say
    from rooftui.views.tui.roofline_model import build_figure
    from tests.tui.synthetic import CEILINGS, kernel_table

    without_l2 = CeilingSet(
        CEILINGS.device, tuple(c for c in CEILINGS.ceilings if c.level != "l2"), source="tests"
    )
    figure = build_figure(kernel_table(repeat=2), without_l2, pipelines=["fp64", "fp32", "tensor_fp16"])
    assert figure.missing == ["no L2 roof: pass --ceilings or run rooftui measure"]
    assert "l2" not in {roof.key for roof in figure.roofs}
    assert must_say(figure, [])[0].text == "no L2 roof: pass --ceilings or run rooftui measure"
    # a level switched off is not "missing"
    hbm_only = build_figure(kernel_table(repeat=2), without_l2, levels=("hbm",), pipelines=["fp64"])
    assert hbm_only.missing == []
