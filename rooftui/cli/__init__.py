"""The ``rooftui`` command.

``rooftui REPORT...`` (or no argument at all) opens the TUI; every other job is a
subcommand. Subcommands are imported only when used, so ``rooftui summary`` never
loads Textual and starts fast.
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Iterator, Mapping

import click
from click.shell_completion import CompletionItem
from click_default_group import DefaultGroup

from rooftui import __version__
from rooftui.cli.errors import echo_error, install_signal_handlers, last_resort, take_debug_flag
from rooftui.errors import RooftuiError

# name -> "module:attribute"; each module holds one click command.
SUBCOMMANDS = {
    "open": "rooftui.cli.open_cmd:open_cmd",
    "summary": "rooftui.cli.summary:summary",
    "plot": "rooftui.cli.plot:plot",
    "diff": "rooftui.cli.diff:diff",
    "advise": "rooftui.cli.advise:advise",
    "timeline": "rooftui.cli.timeline:timeline",
    "measure": "rooftui.cli.measure:measure",
    "profile": "rooftui.cli.profile:profile",
    "metrics": "rooftui.cli.metrics:metrics",
}

# The first line of each subcommand's help, for `rooftui --help` to list them without
# importing them (tests/core/test_fast_start.py checks these are the commands' own).
SUMMARIES = {
    "open": "Explore REPORT... (Nsight Compute exports) on a hierarchical roofline.",
    "summary": "Per-kernel time, FLOPs per pipeline, bytes and AI per level, phase and bound.",
    "plot": "Export the view of REPORT... (the bundled sample if none) for batch use.",
    "diff": "Compare two runs: REPORT_A (before) and REPORT_B (after).",
    "advise": "What to fix first and what the step would gain: its speed-of-light budget and findings.",
    "timeline": "Find pageable and blocking copies, syncs, GPU idle time, data loading that does "
    "not overlap compute and launch-bound stretches in TRACE (Kineto JSON, .json or "
    ".json.gz, from torch.profiler).",
    "measure": "Measure the GPU's ceilings with ERT-style micro-kernels.",
    "profile": "Profile COMMAND with ncu, collecting exactly what the roofline needs.",
    "metrics": "Print the metrics rooftui needs, comma-separated for `ncu --metrics`.",
}


class LazyCommands(Mapping[str, click.Command]):
    """The subcommands, each imported only when looked up (``rooftui summary`` never loads Textual)."""

    def __init__(self, targets: dict[str, str]) -> None:
        self.targets = targets

    def __getitem__(self, name: str) -> click.Command:
        module_name, attribute = self.targets[name].split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def __contains__(self, name: object) -> bool:  # without importing anything
        return name in self.targets

    def __iter__(self) -> Iterator[str]:
        return iter(self.targets)

    def __len__(self) -> int:
        return len(self.targets)


class RooftuiGroup(DefaultGroup):
    """Anything that is not a subcommand (a report path, an option of ``open``) goes to ``open``.

    click-default-group does the routing; this class only keeps completion working:
    with nothing typed yet, ``rooftui <TAB>`` completes subcommand names instead of
    routing the empty line to ``open``.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and ctx.resilient_parsing:  # shell completion: stay at the group
            return click.Group.parse_args(self, ctx, args)
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(SUBCOMMANDS)  # in the order above, not sorted

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The subcommand list as click writes it (default marked ``*``), from ``SUMMARIES``:
        importing every subcommand for their help would cost `rooftui --help` ~0.3 s."""
        names = self.list_commands(ctx)
        names.sort(key=lambda name: name != self.default_cmd_name)  # the default first
        # Each summary whole, wrapped by write_dl: cutting it to one line lost the end of two.
        rows = [(name + ("*" if name == self.default_cmd_name else ""), SUMMARIES[name]) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        items = super().shell_complete(ctx, incomplete)
        if not incomplete.startswith("-"):  # `rooftui REPORT`: report paths complete too
            items.append(CompletionItem(incomplete, type="file"))
        elif (default := self.get_command(ctx, self.default_cmd_name)) is not None:
            # `rooftui --<TAB>`: the line routes to the default command, so its options count too
            offered = {item.value for item in items}
            with click.Context(default, parent=ctx, resilient_parsing=True) as default_ctx:
                items += [
                    item
                    for item in default.shell_complete(default_ctx, incomplete)
                    if item.value not in offered
                ]
        return items


@click.group(
    cls=RooftuiGroup,
    commands=LazyCommands(SUBCOMMANDS),
    default="open",
    default_if_no_args=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
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
    process_entry = argv is None  # the `rooftui` script and `python -m rooftui`: the process ends after
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
    finally:
        # The interpreter's exit collects every object still alive (~0.1 s once pandas is
        # imported) only to free them as it ends; frozen, the collection skips them. Only
        # where the process ends next: a caller in-process (the tests) keeps collecting.
        if process_entry:
            gc.freeze()
