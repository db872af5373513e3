"""``rooftui [REPORT...]``: open the explorer."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("open")
@click.argument("reports", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--ceilings",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Ceilings JSON (rooftui.ceilings/1, e.g. from `rooftui measure`) instead of the defaults.",
)
@click.option(
    "--trace",
    type=click.Path(exists=True, path_type=Path),
    help="PyTorch profiler trace (Kineto JSON) of the same run: press t for its timeline.",
)
@click.option(
    "--ascii/--unicode",
    "ascii_mode",
    default=None,
    help="Only ASCII characters, or Unicode (braille, box lines) even where the locale "
    "is not UTF-8 or TERM cannot draw them (vt100, linux...), where ASCII is the default.",
)
@click.option(
    "--compare",
    is_flag=True,
    help="With two reports A B: the compare screen (what changed from A to B) instead.",
)
def open_cmd(
    reports: tuple[Path, ...],
    ceilings: Path | None,
    trace: Path | None,
    ascii_mode: bool | None,
    compare: bool,
) -> None:
    """Explore REPORT... (Nsight Compute exports) on a hierarchical roofline.

    With no REPORT, opens the bundled sample (a PyTorch AMP step on an H200) with the
    ceilings `rooftui measure` measured on that H200. Press ? in the app for every key.
    NO_COLOR is respected. `rooftui A B --compare` compares two runs.
    """
    if ascii_mode is None:
        import os

        from rooftui.views.tui.ascii import terminal_wants_ascii

        ascii_mode = terminal_wants_ascii(os.environ)
    if compare:
        _open_compare(reports, ascii_mode)
        return
    from rooftui.views.tui.app import make_app

    if not reports and ceilings is None:  # the sample, against the H200's measured ceilings
        from rooftui.sample import sample_ceilings

        ceilings = sample_ceilings()
    app = make_app(reports, ceilings=ceilings, ascii_mode=ascii_mode, trace=trace)
    app.run()
    if app.load_error is not None:
        raise app.load_error


def _open_compare(reports: tuple[Path, ...], ascii_mode: bool) -> None:
    from rooftui.analysis import load_run
    from rooftui.analysis.compare import compare_runs
    from rooftui.cli.diff import run_label
    from rooftui.errors import InputError
    from rooftui.sample import sample_pair

    if not reports:
        reports = sample_pair()
    if len(reports) != 2:
        raise InputError(f"--compare takes two reports, got {len(reports)}", None,
                         "usage: rooftui BEFORE AFTER --compare")
    run_a, run_b = (load_run([path]) for path in reports)
    comparison = compare_runs(run_a, run_b, run_label(str(reports[0])), run_label(str(reports[1])))
    from rooftui.views.tui.screens.compare import CompareApp

    CompareApp(comparison, ascii_mode=ascii_mode).run()
