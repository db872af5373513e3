"""`rooftui --help`: every subcommand's summary is there whole, at any width."""

import pytest
from click.testing import CliRunner

from rooftui.cli import SUMMARIES, cli


@pytest.mark.parametrize("width", [80, 200])
def test_help_lists_every_subcommand_with_its_whole_summary(width):
    result = CliRunner().invoke(cli, ["--help"], prog_name="rooftui", terminal_width=width)
    commands = result.output[result.output.index("Commands:") :]
    # write_dl wraps a summary over lines: compare word by word
    words = commands.split()
    for name, summary in SUMMARIES.items():
        start = words.index(name + ("*" if name == "open" else ""))
        assert words[start + 1 : start + 1 + len(summary.split())] == summary.split(), name
    assert "..." not in commands.replace("REPORT...", "")
