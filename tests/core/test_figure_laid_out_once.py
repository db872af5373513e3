"""The roofline figure is laid out by its layout engine alone before its labels are
placed, not by a whole draw that renders nothing (a third draw besides the PNG's and the
SVG's). The independent answer: the same figure laid out by a whole draw, as before,
written byte for byte the same."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

import rooftui.views.figure as figure_module
from rooftui.analysis import grouped_kernels
from rooftui.views.figure import roofline_figure_bytes
from rooftui.views.tui.roofline_model import ceilings_per_device
from tests.conftest import KNOWN

# matplotlib is imported by the test, not when the suite is collected: each pytest-xdist
# worker collects every module, and matplotlib.figure costs ~0.5 s of CPU to import.
pytestmark = pytest.mark.skipif(find_spec("matplotlib") is None, reason="matplotlib is not installed")


def laid_out_by_a_draw():
    """A Figure class whose layout is done by a whole draw without rendering, as
    ``roofline_figure`` did before: the draw runs the same engine, then draws every artist."""
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    class LaidOutByADraw(Figure):
        drawing = False
        layouts = 0  # how many times the figure asked its engine to lay it out

        def get_layout_engine(self):
            engine = super().get_layout_engine()
            if self.drawing or not isinstance(engine, ConstrainedLayoutEngine):
                return engine
            figure = self

            class ByADraw:
                def execute(self, _figure) -> None:
                    LaidOutByADraw.layouts += 1
                    figure.drawing = True
                    try:
                        figure.draw_without_rendering()
                    finally:
                        figure.drawing = False

            return ByADraw()

    return LaidOutByADraw


def test_the_figure_laid_out_by_its_engine_alone_is_the_one_a_whole_draw_lays_out(load_once, monkeypatch):
    LaidOutByADraw = laid_out_by_a_draw()
    run = load_once(KNOWN / "known_answer.raw-base.csv")
    rows, ceilings = grouped_kernels(run), ceilings_per_device(run)

    def svg() -> bytes:
        return roofline_figure_bytes(
            rows, ceilings, "svg", pipelines=["fp64", "tensor_tf32"], title="a title"
        )

    once = svg()
    monkeypatch.setattr(figure_module, "figure_class", lambda: LaidOutByADraw)
    drawn = svg()
    assert b"<svg" in once and b"FP64" in once
    assert LaidOutByADraw.layouts == 1  # laid out once, before the labels were placed
    assert once == drawn  # ids included: the same input gives the same file (figure.saving)
