"""`rooftui advise --figure FILE`: the step budget drawn to scale, every bar labelled."""

from __future__ import annotations

from importlib.util import find_spec

import pytest

from rooftui.views.formats import seconds
from tests.conftest import run_cli

# Not importorskip: the test imports matplotlib, not the suite's collection (in every worker)
pytestmark = pytest.mark.skipif(find_spec("matplotlib") is None, reason="matplotlib is not installed")


def test_the_figure_names_every_bar_of_the_budget_and_the_speed_of_light(advise_json_top_5, load_once):
    done, path = advise_json_top_5  # the run's JSON: test_advise_cli.py
    assert done.returncode == 0, done.stderr
    svg = path.read_text()
    labels = (
        "measured step",
        "GPU idle / host-bound",
        "not collected",
        "launch floors",
        "speed-of-light step",
        "1.38 ms",
    )
    for label in labels:
        assert label in svg, label
    # the bundled AMP step's speed of light: Σ per launch of max(every term, the launch floor),
    # recomputed from the report's columns and the ceilings file (test_advise_terms.by_hand):
    # 351 µs; 308 µs before warp instructions, shared wavefronts and transactions were terms
    # (322 µs while L2 bytes were lts__t_bytes, docs/l2-bytes.md)
    assert seconds(speed_of_light_by_hand(load_once)) == "351 µs" and "351 µs" in svg


def speed_of_light_by_hand(load_once) -> float:
    import json

    from rooftui.sample import sample_ceilings, sample_paths
    from tests.core.test_advise_terms import by_hand

    [sample] = sample_paths()
    run = load_once(sample)  # as `rooftui advise` with no argument loads it
    doc = json.loads(sample_ceilings().read_text())
    return float(by_hand(run.kernels, doc, doc["launch_floor"]["empty_kernel_s"])["achievable_s"].sum())


def test_a_figure_in_an_unknown_format_is_one_line_and_exit_code_2(tmp_path):
    done = run_cli("advise", "--figure", tmp_path / "budget.bmp")
    assert done.returncode == 2 and "svg" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
def test_each_file_is_one_draw_with_the_layout_savefig_gives_it(load_once, fmt, monkeypatch):
    # The figure is laid out as savefig lays it out for the format (its canvas, its dpi),
    # then keeps no layout engine, so savefig draws it once (it drew it twice: once only to
    # lay it out). The independent answer: the same figure saved with its engine left on,
    # laid out by savefig itself.
    from matplotlib.figure import Figure

    from rooftui.analysis.advise_run import advise as advise_run
    from rooftui.sample import sample_paths
    from rooftui.views import advise_figure

    [sample] = sample_paths()
    [budget] = advise_run(load_once(sample)).budgets.values()
    draws: list[Figure] = []
    real_draw = Figure.draw
    counted = lambda self, renderer: draws.append(self) or real_draw(self, renderer)  # noqa: E731
    monkeypatch.setattr(Figure, "draw", counted)
    once = advise_figure.waterfall_figure_bytes(budget, fmt, "a title", dpi=60)  # a cheaper PNG
    assert len(draws) == 1
    monkeypatch.setattr(advise_figure, "_lay_out_as_saved", lambda *args: None)  # savefig's own layout
    by_savefig = advise_figure.waterfall_figure_bytes(budget, fmt, "a title", dpi=60)
    assert len(draws) == 3
    assert once == by_savefig  # an SVG's ids too: the same input gives the same file (figure.saving)
