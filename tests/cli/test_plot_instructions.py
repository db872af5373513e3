"""``rooftui plot --instructions``: the instruction roofline as a figure (matplotlib, the
explorer's geometry), with its roofs, walls and sources. Without ``--instructions`` the FLOP
roofline stays, on a report that has the instruction counters: tests/tui/test_cli.py's
known-answer figure (one drawing fewer of the DeepCAM sample)."""

from rooftui.sample import sample_paths
from tests.conftest import run_cli

# The bundled sample (`rooftui` with no argument): a DeepCAM AMP step with the instruction counters.
[DEEPCAM] = sample_paths()


def test_plot_instructions_writes_the_instruction_roofline_with_its_walls_and_sources(tmp_path):
    svg = tmp_path / "instructions.svg"
    done = run_cli("plot", str(DEEPCAM), "--instructions", "--svg", str(svg))
    assert done.returncode == 0, done.stderr
    text = svg.read_text(encoding="utf-8")
    assert "instruction roofline (Ding &amp; Williams, PMBS'19)" in text
    # the bundled H200 ceilings' issue rate, measured 2026-12-02: 1,041,992,435,550 warp inst/s
    # (benchmarks/results/2026-12-02-issue-rate-bundled-h200.md; before, the report's 528/cycle
    # × the launches' median SM clock gave 1,040 GIPS)
    assert "warp issue 1,042 GIPS" in text
    assert "wall 1/32: a sector per lane / 32-way conflict" in text
    assert "issue: measured by rooftui" in text  # the issue roof says where it came from
    assert "not plotted (no FLOP)" not in text  # zero-AI kernels are on this chart
