"""The status line at the smallest size (80x24), on screen: what the legend could not
say reaches it. What it says for a width is checked in test_explorer_model.py."""

from __future__ import annotations

from tests.tui.conftest import loaded, screen_text


async def test_at_80x24_the_status_line_says_what_the_full_legend_could_not(sample_app):
    from rooftui.views.tui.widgets.roofline import RooflinePane

    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        pane = app.explorer.query_one(RooflinePane)
        legend = pane.query_one("#roofline-legend").render().plain
        status = screen_text(app).splitlines()[app.explorer.query_one("#status").region.y]
        # the sample's FP32 and FP64 roofs have their full labels neither on the plot
        # nor in the three legend rows: the status line names them
        hidden = [said.text for said in pane.overflow]
        assert hidden and all(text not in legend for text in hidden)
        assert "FP32 65.7 TFLOP/s (empirical)" in hidden
        assert "legend full: FP32/FP64 roofs +1" in status and "0-AI: 34 launches" in status
        assert "by gain▼" in status


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
