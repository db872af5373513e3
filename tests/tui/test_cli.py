"""`rooftui plot`: the explorer's view and table without a terminal, for batch jobs."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pytest

from rooftui.cli import main
from tests.tui.conftest import SAMPLE


def rooftui(*args: str) -> None:
    main([*args])


def test_plot_csv_of_zero_ai_invocations(tmp_path, capsys):
    out = tmp_path / "zero_ai.csv"
    rooftui("plot", str(SAMPLE), "--invocations", "--zero-ai", "only", "--csv", str(out))
    rows = pd.read_csv(out)
    assert len(rows) == 34 and rows["zero_ai"].all()
    assert rows["time_s"].is_monotonic_decreasing
    assert f"wrote 34 rows to {out}" in capsys.readouterr().out


def test_plot_csv_filters_and_sorts_like_the_explorer(tmp_path):
    out = tmp_path / "k.csv"
    rooftui(
        "plot",
        str(SAMPLE),
        "--name",
        "^sm[89]0_xmma",
        "--regex",
        "--sort",
        "ai_hbm",
        "--ascending",
        "--csv",
        str(out),
    )
    rows = pd.read_csv(out)
    assert len(rows) == 16 and rows["ai_hbm"].is_monotonic_increasing
    assert set(rows["count"]) >= {1, 3}


def test_plot_screenshot_shows_the_filtered_view(tmp_path):
    svg, csv = tmp_path / "view.svg", tmp_path / "view.csv"
    rooftui(
        "plot",
        str(SAMPLE),
        "--name",
        "batchnorm",
        "--screenshot",
        str(svg),
        "--csv",
        str(csv),
        "--size",
        "120x36",
    )
    text = svg.read_text()
    assert text.startswith("<svg")
    assert "3&#160;kernels" in text and "batchnorm" in text
    assert len(pd.read_csv(csv)) == 3


def test_plot_needs_an_output(capsys):
    with pytest.raises(SystemExit) as exit_:
        rooftui("plot", str(SAMPLE))
    assert exit_.value.code == 2
    assert "give --svg FILE, --png FILE, --screenshot FILE or --csv FILE" in capsys.readouterr().err


def test_plot_names_what_the_run_has_when_a_pipeline_is_not_in_it(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        rooftui("plot", str(SAMPLE), "--pipeline", "tensor_fp8", "--csv", str(tmp_path / "x.csv"))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("rooftui: no pipeline 'tensor_fp8' in this run; present: fp64")
    assert len(err.strip().splitlines()) == 1


def test_plot_rejects_a_bad_regex_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        rooftui("plot", str(SAMPLE), "--name", "(", "--regex", "--csv", str(tmp_path / "x.csv"))
    assert exit_.value.code == 2
    assert "not a valid regular expression" in capsys.readouterr().err


def test_open_offers_ceilings_trace_and_ascii(capsys):
    rooftui("open", "--help")
    help_text = capsys.readouterr().out
    for option in ("--ceilings", "--trace", "--ascii", "NO_COLOR"):
        assert option in help_text


# --- the roofline as a figure (matplotlib) ------------------------------------------


def known_answer() -> Path:
    return Path(__file__).resolve().parents[2] / "sample_data" / "known_answer" / "known_answer.raw-base.csv"


class Drawn(NamedTuple):
    png: Path
    svg: Path
    out: str  # what the command printed
    figure: Any  # the matplotlib Figure the command drew
    draws: int  # how many times the figure was drawn while the command wrote its files


@pytest.fixture(scope="module")
def known_answer_figure(tmp_path_factory) -> Drawn:
    """``plot known_answer --png --svg``, run once for the checks of both files (one
    figure, saved in both formats), with the figure it drew and how often it was drawn."""
    from matplotlib.figure import Figure

    import rooftui.views.figure as figure_module

    folder = tmp_path_factory.mktemp("figure")
    png, svg = folder / "roofline.png", folder / "roofline.svg"
    out = io.StringIO()
    figures, draws = [], []
    real_figure, real_draw = figure_module.roofline_figure, Figure.draw
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(out):
        keep = lambda *a, **k: figures.append(real_figure(*a, **k)) or figures[-1]  # noqa: E731
        patch.setattr(figure_module, "roofline_figure", keep)
        patch.setattr(Figure, "draw", lambda self, renderer: draws.append(self) or real_draw(self, renderer))
        rooftui("plot", str(known_answer()), "--png", str(png), "--svg", str(svg))  # both at once
    [figure] = figures
    return Drawn(png, svg, out.getvalue(), figure, len(draws))


def test_each_file_is_one_draw_of_a_figure_laid_out_once_that_keeps_no_layout_engine(known_answer_figure):
    # The figure is laid out before its labels are placed, then keeps no layout engine: with
    # Matplotlib's "none" (a placeholder engine, as before) savefig drew it twice per file,
    # for the same bytes (SVG, PNG and PDF of nine inputs compared: benchmarks/results/
    # 2026-12-02-suite-w26cmd.md; tests/core/test_figure_laid_out_once.py compares an SVG).
    drawn = known_answer_figure
    assert drawn.draws == 2 and drawn.figure.get_layout_engine() is None


def test_plot_png_is_a_roofline_figure_an_image_reader_opens(known_answer_figure):
    from PIL import Image  # Pillow: Matplotlib's own PNG reader

    from rooftui.views.figure import COLOURS

    png, svg, out = known_answer_figure[:3]
    assert f"wrote {png} (roofline figure)" in out and f"wrote {svg} (roofline figure)" in out
    assert svg.read_text().lstrip().startswith("<?xml")
    with Image.open(png) as image:
        pixels = np.asarray(image)  # RGBA, 0..255
    assert pixels.shape == (1380, 2100, 4)  # 7 x 4.6 inches (a paper's width) at 300 dpi
    rgb = pixels[..., :3].astype(np.int16)
    ink = (rgb < 230).any(axis=2)  # darker than 0.9 of white
    assert 0.02 < ink.mean() < 0.5  # drawn on, not a blank or a black page
    for level, colour in COLOURS.items():
        target = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        near = (np.abs(rgb - target) <= 12).all(axis=2)  # within 0.05 of 255
        assert near.sum() > 100, f"no {level} points or slope"


def test_plot_svg_labels_every_roof_and_slope_with_value_and_source_and_has_a_legend(
    known_answer_figure, load_once
):
    from rooftui.analysis import instruction_roofline

    svg = known_answer_figure.svg
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    # The FLOP roofline without --instructions, although the report has what the instruction
    # roofline needs (its issue roof: tests/cli/test_plot_instructions.py draws that one).
    issue = instruction_roofline.ceilings_for(load_once(known_answer()), "NVIDIA H200").issue
    assert issue is not None and "warp issue" not in text
    # The H200's measured ceilings bundled with rooftui (rooftui/data/ceilings:
    # L1 3.2136e13 B/s, L2 8.9843e12, HBM 4.5550e12, FP64 FMA 3.3306e13 FLOP/s, Tensor
    # TF32 4.8468e14): each value beside its line, and with its source in the legend.
    for label in (
        "L1 32.1 TB/s",
        "L2 8.98 TB/s",
        "HBM 4.56 TB/s",
        "FP64 33.3 TFLOP/s",
        "Tensor TF32 485 TFLOP/s",
    ):
        assert text.count(label) == 2 and text.count(f"{label} (empirical)") == 1, label
    assert "roofs: bundled with rooftui, measured 20" in text  # where they came from, and when
    for entry in (
        "kernels at L1 AI",
        "kernels at L2 AI",
        "kernels at HBM AI",
        "Arithmetic intensity (FLOP/byte)",
        "Performance (FLOP/s)",
    ):
        assert entry in text
    # copy_f32 did no work; wmma_gemm_int8 did integer Tensor work: not zero-AI, no FLOP either
    assert "not plotted (no FLOP): 1 of 15 launches zero-AI (1 of 15 kernels)" in text
    assert "1 INT8 Tensor launch not plotted (integer ops, no FLOP)" in text
    assert "NVIDIA H200" in text


def test_plot_figure_without_matplotlib_says_which_extra_to_install(tmp_path, capsys, monkeypatch):
    import sys as _sys

    monkeypatch.setitem(_sys.modules, "matplotlib.figure", None)  # the import fails
    png = tmp_path / "roofline.png"
    with pytest.raises(SystemExit) as exit_:  # any report: the smallest
        rooftui("plot", str(known_answer()), "--png", str(png))
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == "rooftui: drawing a figure needs matplotlib — pip install 'rooftui[plot]'"
    assert not png.exists()


def test_plot_figure_of_two_gpus_has_a_panel_per_gpu_each_with_its_own_roofs(tmp_path):
    import re

    from tests.tui.test_roofline_points import two_gpu_reports

    reports = [str(p) for p in two_gpu_reports(tmp_path)]
    svg = tmp_path / "two.svg"
    rooftui("plot", *reports, "--svg", str(svg))
    text = svg.read_text()
    assert "NVIDIA H200" in text and "NVIDIA H100 80GB HBM3" in text
    # the H200 against its bundled measured ceilings; the second GPU against its
    # report's HBM peak, which was halved in its copy (the report says 4.81 TB/s)
    assert text.count("HBM 4.56 TB/s (empirical)") == 1 and text.count("HBM 2.41 TB/s (report)") == 1
    assert text.count("HBM 4.56 TB/s") == 2 and text.count("HBM 2.41 TB/s") == 2  # and beside each slope
    # two 7 x 4.6-inch panels, one above the other (72 pt an inch; the same figure as a PNG is
    # 300 pixels an inch: test_plot_png_is_a_roofline_figure_an_image_reader_opens)
    size = re.search(r'<svg[^>]* width="([\d.]+)pt" height="([\d.]+)pt"', text)
    assert size is not None and (float(size[1]), float(size[2])) == pytest.approx((7 * 72, 2 * 4.6 * 72))


def test_plot_into_a_missing_folder_is_one_line_and_exit_2(tmp_path, capsys):
    png = tmp_path / "no" / "such" / "roofline.png"
    with pytest.raises(SystemExit) as exit_:
        rooftui("plot", str(known_answer()), "--png", str(png))
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"rooftui: {png}: no such folder") and len(err.splitlines()) == 1
