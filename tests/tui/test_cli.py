"""`rooftui plot`: the explorer's view and table without a terminal, for batch jobs."""

from __future__ import annotations

import subprocess
import sys

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


def test_plot_csv_never_loads_textual(tmp_path):
    out = tmp_path / "k.csv"
    code = (
        "import sys; from rooftui.cli import main; "
        f"main(['plot', {str(SAMPLE)!r}, '--top', '5', '--csv', {str(out)!r}]); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'plotext')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().endswith("[]")
    assert len(pd.read_csv(out)) == 5


def test_plot_svg_shows_the_filtered_view(tmp_path):
    svg, csv = tmp_path / "view.svg", tmp_path / "view.csv"
    rooftui(
        "plot", str(SAMPLE), "--name", "batchnorm", "--svg", str(svg), "--csv", str(csv), "--size", "120x36"
    )
    text = svg.read_text()
    assert text.startswith("<svg")
    assert "3&#160;kernels" in text and "batchnorm" in text
    assert len(pd.read_csv(csv)) == 3


def test_plot_needs_an_output(capsys):
    with pytest.raises(SystemExit) as exit_:
        rooftui("plot", str(SAMPLE))
    assert exit_.value.code == 2
    assert "give --svg FILE, --csv FILE or both" in capsys.readouterr().err


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
