"""The status line at the smallest size (80x24): what the legend could not say reaches
it. What it says for a width is checked here and in test_explorer_model.py; on screen at
80x24 in test_explorer.py (the resize test) and the snapshots."""

from __future__ import annotations


def test_the_status_line_counts_what_does_not_fit_and_never_cuts_an_item():
    from rooftui.views.tui.format import fit_items

    items = ["34 zero-AI not plotted", "FP32/FP64 roofs", "sources"]
    everything = "legend full: 34 zero-AI not plotted, FP32/FP64 roofs, sources"
    assert fit_items("legend full: ", items, 200) == everything
    assert fit_items("legend full: ", items, 40) == "legend full: 34 zero-AI not plotted +2"
    assert fit_items("legend full: ", items, 20) == "legend full +3"
    assert fit_items("legend full: ", [], 20) == ""


def test_where_no_roof_name_fits_the_status_line_counts_the_roofs_rather_than_plus_n(sample_run):
    from rooftui.views.tui.explorer_model import ExplorerModel
    from rooftui.views.tui.view_state import LoadedRun

    model = ExplorerModel(LoadedRun.from_run(sample_run))
    model.toggle_grouped()
    model.update_roofline()
    model.roofline_picture(80, 12)  # the roofline pane at 80x24: FP16, FP32 and FP64 not in the legend
    status = model.status_line(80)
    assert status == "179 launches · 0-AI: 34 launches · by gain▼ · legend full: 3 roofs, sources"
