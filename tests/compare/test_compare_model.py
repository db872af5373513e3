"""The compare screen without an app: ``CompareModel`` on the DeepCAM FP32 vs AMP runs.

What the screen shows (lists, names, selection, the chart and its legend, a pair's
detail) is decided by the model; the Pilot tests in test_compare_screen.py keep only
the wiring of keys and widgets to it. The pane sizes below are the chart pane's on the
screen at 80x24 and 120x40 (test_compare_screen.py checks them on the screen).
"""

from __future__ import annotations

import pytest

from rooftui.views.text import short_names
from rooftui.views.tui.compare_model import LISTS, PAIR_LINES, CompareModel
from rooftui.views.tui.compare_overlay import roof_legend_text

# The chart's pane (chart and legend) on the screen: (width, height), lists shown or zoomed.
PANES = {
    (80, 24): {"lists": (80, 11), "zoomed": (80, 18)},
    (120, 40): {"lists": (120, 21), "zoomed": (120, 34)},
}


@pytest.fixture
def model(comparison) -> CompareModel:
    return CompareModel(comparison)


def draw(model: CompareModel, pane: tuple[int, int]):
    """The chart and legend as the screen lays them out in ``pane``."""
    rows = model.legend_rows(*pane)
    picture = model.chart(pane[0], pane[1] - rows)
    return picture, model.legend(pane[0]).plain.splitlines(), rows


def test_it_opens_on_the_heaviest_matched_pair_described(model, comparison):
    first = int(comparison.matched.index[0])
    assert model.view == "matched" and model.selected_row == first
    assert model.selected_pairs == {first}
    assert model.summary_line(120).plain == (
        "A deepcam_fp32 1.58 ms → B deepcam_amp 1.38 ms (-13%) · 53 matched · 8 only A · 20 only B"
    )
    # At 80 columns the counts go first (the views line under it has them), the change never.
    at_80 = "A deepcam_fp32 1.58 ms → B deepcam_amp 1.38 ms (-13%) · 53 matched"
    assert model.summary_line(78).plain == at_80
    lines = model.detail_line().plain.splitlines()
    how = "same name but its parameters, 3 launches aligned · 63.9 TFLOP/s → 167 TFLOP/s"
    assert lines[0].startswith(how)
    assert lines[1].startswith("A sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32")
    assert lines[2].startswith("B sm90_xmma_wgrad_indexed_implicit_gemm_f16f16_f16f32")


@pytest.mark.parametrize("width", [80, 120, 200])
def test_names_come_from_the_one_shortener_fitted_to_the_column_left(model, comparison, width):
    widths = model.column_widths("matched", width)
    # The numbers whole, the name the rest: the row fits the list's width.
    assert sum(w + 2 for w in widths) + 2 <= width
    names = [n for side in "ab" for n in comparison.kernels[f"name_{side}"] if isinstance(n, str)]
    expected = short_names(names, widths[-1])
    rows = model.rows("matched", width)
    shown = [cells[-1] for _, cells in rows]
    assert shown == [expected[name] for name in comparison.matched["name_b"]]
    assert all(len(name) <= widths[-1] for name in shown)
    assert len(set(shown)) == len(set(comparison.matched["name_b"]))  # no two kernels read alike
    # Each time as the CLI's diff writes it, whole: 118.784 µs in A, 40.672 µs in B (-66%).
    assert rows[0][1][:4] == ("params", "119µs", "40.7µs", "-66%")


def test_a_wider_list_shows_more_of_each_name(model):
    at_80 = [cells[-1] for _, cells in model.rows("matched", 80)]
    at_120 = [cells[-1] for _, cells in model.rows("matched", 120)]
    assert sum(map(len, at_120)) > sum(map(len, at_80))
    assert "batchnorm_fwtr_nhwc_semiPersist<__half,float>" in at_120  # whole at 120


def test_operations_lead_with_the_convolutions_and_select_every_pair_of_one(model, comparison):
    model.show_view("operations")
    rows = model.rows("operations", 120)
    assert [cells[-1] for _, cells in rows[:3]] == ["conv wgrad", "conv dgrad", "conv fprop"]
    assert rows[0][1][2:6] == ("266µs", "220µs", "-17%", "TC TF32→TC FP16")
    assert model.detail_line().plain == "backward · conv wgrad: 5 kernels in A, 6 in B"
    matched = comparison.matched
    wgrad = matched[(matched["operation_b"] == "conv wgrad") & (matched["phase_b"] == "backward")]
    assert model.selected_pairs == set(wgrad.index) and len(wgrad) >= 5
    picture = model.chart(120, 20)
    assert {a.row for a in picture.overlay.arrows} >= set(wgrad.index)  # drawn whatever their rank


def test_select_moves_within_the_shown_list_and_each_list_keeps_its_row(model, comparison):
    model.select(1)
    assert model.selected_row == int(comparison.matched.index[1])
    assert model.detail_line().plain.startswith(f"same operation ({comparison.matched.iloc[1]['key']})")
    model.show_view("only-b")
    model.select(99)  # kept in range
    assert model.selected_row == int(comparison.only_b.index[-1]) and model.selected_pairs == set()
    model.show_view("matched")
    assert model.selected_row == int(comparison.matched.index[1])
    model.show_view("totals")
    assert model.selected_row is None and model.pair_detail() is None


def test_l_cycles_the_level_of_the_arrows_and_the_legend_says_which(model):
    assert [model.next_level() for _ in range(3)] == ["l1", "l2", "hbm"]
    model.next_level()
    picture, legend, _ = draw(model, (120, 21))
    assert picture.overlay.level == "l1"
    assert "10 heaviest matched at L1" in legend[0]


def test_plus_and_minus_change_how_many_arrows(model):
    assert [model.change_arrows(s) for s in (1, -1, -1, -1)] == [15, 10, 5, 4]  # by 5, then 1 by 1
    _, legend, _ = draw(model, (120, 21))
    assert len(model.picture.overlay.arrows) == 4 and "4 heaviest matched at HBM" in legend[0]


def test_enter_on_a_pair_gives_both_sides_numbers_and_what_changed(model, comparison):
    pair = comparison.matched.iloc[0]
    lines = model.pair_detail().plain.splitlines()
    words = {line.split("  ")[0]: line.split() for line in lines[3:20] if line}
    # From the two reports: 4 and 3 launches, 118.784 and 40.672 µs, 7.5886 and 6.7956
    # GFLOP, so 63.9 and 167 TFLOP/s: B against A, -25%, -66%, -10%, +162%.
    assert words["launches"][-3:] == ["4", "3", "-25%"]
    assert words["time"][-5:] == ["119", "µs", "40.7", "µs", "-66%"]
    assert words["FLOP/s"][-5:] == ["63.9", "TFLOP/s", "167", "TFLOP/s", "+162%"]
    assert words["FLOP"][-5:] == ["7.59", "GFLOP", "6.8", "GFLOP", "-10%"]
    assert words["pipeline"][-5:] == ["TC", "TF32", "TC", "FP16", "changed"]
    assert words["bound"][-2:] == ["L2", "L2"]  # unchanged: no word
    assert lines[2].split() == ["A", "deepcam_fp32", "B", "deepcam_amp", "change"]
    assert f"A {pair['name_a']}" in lines and f"B {pair['name_b']}" in lines  # whole


def test_enter_on_a_kernel_of_one_run_says_it_is_not_in_the_other(model, comparison):
    model.show_view("only-a")
    text = model.pair_detail().plain
    assert text.startswith("only in A: no kernel of the other run matched it")
    assert text.count("not in B") == len(PAIR_LINES) and "not in A" not in text
    assert f"A {comparison.only_a.iloc[0]['name_a']}" in text.splitlines()
    model.show_view("operations")
    assert model.pair_detail() is None  # an operation is not a kernel


@pytest.mark.parametrize("ascii_mode", [False, True])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("where", ["lists", "zoomed"])
def test_the_legend_wraps_between_items_and_names_every_roof_the_plot_does_not(
    comparison, ascii_mode, size, where
):
    model = CompareModel(comparison, ascii_mode=ascii_mode)
    pane = PANES[size][where]
    picture, legend, rows = draw(model, pane)
    assert len(legend) <= rows and all(len(line) <= pane[0] - 2 for line in legend)
    items = [roof_legend_text(roof) for roof in picture.unlabelled]
    markers = ("o", "*") if ascii_mode else ("○", "●")
    items += [f"{markers[0]} A deepcam_fp32", f"{markers[1]} B deepcam_amp", "10 heaviest matched at HBM"]
    for item in items:
        assert any(item in line for line in legend), item  # on one line: never cut inside
    # Every roof's value is said: beside it on the plot, or in the legend.
    written = {label.series for label in picture.layout.labels}
    for roof in picture.overlay.figure.roofs:
        assert roof.key in written or roof_legend_text(roof) in " ".join(legend)


@pytest.mark.parametrize("ascii_mode", [False, True])
def test_zoomed_at_80x24_every_roof_is_labelled_on_the_plot(comparison, ascii_mode):
    model = CompareModel(comparison, ascii_mode=ascii_mode)
    picture, _, _ = draw(model, PANES[(80, 24)]["zoomed"])
    assert picture.unlabelled == []
    texts = [label.text for label in picture.layout.labels]
    assert "Tensor FP16 899 TFLOP/s" in texts  # the roof left unlabelled before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_the_chart_says_what_its_axes_measure_with_units(model, size):
    picture, _, _ = draw(model, PANES[size]["lists"])
    rows = picture.layout.text_rows()
    assert rows[0].startswith("FLOP/s")
    assert "AI (FLOP/byte)" in rows[-1] or "arithmetic intensity (FLOP/byte)" in rows[-1]


def test_ascii_mode_shows_nothing_but_ascii(comparison):
    model = CompareModel(comparison, ascii_mode=True)
    texts = [model.summary_line(80).plain, model.views_line().plain, model.detail_line().plain]
    texts += [" ".join(cells) for view in LISTS for _, cells in model.rows(view, 80)]
    texts += [" ".join(model.titles(view)) for view in LISTS]
    picture, legend, _ = draw(model, (80, 11))
    texts += [*picture.layout.text_rows(), *legend, model.pair_detail().plain]
    assert all(text.isascii() for text in texts)
    assert "TC TF32->TC FP16" in texts[3] and "@ 1 selected" in legend[0]


def test_escape_leaves_the_zoom_first(model):
    model.toggle_zoom()
    assert model.escape() is True and not model.zoomed
    assert model.escape() is False  # nothing left here: the screen goes back
