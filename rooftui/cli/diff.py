"""``rooftui diff A B``: what changed between two runs, kernel by kernel and overall."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rooftui.analysis.load_options import LoadOptions
from rooftui.cli.notes import echo_notes
from rooftui.cli.options import check_report, report_options
from rooftui.cli.progress import load_progress
from rooftui.model.columns import LEVELS
from rooftui.views.text import safe_console


def run_label(path: str) -> str:
    """A short name for a report: its file name up to the first dot (deepcam_fp32)."""
    return Path(path).name.split(".")[0] or path


@click.command()
@click.argument("report_a", type=click.Path(path_type=str), callback=check_report)
@click.argument("report_b", type=click.Path(path_type=str), callback=check_report)
@report_options
@click.option(
    "--ceilings-a",
    type=click.Path(dir_okay=False, path_type=str),
    help="Ceilings JSON for A alone (instead of --ceilings).",
)
@click.option(
    "--ceilings-b",
    type=click.Path(dir_okay=False, path_type=str),
    help="Ceilings JSON for B alone (instead of --ceilings).",
)
@click.option("--label-a", help="Name shown for A (default: its file name).")
@click.option("--label-b", help="Name shown for B (default: its file name).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option(
    "--top",
    type=int,
    default=15,
    show_default=True,
    help="Rows per list in the table format (CSV and JSON have all).",
)
@click.option(
    "--level",
    type=click.Choice(LEVELS),
    default="hbm",
    show_default=True,
    help="Memory level whose arithmetic intensity the table shows (CSV and JSON have all).",
)
@click.option("--tui", is_flag=True, help="Open the compare screen instead of printing.")
def diff(
    report_a: str,
    report_b: str,
    load_options: LoadOptions,
    ceilings_a: str | None,
    ceilings_b: str | None,
    label_a: str | None,
    label_b: str | None,
    output_format: str,
    top: int,
    level: str,
    tui: bool,
) -> None:
    """Compare two runs: REPORT_A (before) and REPORT_B (after).

    Kernels are matched by name, then by name with template, precision and tile
    parameters erased, then by operation (conv fprop/dgrad/wgrad, GEMM, the
    elementwise functor) in the same phase; each match says how it was made.
    Each side is measured against its own GPU's ceilings.
    """
    reading_a, reading_b = load_options.start([report_a]), load_options.start([report_b])
    with load_progress() as progress:
        run_a = load_options.load([report_a], ceilings=ceilings_a, progress=progress, reading=reading_a)
        run_b = load_options.load([report_b], ceilings=ceilings_b, progress=progress, reading=reading_b)
    from rooftui.analysis.compare import compare_runs

    comparison = compare_runs(run_a, run_b, label_a or run_label(report_a), label_b or run_label(report_b))
    if tui:
        from rooftui.cli.terminal import run_full_screen
        from rooftui.views.tui.screens.compare import CompareApp

        run_full_screen(
            CompareApp(comparison), "diff --tui (the compare screen)", "`rooftui diff` without --tui"
        )
        return

    from rooftui.views.compare import dumps_json, render, to_csv

    if output_format == "table":
        console = safe_console(soft_wrap=False)
        console.width = max(80, console.width)
        render(comparison, console, top=top, level=level)
    else:
        sys.stdout.write(to_csv(comparison) if output_format == "csv" else dumps_json(comparison) + "\n")
    echo_notes(comparison.notes)
