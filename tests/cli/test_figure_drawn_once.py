"""``rooftui plot``'s figure is drawn once per file it writes. It is laid out before its
labels are placed and then keeps no layout engine: with Matplotlib's "none" (a placeholder
engine) savefig drew the whole figure twice for each file. The independent answer: the
same figure saved with that placeholder engine, as before, is the same file byte for byte."""

from __future__ import annotations

import io

import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine, PlaceHolderLayoutEngine  # noqa: E402

from rooftui.analysis import grouped_kernels  # noqa: E402
from rooftui.views.figure import roofline_figure  # noqa: E402
from rooftui.views.tui.roofline_model import ceilings_per_device  # noqa: E402
from tests.conftest import KNOWN  # noqa: E402


def test_each_file_is_one_draw_and_the_file_the_placeholder_engines_two_draws_wrote(load_once, monkeypatch):
    run = load_once(KNOWN / "known_answer.raw-base.csv")
    figure = roofline_figure(
        grouped_kernels(run), ceilings_per_device(run), pipelines=["fp64", "tensor_tf32"]
    )
    monkeypatch.setitem(matplotlib.rcParams, "svg.hashsalt", "same ids in both")  # ids are random else
    monkeypatch.setitem(matplotlib.rcParams, "svg.fonttype", "none")  # as roofline_figure_files saves
    draws = []
    real_draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda self, renderer: draws.append(1) or real_draw(self, renderer))

    def svg() -> bytes:
        out = io.BytesIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
        return out.getvalue()

    assert figure.get_layout_engine() is None
    once = svg()
    assert len(draws) == 1
    # as before: set_layout_engine("none") on the constrained engine left this placeholder
    constrained = ConstrainedLayoutEngine()
    figure.set_layout_engine(
        PlaceHolderLayoutEngine(constrained.adjust_compatible, constrained.colorbar_gridspec)
    )
    twice = svg()
    assert len(draws) == 3
    assert b"<svg" in once and b"FP64" in once and once == twice
