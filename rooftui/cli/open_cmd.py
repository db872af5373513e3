"""``rooftui [REPORT...]``: open the explorer."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from rooftui.analysis.load_options import LoadOptions
from rooftui.cli.options import ascii_option, ascii_wanted, report_options, reports_argument
from rooftui.cli.terminal import run_full_screen


@click.command("open")
@reports_argument
@report_options
@click.option(
    "--trace",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="PyTorch profiler trace (Kineto JSON) of the same run: press t for its timeline.",
)
@ascii_option
@click.option(
    "--compare",
    is_flag=True,
    help="With two reports A B: the compare screen (what changed from A to B) instead.",
)
def open_cmd(
    reports: tuple[str, ...],
    load_options: LoadOptions,
    trace: Path | None,
    ascii_mode: bool | None,
    compare: bool,
) -> None:
    """Explore REPORT... (Nsight Compute exports) on a hierarchical roofline.

    With no REPORT, opens the bundled sample (a PyTorch AMP step on an H200) with the
    ceilings `rooftui measure` measured on that H200. Press ? in the app for every key.
    NO_COLOR is respected. `rooftui A B --compare` compares two runs.
    """
    ascii_mode = ascii_wanted(ascii_mode)
    if compare:
        _open_compare(reports, load_options, trace, ascii_mode)
        return
    from rooftui.views.tui.app import make_app

    if not reports and load_options.ceilings is None:  # the sample, against the H200's measured ceilings
        from rooftui.sample import sample_ceilings

        load_options = dataclasses.replace(load_options, ceilings=sample_ceilings())
    app = make_app(reports, options=load_options, ascii_mode=ascii_mode, trace=trace)
    run_full_screen(app, "the explorer", "`rooftui summary REPORT...`")
    if app.load_error is not None:
        raise app.load_error


def _open_compare(
    reports: tuple[str, ...], load_options: LoadOptions, trace: Path | None, ascii_mode: bool
) -> None:
    from rooftui.analysis.compare import compare_runs
    from rooftui.cli.diff import run_label
    from rooftui.errors import InputError
    from rooftui.sample import sample_pair

    if trace is not None:
        # The compare screen has no timeline; saying so beats dropping the option.
        raise InputError(
            "--trace goes with one run; the compare screen has no timeline",
            None,
            "open each run alone: rooftui REPORT --trace TRACE",
        )
    if not reports:
        reports = tuple(str(path) for path in sample_pair())
    if len(reports) != 2:
        raise InputError(
            f"--compare takes two reports, got {len(reports)}", None, "usage: rooftui BEFORE AFTER --compare"
        )
    readings = [load_options.start([path]) for path in reports]  # both read at once
    run_a, run_b = (load_options.load([path], reading=r) for path, r in zip(reports, readings))
    comparison = compare_runs(run_a, run_b, run_label(reports[0]), run_label(reports[1]))
    from rooftui.views.tui.screens.compare import CompareApp

    run_full_screen(
        CompareApp(comparison, ascii_mode=ascii_mode), "the compare screen", "`rooftui diff BEFORE AFTER`"
    )
