"""The ``rooftui`` command.

``rooftui REPORT...`` (or no argument at all) opens the TUI; every other job is a
subcommand. Subcommands are imported only when used, so ``rooftui summary`` never
loads Textual and starts fast.
"""

from __future__ import annotations

import importlib
import sys

import click

from rooftui import __version__
from rooftui.cli.errors import echo_error, install_signal_handlers, last_resort, take_debug_flag
from rooftui.errors import RooftuiError

# name -> "module:attribute"; each module holds one click command.
SUBCOMMANDS = {
    "open": "rooftui.cli.open_cmd:open_cmd",
    "summary": "rooftui.cli.summary:summary",
    "plot": "rooftui.cli.plot:plot",
    "diff": "rooftui.cli.diff:diff",
    "timeline": "rooftui.cli.timeline:timeline",
    "measure": "rooftui.cli.measure:measure",
    "profile": "rooftui.cli.profile:profile",
    "metrics": "rooftui.cli.metrics:metrics",
}
DEFAULT_COMMAND = "open"


class RooftuiGroup(click.Group):
    """A group whose subcommands load lazily and whose default command is ``open``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        # Anything that is not a subcommand (a report path, an option of `open`)
        # goes to the default command, so `rooftui run.ncu-rep` opens the TUI.
        if not args or args[0] not in SUBCOMMANDS:
            args = [DEFAULT_COMMAND, *args]
        return super().resolve_command(ctx, args)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in SUBCOMMANDS and args[0] not in ("--help", "-h", "--version")):
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)


@click.group(cls=RooftuiGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rooftui")
def cli() -> None:
    """Hierarchical roofline analysis of GPU kernels, in the terminal.

    \b
    rooftui [REPORT...]          open the explorer (the bundled sample if none)
    rooftui summary REPORT...    the kernel table, as text, CSV or JSON
    """


def main(argv: list[str] | None = None) -> None:
    """Entry point: user-fixable problems become one line on stderr and exit code 2;
    anything else one line and exit code 1 (``rooftui.cli.errors``)."""
    argv, debug = take_debug_flag(argv)
    install_signal_handlers()
    try:
        cli.main(args=argv, prog_name="rooftui", standalone_mode=False)
    except RooftuiError as err:
        echo_error(str(err))
        sys.exit(err.exit_code)
    except click.exceptions.Abort:
        echo_error("aborted")
        sys.exit(130)
    except click.ClickException as err:  # bad usage: one line, like every other input error
        ctx = getattr(err, "ctx", None)
        command = f" {ctx.info_name}" if ctx is not None and ctx.info_name != "rooftui" else ""
        echo_error(f"{err.format_message()} (see rooftui{command} --help)")
        sys.exit(2)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except Exception as err:  # noqa: BLE001 - the last resort: one line, not a traceback
        last_resort(err, debug)
