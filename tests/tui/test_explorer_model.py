"""The explorer without an app: ``ExplorerModel`` on the sample report, in milliseconds.

What the explorer shows (rows, order, selection, find, status line, header, detail
content, roofline and legend) is decided by the model; the Pilot tests keep only the
wiring of keys and widgets to it. The sample is the mixed-precision DeepCAM-like
training step: 179 launches of 73 kernels, 1.38 ms, 34 zero-AI launches taking 6.1% of
the time (Table III of the paper counts launches).
"""

from __future__ import annotations

import json
import math

import pytest

from rooftui.analysis.filters import KernelFilter
from rooftui.analysis.load_options import LoadOptions
from rooftui.views.tui.explorer_model import ExplorerModel
from rooftui.views.tui.table_columns import COLUMNS, columns_in_view
from rooftui.views.tui.view_state import LoadedRun
from tests.tui.conftest import SAMPLE, prepared_run

WGRAD = "sm80_xmma_wgrad_implicit_gemm_indexed_wo_smem"  # the heaviest kernel
# The roofline pane's size in the explorer on an 80x24 terminal (test_explorer.py's resize
# test checks the screen gives the pane that size, and its status line there).
PANE_AT_80x24 = (80, 12)
EVERYTHING = "73 kernels, 179 launches · 1.38 ms (100.0%) · 0-AI: 34 launches (6.1% time) · by gain▼"


@pytest.fixture(scope="module")
def loaded_run() -> LoadedRun:
    return prepared_run([SAMPLE])


@pytest.fixture
def model(loaded_run) -> ExplorerModel:
    return ExplorerModel(loaded_run)


def names(model: ExplorerModel) -> list[str]:
    return list(model.rows["name"])


# That the model never loads Textual: tests/cli/test_headless_imports.py, its "explorer model"
# step (one process for every headless command and model).


# --- rows, order, selection ------------------------------------------------------------


def test_it_opens_grouped_most_to_gain_first_with_table_three_totals(model):
    assert len(names(model)) == 73 and names(model)[0].startswith(WGRAD)
    gains = list(model.rows["gain_s"])
    assert gains == sorted(gains, reverse=True) and gains[0] > 0
    assert model.cursor == 0 and model.selected["name"].startswith(WGRAD)
    assert model.status_line(200).startswith(EVERYTHING)


def longest_name(model: ExplorerModel) -> int:
    return max(len(str(name)) for name in model.state.all_rows["name"])


@pytest.mark.parametrize(
    ("width", "labels"),
    [
        # 80x24: the name takes 2/5 (32 columns); 48 are left for gain to bound.
        (80, ["kernel", "gain", "%gain", "time", "%time", "bound"]),
        (120, ["kernel", "gain", "%gain", "time", "%time", "bound", "%roof", "count", "GFLOP/s"]),
    ],
)
def test_the_table_leads_with_what_there_is_to_gain_then_time_then_what_binds(model, width, labels):
    shown = columns_in_view(model.columns, width, longest_name(model))
    assert [column.label for column in shown] == labels
    # The widths add up: the name, then each column after a one-character gap.
    assert sum(c.width + 1 for c in shown[1:]) <= width - int(0.4 * width)


def test_the_gain_cells_are_microseconds_and_a_share_of_the_run(model):
    page = model.table_page(0, 1, name_width=40)
    first = model.rows.iloc[0]
    # The wgrad GEMM: 108.544 µs of 1,378.5. Its achievable time is its 11,406,534 warp
    # instructions at the bundled measured issue roof, 1,041.99 G/s: 10.947 µs, so the gain is
    # 97.6 µs, 7.1% of the run; %gain shares the %time denominator.
    assert page[0][1:5] == ("97.6 µs", "7.1%", "109 µs", "7.9%")
    assert first["gain_share"] / first["time_share"] == pytest.approx(first["gain_s"] / first["time_s"])


def test_a_kernel_without_a_gain_shows_blank_cells_sorts_last_and_the_detail_says_why(loaded_run):
    import dataclasses

    grouped = loaded_run.grouped.copy()
    blank = grouped["gain_s"].idxmax()  # the kernel that would lead
    grouped.loc[blank, ["gain_s", "gain_share"]] = math.nan
    grouped.loc[blank, "verdict"] = "no bound: quantities not collected"
    model = ExplorerModel(dataclasses.replace(loaded_run, grouped=grouped))
    for descending in (True, False):
        model.sort("gain_s", descending)
        assert model.positions[-1] == blank
    model.select(len(model.positions) - 1)
    cells = model.table_page(len(model.positions) - 1, 1, name_width=40)[0]
    assert cells[1:3] == ("–", "–")
    assert "no bound: quantities not collected" in render(model.detail(100))


def test_g_switches_to_single_invocations_and_back(model):
    model.select(5)
    model.toggle_grouped()
    assert len(names(model)) == 179 and names(model)[0].startswith(WGRAD) and model.cursor == 0
    status = model.status_line(200)
    assert status.startswith("179 launches · 1.38 ms (100.0%) · 0-AI: 34 launches (6.1% time)")
    model.toggle_grouped()
    assert len(names(model)) == 73


def test_sorting_by_flop_rate_orders_both_ways_and_starts_at_the_top_row(model):
    model.select(3)
    model.sort("flop_rate", True)
    rates = list(model.rows["flop_rate"])
    assert rates == sorted(rates, reverse=True)
    assert model.cursor == 0 and model.selected["flop_rate"] == max(rates)
    assert "by GFLOP/s▼" in model.status_line(200)
    model.sort("flop_rate", False)
    assert list(model.rows["flop_rate"]) == sorted(rates)
    model.sort("name", False)
    assert names(model) == sorted(names(model)) and "by kernel▲" in model.status_line(200)


@pytest.mark.parametrize("column", [c.key for c in COLUMNS])
def test_every_column_sorts_both_ways(model, column):
    for descending in (False, True):
        model.sort(column, descending)
        values = model.rows[column].dropna().tolist()
        assert values == sorted(values, reverse=descending)


# (the filter bar's select, its value, kernels shown, column, the values it may hold);
# test_explorer.py sets the first choice of each select on screen
FILTER_BAR_CHOICES = [
    ("pipeline", "tensor_fp16", 27, "pipeline", {"tensor_fp16"}),
    # groups holding a zero-AI launch: 6 all zero-AI, 2 mixing them with FP16 launches
    ("zero_ai", "only", 8, "zero_ai", {True, False}),
    ("zero_ai", "hide", 67, "zero_ai", {False}),
    ("phase", "optimizer", 11, "phase", {"optimizer"}),
    # against the H200's measured roofs (bundled), L2 binds most kernels
    ("bound", "memory", 70, "bound", {"HBM", "L1", "L2"}),
    # the FP32 (FFMA) GEMM: its L2 AI, from the sectors L1 requested, is past the FP32 ridge
    ("bound", "compute", 3, "bound", {"Tensor FP16", "FP32"}),
]


@pytest.mark.parametrize(("field", "value", "count", "column", "allowed"), FILTER_BAR_CHOICES)
def test_each_filter_bar_choice_shows_its_kernels(model, field, value, count, column, allowed):
    model.set_filter(KernelFilter(**{field: value}))
    assert len(model.rows) == count and set(model.rows[column]) <= allowed
    model.set_filter(KernelFilter())
    assert len(model.rows) == 73


def test_a_filter_keeps_the_selected_kernel_when_it_is_still_shown(model):
    batchnorm = next(i for i, name in enumerate(names(model)) if name.startswith("batchnorm_bwtr"))
    model.select(batchnorm)
    chosen = model.selected.name
    model.set_filter(KernelFilter(name="batchnorm"))
    assert len(names(model)) == 3 and model.selected.name == chosen
    model.set_filter(KernelFilter(name="sm80"))
    assert model.cursor == 0 and model.selected["name"].startswith("sm80")


# --- the status line ---------------------------------------------------------------------


def test_at_200_columns_the_status_has_room_for_everything(model):
    assert model.status_line(200) == EVERYTHING


def test_at_80_columns_the_status_keeps_sort_and_filter_state(model):
    model.sort("flop_rate", True)
    model.set_filter(KernelFilter(name="sm80"))
    status = model.status_line(80)
    assert len(status) <= 80 and "by GFLOP/s▼" in status and "filtered" in status
    shown = len(names(model))
    assert shown < 73 and status.startswith(f"{shown} kernels, {shown} launches")


def test_in_ascii_mode_the_status_line_separates_with_bars(loaded_run):
    model = ExplorerModel(loaded_run, ascii_mode=True)
    assert model.status_line(200).startswith("73 kernels, 179 launches | 1.38 ms")


def test_the_header_names_the_report_the_gpu_and_where_the_ceilings_came_from(loaded_run):
    header = ExplorerModel(loaded_run, sample=True).header(200)
    assert header.startswith(f"{SAMPLE.name} (bundled sample) · NVIDIA H200 · ceilings: ")
    assert len(ExplorerModel(loaded_run, sample=True).header(60)) <= 60


# --- find (`/`, `n`, `N`) ------------------------------------------------------------------


def test_slash_jumps_to_the_first_match_without_filtering_and_n_wraps(model):
    everything = names(model)
    matches = [i for i, name in enumerate(everything) if "batchnorm" in name.lower()]
    assert len(matches) == 3  # batchnorm_fwtr (9 launches) and the two batchnorm_bwtr
    model.start_find()
    assert model.type_find("BATCHNORM") is None
    model.submit_find()
    assert model.cursor == matches[0] and model.selected["name"] == everything[matches[0]]
    assert names(model) == everything and model.state.spec.is_empty and not model.find_open
    model.find_next(1)
    assert model.cursor == matches[1]
    model.find_next(1)
    model.find_next(1)  # past the last match: back to the first
    assert model.cursor == matches[0]
    model.find_next(-1)  # and backwards, wrapping to the last
    assert model.cursor == matches[2]


def test_the_find_starts_from_the_cursor_and_escape_returns_there(model):
    model.select(72)
    model.start_find()
    model.type_find("sm90_xmma")
    first = next(i for i, name in enumerate(names(model)) if name.startswith("sm90_xmma"))
    assert model.cursor == first  # from the last row, wrapped to the first match
    model.escape(width=200)
    assert model.cursor == 72 and not model.find_open


def test_a_find_that_matches_nothing_says_so_and_stays(model):
    model.select(1)
    model.start_find()
    assert model.type_find("no_such_kernel") == "no kernel shown matches 'no_such_kernel'"
    assert model.cursor == 1
    assert ExplorerModel(model.state.run).find_next(1) == "/ to find a kernel first"


# --- panes --------------------------------------------------------------------------------


def test_escape_closes_the_detail_pane_only_where_it_covers_the_table(model):
    model.toggle_detail()
    model.escape(width=200)
    assert model.detail_open  # beside the table from 120 columns: it stays
    model.escape(width=80)
    assert not model.detail_open


def test_the_detail_of_the_heaviest_kernel_names_its_roofs_and_ncu_metrics(model):
    text = render(model.detail(100))
    assert "implicit_gemm" in text and "headroom" in text and "binding roof" in text
    assert "FP16 note" not in text and "ncu metrics of its heaviest launch" in text
    metrics = model.state.run.launch_metrics(model.selected)
    assert metrics["gpu__time_duration.sum"] == pytest.approx(model.selected["time_s"] * 1e9)
    model.select(1)  # batchnorm_fwtr: half-precision, so ncu's FP16 caveat
    assert model.selected["fp16_approximate"] and "FP16 note" in render(model.detail(100))
    model.set_filter(KernelFilter(name="no such kernel"))
    assert model.detail() is None


def render(renderable) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_the_table_page_tags_the_heaviest_and_formats_every_column(model):
    model.update_roofline()
    model.roofline_picture(100, 20)
    page = model.table_page(0, 3, name_width=40)
    assert len(page) == 3 and all(len(row) == len(COLUMNS) for row in page)
    assert page[0][0].startswith("1 sm80_xmma_wgra") and len(page[0][0]) <= 40
    first = model.rows.iloc[0]
    assert page[0][1:] == tuple(column.cell(first) for column in COLUMNS[1:])


# --- the roofline and its legend ------------------------------------------------------------


def test_the_selected_kernel_is_drawn_at_its_four_ais_and_one_flop_rate(model):
    model.select(1)
    model.update_roofline()
    figure = model.roofline_picture(100, 20).figure
    row = model.selected
    assert row["name"].startswith("batchnorm_fwtr_nhwc_semiPersist")
    levels = ("l1", "l2", "hbm", "smem")  # the sample has the SMEM counters
    assert [level for level, _, _ in figure.selected] == list(levels)
    assert {y for _, _, y in figure.selected} == {math.log10(row["flop_rate"])}
    assert [x for _, x, _ in figure.selected] == [math.log10(row[f"ai_{lv}"]) for lv in levels]


def test_number_keys_toggle_memory_levels_on_the_roofline(model):
    def drawn():
        model.update_roofline()
        figure = model.roofline_picture(100, 20).figure
        return {s.level for s in figure.points}, {r.key for r in figure.roofs if r.kind == "bandwidth"}

    every = {"l1", "l2", "hbm", "smem"}  # the sample has the SMEM counters
    assert drawn() == (every, every)
    assert model.toggle_level("l1") == "memory levels on the roofline: L2, HBM, SMEM"
    assert drawn() == (every - {"l1"}, every - {"l1"})
    model.toggle_level("l2")
    model.toggle_level("hbm")
    assert model.toggle_level("smem") == "memory levels on the roofline: none"
    assert drawn()[0] == set()


def test_hidden_pipelines_drop_their_compute_roofs(model):
    def roofs():
        model.update_roofline()
        figure = model.roofline_picture(100, 20).figure
        return {k for r in figure.roofs if r.kind == "compute" for k in r.key.split("+")}

    assert roofs() == {"tensor_fp16", "fp16", "fp32", "fp64"}
    model.hide_pipelines({"tensor_fp16"})
    assert roofs() == {"fp16", "fp32", "fp64"}


def test_a_cramped_legend_hands_what_it_cannot_say_to_the_status_line(model):
    model.update_roofline()
    picture = model.roofline_picture(*PANE_AT_80x24)
    hidden = [said.text for said in picture.overflow]
    assert hidden and all(text not in picture.legend.plain for text in hidden)
    assert "FP32 65.7 TFLOP/s (empirical)" in hidden
    status = model.status_line(80)
    # the zero-AI launches stay at 80 columns; the legend's overflow is named, the rest counted
    assert status == "73 kernels · 0-AI: 34 launches · by gain▼ · legend full: FP16/FP32/FP64 roofs +1"
    # with room, everything is in the legend or on the plot, and the status says nothing more
    roomy = model.roofline_picture(200, 60)
    assert roomy.overflow == [] and "legend full" not in model.status_line(200)


def test_zero_ai_only_leaves_nothing_to_plot_and_the_legend_or_status_says_why(model):
    model.toggle_grouped()
    model.set_filter(KernelFilter(zero_ai="only"))
    model.update_roofline()
    picture = model.roofline_picture(*PANE_AT_80x24)
    said = f"{len(names(model))} zero-AI launches not plotted"
    assert said in picture.legend.plain or said in model.status_line(80)
    assert "filtered" in model.status_line(80)


def test_a_ceilings_file_gives_the_roofline_its_measured_slopes(tmp_path):
    from rooftui.analysis import load_run
    from rooftui.model.ceilings import Ceiling, CeilingSet, Device

    measured = CeilingSet(
        Device("NVIDIA H200", "9.0", 132),
        (
            Ceiling("FP32 FMA", "compute", 6.0e13, "empirical", precision="fp32"),
            Ceiling("L2", "bandwidth", 1.0e13, "empirical", level="l2"),
            Ceiling("HBM", "bandwidth", 4.1e12, "empirical", level="hbm"),
        ),
        source="rooftui measure (test)",
    )
    path = tmp_path / "h200.json"
    path.write_text(json.dumps(measured.to_dict()))
    run = load_run([SAMPLE], LoadOptions(ceilings=path))
    model = ExplorerModel(LoadedRun.from_run(run), ceilings_files=path)
    model.update_roofline()
    picture = model.roofline_picture(100, 24)
    labels = {roof.key: roof.label for roof in picture.figure.roofs}
    assert labels["l2"] == "L2 10 TB/s (empirical)" and labels["hbm"] == "HBM 4.1 TB/s (empirical)"
    # on the plot or in the legend
    shown = " ".join(picture.plot_rows) + " " + picture.legend.plain
    assert "L2 10 TB/s (empirical)" in shown
    assert "from h200.json" in model.header(200)


def test_stepping_points_selects_their_kernels_left_to_right(model):
    from rooftui.views.tui.roofline_layout import nearest_in_order

    model.update_roofline()
    layout = model.roofline_picture(100, 24).layout
    start = (model.roofline.figure.selected[0][0], model.selected.name)
    expected = nearest_in_order(layout.stops, start, 1)
    assert model.step_point(1)
    assert model.roofline.cursor == (expected.level, expected.kernel)
    assert model.positions[model.cursor] == expected.kernel  # the table row of that point
    # Each step selects its kernel, which is then drawn on top of the points it shares a cell
    # with; stepping back still retraces the same points, whatever was on top.
    visited = [model.roofline.cursor]
    for _ in range(12):
        model.step_point(1)
        visited.append(model.roofline.cursor)
    for back in reversed(visited[:-1]):
        model.step_point(-1)
        assert model.roofline.cursor == back
    assert model.next_device() == "one GPU in this run"
