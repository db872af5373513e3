"""``rooftui summary``: the kernel table without the TUI."""

from __future__ import annotations

import sys

import click

from rooftui.analysis import grouped_kernels
from rooftui.analysis.load_options import LoadOptions
from rooftui.cli.options import report_options, reports_argument
from rooftui.cli.progress import load_progress
from rooftui.errors import InputError
from rooftui.views.text import printable, safe_console


@click.command()
@reports_argument
@report_options
@click.option("--group", is_flag=True, help="Aggregate invocations of the same kernel.")
@click.option("--format", "output_format", type=click.Choice(["table", "csv", "json"]),
              default="table", show_default=True)
@click.option("--top", type=int, default=0, help="Only the N kernels with the most time (table: 30).")
def summary(reports: tuple[str, ...], load_options: LoadOptions, group: bool, output_format: str,
            top: int) -> None:
    """Per-kernel time, FLOPs per pipeline, bytes and AI per level, phase and bound."""
    if not reports:
        raise InputError("no report given", None, "usage: rooftui summary REPORT... (see --help)")
    with load_progress() as progress:
        run = load_options.load(reports, progress=progress)  # first: its readers start at once
    from rooftui.views.summary import dumps_json, render_table, to_csv

    rows = grouped_kernels(run) if group else run.kernels.sort_values("id")
    if output_format == "table":
        limit, total = top or 30, len(rows)
        rows = rows.sort_values("time_s", ascending=False).head(limit)
        console = safe_console(soft_wrap=False)
        console.width = max(80, console.width)
        render_table(run, rows, console, grouped=group)
        if total > limit:
            console.print(f"[dim]{limit} of {total} rows, by time; --top N for more, "
                          "--format csv for all[/dim]")
    else:
        if top:
            rows = rows.sort_values("time_s", ascending=False).head(top)
        sys.stdout.write(to_csv(rows) if output_format == "csv" else dumps_json(run, rows) + "\n")
    for note in run.notes:
        click.echo(f"note: {printable(note)}", err=True)
