"""`rooftui A B --compare` opens the compare screen on the two runs."""

from rooftui.cli import cli
from rooftui.views.tui.screens import compare as compare_screen
from tests.conftest import DEEPCAM


def test_compare_flag_opens_the_compare_app_on_both_reports(monkeypatch):
    monkeypatch.setattr("rooftui.cli.terminal.has_terminal", lambda: True)  # in a terminal
    from click.testing import CliRunner

    opened = []
    monkeypatch.setattr(compare_screen.CompareApp, "run", lambda app: opened.append(app))
    a, b = DEEPCAM / "deepcam_fp32.raw-base.csv.xz", DEEPCAM / "deepcam_amp.raw-base.csv.xz"
    result = CliRunner().invoke(cli, [str(a), str(b), "--compare"])
    assert result.exit_code == 0, result.output
    (app,) = opened
    assert app.comparison.label_a == "deepcam_fp32" and app.comparison.label_b == "deepcam_amp"


def test_compare_flag_needs_two_reports():
    from tests.conftest import run_cli

    result = run_cli(DEEPCAM / "deepcam_amp.raw-base.csv.xz", "--compare")
    assert result.returncode == 2 and "two reports" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
