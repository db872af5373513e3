"""The roofline figure is laid out by its layout engine alone before its labels are
placed, not by a whole draw that renders nothing (a third draw besides the PNG's and the
SVG's). The independent answer: the same figure laid out by a whole draw, as before,
written byte for byte the same."""

from __future__ import annotations

import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402

import rooftui.views.figure as figure_module  # noqa: E402
from rooftui.analysis import grouped_kernels  # noqa: E402
from rooftui.views.figure import roofline_figure_bytes  # noqa: E402
from rooftui.views.tui.roofline_model import ceilings_per_device  # noqa: E402
from tests.conftest import KNOWN  # noqa: E402


class LaidOutByADraw(Figure):
    """A Figure whose layout is done by a whole draw without rendering, as
    ``roofline_figure`` did before: the draw runs the same engine, then draws every artist."""

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


def test_the_figure_laid_out_by_its_engine_alone_is_the_one_a_whole_draw_lays_out(load_once, monkeypatch):
    run = load_once(KNOWN / "known_answer.raw-base.csv")
    rows, ceilings = grouped_kernels(run), ceilings_per_device(run)
    monkeypatch.setitem(matplotlib.rcParams, "svg.hashsalt", "same ids in both")  # ids are random else

    def svg() -> bytes:
        return roofline_figure_bytes(
            rows, ceilings, "svg", pipelines=["fp64", "tensor_tf32"], title="a title"
        )

    once = svg()
    monkeypatch.setattr(figure_module, "figure_class", lambda: LaidOutByADraw)
    drawn = svg()
    assert b"<svg" in once and b"FP64" in once
    assert LaidOutByADraw.layouts == 1  # laid out once, before the labels were placed
    assert once == drawn
