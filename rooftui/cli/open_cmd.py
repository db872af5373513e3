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
    "--ascii",
    "ascii_mode",
    is_flag=True,
    help="Only ASCII characters, for terminals without Unicode.",
)
def open_cmd(reports: tuple[Path, ...], ceilings: Path | None, trace: Path | None, ascii_mode: bool) -> None:
    """Explore REPORT... (Nsight Compute exports) on a hierarchical roofline.

    With no REPORT, opens the bundled sample. Press ? in the app for every key.
    NO_COLOR is respected.
    """
    from rooftui.views.tui.app import make_app

    app = make_app(reports, ceilings=ceilings, ascii_mode=ascii_mode, trace=trace)
    app.run()
    if app.load_error is not None:
        raise app.load_error
