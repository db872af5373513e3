"""The roofline figure for a paper (issue 24 item 6): no label over another label, a
title or the legend, no slope label struck through by another roof, a dash pattern of
its own for every roof, GPUs stacked in a paper's width, the explorer's colours.

Geometry comes from matplotlib's own text extents (the Agg renderer's boxes), not from
pixels, so a failure names the two labels that touch."""

from __future__ import annotations

import functools
import itertools
from importlib.util import find_spec

import numpy as np
import pytest

from rooftui.analysis import grouped_kernels, load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.model.columns import FLOAT_PIPELINES
from rooftui.sample import sample_ceilings, sample_paths
from rooftui.views.figure import COLOURS, FIGURE_WIDTH_IN, roofline_figure
from rooftui.views.figure_labels import outlines_overlap, text_box, text_outline
from rooftui.views.tui.roofline_model import ceilings_per_device
from tests.conftest import KNOWN, SAMPLES

# matplotlib is imported by the tests, not when the suite is collected: each pytest-xdist
# worker collects every module, and matplotlib costs ~0.3 s of CPU to import.
pytestmark = pytest.mark.skipif(find_spec("matplotlib") is None, reason="matplotlib is not installed")

EVERY_PIPELINE = [*FLOAT_PIPELINES, "tensor_int8"]


@functools.cache
def figure_of(paths, ceilings=None):
    """The figure of ``paths`` (a tuple), drawn once per worker: the tests only read it."""
    run = load_run([str(p) for p in paths], LoadOptions(ceilings=ceilings))
    rows = grouped_kernels(run)
    return roofline_figure(rows, ceilings_per_device(run), pipelines=EVERY_PIPELINE, title="a title")


@functools.cache
def outlines(figure):
    """Every piece of text a reader reads, by name, as the rectangle its characters fill
    (turned with the text): the roofs' and slopes' labels, the notes, the titles, the
    axis titles and the legend. Measured once per figure (``figure_of``'s are shared):
    the tests only read them."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()

    def upright(box):
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])

    named = [("suptitle", text_outline(figure._suptitle, renderer))]
    for number, ax in enumerate(figure.axes):
        named.append((f"{number}: title", text_outline(ax.title, renderer)))
        named.append((f"{number}: x axis title", text_outline(ax.xaxis.label, renderer)))
        named.append((f"{number}: legend", upright(ax.get_legend().get_window_extent(renderer))))
        for text in ax.texts:
            outline = text_outline(text, renderer)
            # The slanted rectangle is matplotlib's own: its upright box is the window extent.
            box = text_box(text, renderer)
            assert np.allclose(
                [outline[:, 0].min(), outline[:, 1].min(), outline[:, 0].max(), outline[:, 1].max()],
                [box.x0, box.y0, box.x1, box.y1],
                atol=1.5,
            )
            kind = "tag" if text.get_text().isdigit() else "label"
            named.append((f"{number}: {kind} {text.get_text()!r}", outline))
    return named, renderer


def overlapping(named):
    found = []
    for (a, outline_a), (b, outline_b) in itertools.combinations(named, 2):
        if "tag" in a and "tag" in b:
            continue  # tags sit on their points: where they go is the explorer's item 2
        if outlines_overlap(outline_a, outline_b):
            found.append((a, b))
    return found


@pytest.mark.parametrize(
    "paths",
    [
        (sample_paths()[0],),  # Tensor BF16 940 and FP16 899 are 0.02 decades apart
        (KNOWN / "known_answer.raw-base.csv",),  # Tensor FP64 66.7 over FP32 65.7 read "FP62"
    ],
    ids=["sample", "known_answer"],
)
def test_no_label_overlaps_another_label_a_title_or_the_legend(paths):
    named, _ = outlines(figure_of(paths, ceilings=sample_ceilings()))
    labels = [name for name, _ in named if "label" in name]
    assert any("Tensor BF16 940 TFLOP/s" in name for name in labels)
    assert any("Tensor FP64 66.7 TFLOP/s" in name for name in labels)
    assert any("FP32 65.7 TFLOP/s" in name for name in labels)
    assert overlapping(named) == []


def test_no_slope_label_is_struck_through_by_another_roof():
    figure = figure_of((KNOWN / "known_answer.raw-base.csv",), ceilings=sample_ceilings())
    named, renderer = outlines(figure)
    ax = figure.axes[0]
    for text in ax.texts:
        if not text.get_text().endswith("B/s"):
            continue
        outline = text_outline(text, renderer)
        for line in ax.get_lines():
            if line.get_label() and line.get_label().startswith(text.get_text()):
                continue  # its own slope
            xs, ys = line.get_data()
            if len(xs) < 2:
                continue
            t = np.linspace(0, 1, 500)
            points = ax.transData.transform(
                np.column_stack([xs[0] * (xs[1] / xs[0]) ** t, ys[0] * (ys[1] / ys[0]) ** t])
            )
            # inside the slanted rectangle: on the inner side of its four edges
            inside = np.ones(len(points), dtype=bool)
            for i in range(4):
                start, edge = outline[i], outline[(i + 1) % 4] - outline[i]
                inside &= edge[0] * (points[:, 1] - start[1]) - edge[1] * (points[:, 0] - start[0]) > 0
            assert not inside.any(), f"{line.get_label()} crosses the label {text.get_text()!r}"


def test_every_roof_has_a_dash_pattern_of_its_own():
    figure = figure_of((sample_paths()[0],), ceilings=sample_ceilings())
    roofs = [line for line in figure.axes[0].get_lines() if line.get_label().endswith(")")]
    compute = [line for line in roofs if "FLOP/s" in line.get_label() or "OP/s" in line.get_label()]
    assert len(compute) == 9  # every roof the H200's ceilings have, INT8 included
    patterns = [(line.get_color(), str(line._unscaled_dash_pattern)) for line in roofs]
    # and a slope per bandwidth the ceilings file has: L1, SMEM (the sample carries the SMEM
    # counters), L2, HBM
    assert len(set(patterns)) == len(roofs) == 9 + 4


def test_two_gpus_are_stacked_in_a_papers_width(tmp_path):
    ranks = SAMPLES / "multigpu"
    figure = figure_of((ranks / "ddp.rank0.raw.csv.xz", ranks / "ddp.rank1.raw.csv.xz"))
    width, height = figure.get_size_inches()
    assert width == FIGURE_WIDTH_IN == 7.0 and height > width  # was 24 x 6.5 in, side by side
    top, bottom = (ax.get_position() for ax in figure.axes)
    assert top.x0 == pytest.approx(bottom.x0) and top.y0 > bottom.y1
    named, _ = outlines(figure)
    assert overlapping(named) == []
    # each panel's heaviest kernel as a share of its own GPU's time, not of both GPUs'
    for ax in figure.axes:
        first = next(t.get_text() for t in ax.get_legend().get_texts() if "sm80_xmma_wgrad" in t.get_text())
        assert first.endswith("of this GPU's plotted time)")
        assert 7.0 <= float(first.rsplit("(", 1)[1].split("%")[0]) < 8.0  # 108 us of 1.46 ms


def test_the_figure_draws_levels_in_the_explorers_colours():
    from rooftui.views.palette import LEVEL_COLOURS
    from rooftui.views.tui.roofline_layout import LEVEL_COLOURS as EXPLORER

    assert EXPLORER is LEVEL_COLOURS
    assert COLOURS == {level: "#{:02x}{:02x}{:02x}".format(*rgb) for level, rgb in LEVEL_COLOURS.items()}
