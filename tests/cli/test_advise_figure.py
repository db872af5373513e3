"""`rooftui advise --figure FILE`: the step budget drawn to scale, every bar labelled."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli

pytest.importorskip("matplotlib")


def test_the_figure_names_every_bar_of_the_budget_and_the_speed_of_light(tmp_path):
    path = tmp_path / "budget.svg"
    done = run_cli("advise", "--figure", path, "--format", "json")
    assert done.returncode == 0, done.stderr
    svg = path.read_text()
    labels = (
        "measured step",
        "GPU idle / host-bound",
        "not collected",
        "launch floors",
        "speed-of-light step",
        # the bundled AMP step's speed of light: Σ per launch of max(bytes at each level / its
        # roof, FLOPs / the pipeline's roof, the launch floor); 322 µs while L2 bytes were
        # lts__t_bytes, 308 µs with lts__t_sectors_srcunit_tex × 32 (docs/l2-bytes.md)
        "308 µs",
        "1.38 ms",
    )
    for label in labels:
        assert label in svg, label


def test_a_figure_in_an_unknown_format_is_one_line_and_exit_code_2(tmp_path):
    done = run_cli("advise", "--figure", tmp_path / "budget.bmp")
    assert done.returncode == 2 and "svg" in done.stderr and len(done.stderr.strip().splitlines()) == 1
