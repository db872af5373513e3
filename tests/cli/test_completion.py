"""Shell completion through click's own completion API (what bash, zsh and fish call)."""

import pytest
from click.shell_completion import ShellComplete
from click.testing import CliRunner

from rooftui.cli import cli


def complete(line: str) -> list[tuple[str, str]]:
    """(type, value) of each completion for ``line``; the last word is the one being typed."""
    words = line.split(" ")
    completer = ShellComplete(cli, {}, "rooftui", "_ROOFTUI_COMPLETE")
    return [(item.type, item.value) for item in completer.get_completions(words[1:-1], words[-1])]


def test_a_subcommand_prefix_completes_to_the_subcommands():
    assert complete("rooftui m") == [("plain", "measure"), ("plain", "metrics"), ("file", "m")]


def test_nothing_typed_offers_every_subcommand_and_report_files():
    offered = complete("rooftui ")
    assert [value for kind, value in offered if kind == "plain"] == [
        "open",
        "summary",
        "plot",
        "diff",
        "advise",
        "timeline",
        "measure",
        "profile",
        "metrics",
    ]
    assert ("file", "") in offered


def test_options_complete_for_a_subcommand_and_for_the_default_command():
    assert ("plain", "--skip-invalid") in complete("rooftui summary --sk")
    assert complete("rooftui plot --only") == [("plain", "--only-phase")]
    # `rooftui REPORT --ce<TAB>`: the report routes to `open`, whose options complete
    assert complete("rooftui run.ncu-rep --ce") == [("plain", "--ceilings")]


def test_the_default_commands_options_complete_with_nothing_before_them():
    # `rooftui --ce<TAB>` is `rooftui open --ce<TAB>`: the line routes to `open`
    assert complete("rooftui --c") == [("plain", "--ceilings"), ("plain", "--compare")]
    offered = [value for _, value in complete("rooftui --")]
    assert offered[:2] == ["--version", "--help"] and "--trace" in offered and offered.count("--help") == 1


def test_choices_and_paths_complete():
    assert complete("rooftui summary --format j") == [("plain", "json")]
    assert complete("rooftui summary --ceilings ") == [("file", "")]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_completion_script_for_each_shell_comes_from_the_command(shell):
    result = CliRunner().invoke(cli, prog_name="rooftui", env={"_ROOFTUI_COMPLETE": f"{shell}_source"})
    assert result.exit_code == 0
    assert "_ROOFTUI_COMPLETE" in result.output and f"{shell}_complete" in result.output


def test_completion_through_the_environment_variable_like_a_shell_does():
    env = {"_ROOFTUI_COMPLETE": "bash_complete", "COMP_WORDS": "rooftui su", "COMP_CWORD": "1"}
    result = CliRunner().invoke(cli, prog_name="rooftui", env=env)
    assert result.output.split() == ["plain,summary", "file,su"]


def test_no_argument_and_a_report_path_both_open_the_explorer(monkeypatch):
    from tests.conftest import KNOWN, run_cli

    opened = []

    class FakeApp:
        load_error = None

        def run(self):
            pass

    def fake_make_app(paths, **kwargs):
        opened.append((tuple(paths), kwargs["options"].ceilings))
        return FakeApp()

    monkeypatch.setattr("rooftui.views.tui.app.make_app", fake_make_app)
    report = KNOWN / "known_answer.raw-base.csv"
    assert run_cli().returncode == 0
    assert run_cli(report).returncode == 0
    (no_args, sample_ceilings), (one_report, no_ceilings) = opened
    assert no_args == () and str(sample_ceilings).endswith("h200_ceilings.json")
    assert one_report == (str(report),) and no_ceilings is None
