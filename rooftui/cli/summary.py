"""``rooftui summary``: the kernel table without the TUI."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from rooftui.analysis import grouped_kernels
from rooftui.analysis.load_options import LoadOptions
from rooftui.cli.notes import echo_notes
from rooftui.cli.options import report_options, reports_argument, reports_or_sample
from rooftui.cli.progress import load_progress
from rooftui.views.text import safe_console

if TYPE_CHECKING:
    from rich.console import Console

# Piped with no COLUMNS: wide enough for every number column and a 60-character name.
PIPED_WIDTH = 120
# "No limit": wide enough for any kernel name; the table is only as wide as its cells.
NO_LIMIT = 100_000


@click.command()
@reports_argument
@report_options
@click.option("--group", is_flag=True, help="Aggregate invocations of the same kernel.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option("--top", type=int, default=0, help="Only the N kernels with the most time (table: 30).")
@click.option(
    "--zero-ai-by",
    "zero_ai_by",
    type=click.Choice(["launch", "name"]),
    default="launch",
    show_default=True,
    help="Table III's zero-AI count: per launch, or per kernel name (a launch counts when "
    "its kernel's launches together did no FLOP), as the paper's authors counted.",
)
@click.option(
    "--width",
    type=click.IntRange(min=0),
    default=None,
    help="Table width in columns, 0 for no limit (whole names). Default: the "
    f"terminal's width; when piped, COLUMNS or {PIPED_WIDTH}.",
)
def summary(
    reports: tuple[str, ...],
    load_options: LoadOptions,
    group: bool,
    output_format: str,
    top: int,
    zero_ai_by: str,
    width: int | None,
) -> None:
    """Per-kernel time, FLOPs per pipeline, bytes and AI per level, phase and bound.

    With no REPORT, the bundled sample (a PyTorch AMP step on an H200), as `rooftui` opens it.
    """
    reports, load_options = reports_or_sample(reports, load_options)
    # The readers start first, so that importing the views (pandas, rich) runs beside them.
    reading = load_options.start(reports)
    from rooftui.views.summary import dumps_json, render_table, to_csv

    with load_progress() as progress:
        run = load_options.load(reports, progress=progress, reading=reading)

    rows = grouped_kernels(run) if group else run.kernels.sort_values("id")
    if output_format == "table":
        limit, total = top or 30, len(rows)
        rows = rows.sort_values("time_s", ascending=False).head(limit)
        console = table_console(width)
        render_table(run, rows, console, grouped=group, per_name=zero_ai_by == "name")
        if total > limit:
            console.print(
                f"[dim]{limit} of {total} rows, by time; --top N for more, --format csv for all[/dim]"
            )
    else:
        if top:
            rows = rows.sort_values("time_s", ascending=False).head(top)
        per_name = zero_ai_by == "name"
        sys.stdout.write(to_csv(rows) if output_format == "csv" else dumps_json(run, rows, per_name) + "\n")
    echo_notes(run.notes)


def table_console(width: int | None) -> Console:
    """A console as wide as ``--width`` (0: no limit), else COLUMNS, else the terminal;
    piped, with neither, ``PIPED_WIDTH``: a file or a pager reads as the table on screen
    (a kernel name can be 2,300 characters; ``--width 0`` or CSV keep them whole)."""
    if width is None and "COLUMNS" not in os.environ and not sys.stdout.isatty():
        width = PIPED_WIDTH
    if width == 0:
        return safe_console(width=NO_LIMIT, soft_wrap=True)
    return safe_console(width=width, soft_wrap=False)
