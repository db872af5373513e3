"""``rooftui diff A B``: what changed between two runs, kernel by kernel and overall."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from rooftui.analysis import load_run
from rooftui.analysis.phases import PhaseConfig
from rooftui.model.columns import LEVELS


def run_label(path: str) -> str:
    """A short name for a report: its file name up to the first dot (deepcam_fp32)."""
    return Path(path).name.split(".")[0] or path


@click.command()
@click.argument("report_a", type=click.Path(path_type=str))
@click.argument("report_b", type=click.Path(path_type=str))
@click.option("--ceilings-a", type=click.Path(path_type=str),
              help="Ceilings JSON for A (rooftui measure, or ERT roofline.json).")
@click.option("--ceilings-b", type=click.Path(path_type=str), help="Ceilings JSON for B.")
@click.option("--label-a", help="Name shown for A (default: its file name).")
@click.option("--label-b", help="Name shown for B (default: its file name).")
@click.option("--format", "output_format", type=click.Choice(["table", "csv", "json"]),
              default="table", show_default=True)
@click.option("--top", type=int, default=15, show_default=True,
              help="Rows per list in the table format (CSV and JSON have all).")
@click.option("--level", type=click.Choice(LEVELS), default="hbm", show_default=True,
              help="Memory level whose arithmetic intensity the table shows (CSV and JSON have all).")
@click.option("--phase", "phase_specs", multiple=True, metavar="NAME=REGEX",
              help="A training phase and the NVTX range pattern naming it, in order "
                   "(default: forward, backward, optimizer).")
@click.option("--no-infer-phases", is_flag=True, help="Leave launches without an NVTX phase unlabelled.")
@click.option("--skip-invalid", is_flag=True,
              help="Leave out kernels with zero or non-finite duration instead of failing.")
@click.option("--tui", is_flag=True, help="Open the compare screen instead of printing.")
def diff(report_a, report_b, ceilings_a, ceilings_b, label_a, label_b, output_format, top, level,
         phase_specs, no_infer_phases, skip_invalid, tui):
    """Compare two runs: REPORT_A (before) and REPORT_B (after).

    Kernels are matched by name, then by name with template, precision and tile
    parameters erased, then by operation (conv fprop/dgrad/wgrad, GEMM, the
    elementwise functor) in the same phase; each match says how it was made.
    Each side is measured against its own GPU's ceilings.
    """
    from rooftui.analysis.compare import compare_runs

    phases = PhaseConfig.from_options(tuple(phase_specs), infer=not no_infer_phases)
    run_a = load_run([report_a], ceilings=ceilings_a, phases=phases, skip_invalid=skip_invalid)
    run_b = load_run([report_b], ceilings=ceilings_b, phases=phases, skip_invalid=skip_invalid)
    comparison = compare_runs(run_a, run_b, label_a or run_label(report_a), label_b or run_label(report_b))
    if tui:
        from rooftui.views.tui.screens.compare import CompareApp

        CompareApp(comparison).run()
        return

    from rooftui.views.compare import dumps_json, render, to_csv

    if output_format == "table":
        render(comparison, Console(width=max(80, Console().width), soft_wrap=False), top=top, level=level)
    else:
        sys.stdout.write(to_csv(comparison) if output_format == "csv" else dumps_json(comparison) + "\n")
    for note in comparison.notes:
        click.echo(f"note: {note}", err=True)
