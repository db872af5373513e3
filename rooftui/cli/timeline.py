"""``rooftui timeline TRACE``: stalls a roofline cannot see, from a PyTorch profiler trace."""

from __future__ import annotations

import json
import os

import click

from rooftui.cli.options import ascii_option, ascii_wanted
from rooftui.views.text import printable

# Above this, reading takes seconds (about 40 MB/s): say so before the screen opens.
LARGE_TRACE_BYTES = 50_000_000


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # a missing file is reported by the reader


@click.command("timeline")
@click.argument("trace", type=click.Path(dir_okay=True, path_type=str))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="findings as a table or as JSON",
)
@click.option("--tui", is_flag=True, help="open the timeline screen (Gantt of a step + findings)")
@ascii_option
def timeline(trace: str, output_format: str, tui: bool, ascii_mode: bool | None) -> None:
    """Find pageable and blocking copies, syncs, GPU idle time, data loading that does not
    overlap compute and launch-bound stretches in TRACE (Kineto JSON, .json or .json.gz,
    from torch.profiler)."""
    from rooftui.timeline import analyze_trace

    if tui and _size(trace) > LARGE_TRACE_BYTES:  # the screen waits for the analysis
        click.echo(f"rooftui: reading {printable(trace)} ({_size(trace) / 1e6:,.0f} MB)…", err=True)
    analysis = analyze_trace(trace)
    if tui:
        from rooftui.cli.terminal import require_terminal
        from rooftui.views.tui.screens.timeline import run_timeline_app

        require_terminal("timeline --tui (the timeline screen)", "`rooftui timeline TRACE` without --tui")
        run_timeline_app(analysis, ascii_mode=ascii_wanted(ascii_mode))
    elif output_format == "json":
        click.echo(json.dumps(analysis.to_json(), indent=2, ensure_ascii=False))
    else:
        from rooftui.timeline.report import findings_table
        from rooftui.views.text import ascii_fold, safe_console

        console = safe_console()
        if not ascii_wanted(ascii_mode):
            console.print(findings_table(analysis))
            return
        with console.capture() as captured:  # laid out first, then folded one for one
            console.print(findings_table(analysis, ascii_mode=True))
        click.echo(ascii_fold(captured.get()), nl=False)
