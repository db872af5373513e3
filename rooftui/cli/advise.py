"""``rooftui advise``: what to fix first, and what it buys: the step budget and the findings."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from pathlib import Path

import click

from rooftui.analysis.load_options import LoadOptions
from rooftui.cli.options import ascii_option, ascii_wanted, report_options, reports_argument
from rooftui.cli.progress import load_progress
from rooftui.errors import InputError
from rooftui.views.text import printable

BY = {"class": "operation_class", "kernel": "kernel", "phase": "phase", "nvtx": "nvtx"}


@click.command()
@reports_argument
@report_options
@click.option(
    "--trace",
    "trace_path",
    type=click.Path(dir_okay=False, path_type=str),
    default=None,
    metavar="TRACE",
    help="A PyTorch trace (torch.profiler, Kineto JSON) of the same program: the measured step "
    "and its GPU idle time come from it.",
)
@click.option(
    "--steps",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Training steps the report holds; every time is given per step.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
    help="table: budget, findings, roll-up; json: all of it (docs/advise.md); csv: one row per launch.",
)
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True, help="Findings shown.")
@click.option(
    "--by",
    "by",
    type=click.Choice(list(BY)),
    default="class",
    show_default=True,
    help="The table's roll-up: by operation class, kernel, phase, or NVTX range (a tree).",
)
@click.option(
    "--width",
    type=click.IntRange(min=60),
    default=None,
    help="Text width. Default: the terminal's, else COLUMNS, else 80.",
)
@click.option(
    "--figure",
    "figure_path",
    type=click.Path(dir_okay=False, path_type=str),
    default=None,
    metavar="FILE",
    help="Also draw the step budget to FILE (.svg, .png or .pdf; needs rooftui[plot]).",
)
@ascii_option
def advise(
    reports: tuple[str, ...],
    load_options: LoadOptions,
    trace_path: str | None,
    steps: int,
    output_format: str,
    top: int,
    by: str,
    width: int | None,
    figure_path: str | None,
    ascii_mode: bool | None,
) -> None:
    """What to fix first and what the step would gain: its speed-of-light budget and findings.

    The budget is a bound on the step, from the roofs and the measured launch floor;
    findings are priced in µs per step, for REPORT... (the bundled sample if none).
    """
    figure_format = _figure_format(figure_path) if figure_path else None
    if not reports:
        from rooftui.sample import sample_ceilings, sample_paths

        reports = tuple(str(path) for path in sample_paths())
        if load_options.ceilings is None:
            load_options = dataclasses.replace(load_options, ceilings=str(sample_ceilings()))
    reading = load_options.start(reports)
    trace = _trace_step(trace_path) if trace_path else None
    from rooftui.analysis.advise_run import advise as advise_run

    with load_progress() as progress:
        run = load_options.load(reports, progress=progress, reading=reading)
    advice = advise_run(run, trace, steps)
    if output_format == "json":
        from rooftui.views.json_text import dumps_indented  # json.dumps(indent=1)'s text

        sys.stdout.write(dumps_indented(advice.to_json(top)) + "\n")
    elif output_format == "csv":
        from rooftui.views.advise import advice_csv

        sys.stdout.write(advice_csv(advice))
    else:
        from rooftui.views.advise import advice_text

        columns = width or (
            shutil.get_terminal_size((80, 24)).columns
            if sys.stdout.isatty()
            else int(os.environ.get("COLUMNS", "80") or 80)
        )
        sys.stdout.write(advice_text(advice, max(columns, 60), top, BY[by], ascii_wanted(ascii_mode)))
    if figure_path and figure_format:
        from rooftui.cli.outputs import OutputFiles
        from rooftui.views.advise_figure import waterfall_figure_bytes

        several = len(advice.budgets) > 1  # one figure per GPU, named after it
        paths = {
            device: Path(figure_path)
            if not several
            else Path(figure_path).with_name(
                f"{Path(figure_path).stem}-{device.replace(' ', '_')}{Path(figure_path).suffix}"
            )
            for device in advice.budgets
        }
        outputs = OutputFiles(list(paths.values()), inputs=list(reports))
        with outputs.writing():
            for device, budget in advice.budgets.items():
                figure = waterfall_figure_bytes(budget, figure_format, f"Step budget, {device}: a bound")
                outputs.temporary(paths[device]).write_bytes(figure)
        for path in paths.values():
            click.echo(f"wrote {printable(path)} (step budget figure)", err=True)
    for note in run.notes:
        click.echo(f"note: {printable(note)}", err=True)


def _figure_format(path: str) -> str:
    """The figure's format from its suffix; one line and exit code 2 for any other."""
    from rooftui.views.figure import FORMATS

    suffix = Path(path).suffix.lower().removeprefix(".")
    if suffix not in FORMATS:
        raise InputError(f"cannot draw a figure as .{suffix or '?'}", path, "use a .svg, .png or .pdf file")
    return suffix


def _trace_step(path: str):  # -> TraceStep
    """The mean step and its GPU idle time, from ``rooftui timeline``'s analysis of the trace."""
    from rooftui.analysis.advise_budget import TraceStep
    from rooftui.timeline.analysis import analyze_trace

    analysis = analyze_trace(path)
    count = len(analysis.steps)
    marked = "ProfilerStep markers" if analysis.has_step_markers else "no step markers: one step"
    return TraceStep(
        step_s=analysis.context.mean_step_s,
        idle_s=sum(analysis.idle_s) / count,
        steps=count,
        source=f"{Path(path).name}: {count} steps ({marked})",
    )
