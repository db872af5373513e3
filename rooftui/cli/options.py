"""The options of every command that loads reports (open, summary, plot, diff, --compare).

One definition, so an option name means one thing everywhere. To add one: a line in
``REPORT_OPTIONS`` and a field of the same name in ``rooftui.analysis.load_options.LoadOptions``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from rooftui.analysis.load_options import LoadOptions

REPORT_OPTIONS = (
    click.option(
        "--ceilings",
        "ceilings",
        type=click.Path(dir_okay=False, path_type=str),
        multiple=True,
        help="Ceilings JSON (rooftui measure) or ERT roofline.json, instead of the defaults; "
        "repeat it for several GPUs (each file is used for the GPU it was measured on).",
    ),
    click.option(
        "--phase",
        "phase_specs",
        multiple=True,
        metavar="NAME=REGEX",
        help="A training phase and the NVTX range pattern naming it, in order; repeat for "
        "each phase (default: forward, backward, optimizer).",
    ),
    click.option(
        "--no-infer-phases",
        "infer_phases",
        flag_value=False,
        default=True,
        help="Leave launches without an NVTX phase unlabelled.",
    ),
    click.option(
        "--skip-invalid",
        "skip_invalid",
        is_flag=True,
        help="Leave out kernels with zero or non-finite duration instead of failing.",
    ),
    click.option(
        "--gpu",
        "gpu",
        default=None,
        metavar="NAME",
        help="The GPU (V100, A100, H100, ...) of exports that do not say which they came "
        "from (older ncu, one-metric runs); a report's own device wins.",
    ),
    click.option(
        "--arch",
        "arch",
        default=None,
        metavar="sm_XY",
        help="The same as --gpu, as an architecture (sm_70, sm_80, sm_90).",
    ),
    click.option(
        "--fp16-rule",
        "fp16_rule",
        type=click.Choice(["packed", "paper"]),
        default="packed",
        show_default=True,
        help="FP16 CUDA-core FLOPs: every half instruction packed (ncu's roofline section) "
        "or the paper's hadd + hmul + 2·hfma, to reproduce its numbers.",
    ),
    click.option(
        "--no-cache",
        "no_cache",
        is_flag=True,
        help="Read every report afresh, neither using nor filling the report cache "
        "(~/.cache/rooftui; also ROOFTUI_NO_CACHE=1).",
    ),
)


def _check_reports(ctx: click.Context, param: click.Parameter, reports: tuple[str, ...]) -> tuple[str, ...]:
    """A missing or empty report fails here, before the explorer takes the terminal."""
    if ctx.resilient_parsing:  # shell completion: nothing is opened
        return reports
    from rooftui.ingest.files import check_readable, is_directory

    for report in reports:
        if not is_directory(Path(report)):  # a directory is for the reader to judge
            check_readable(Path(report))
    return reports


def check_report(ctx: click.Context, param: click.Parameter, report: str) -> str:
    """``_check_reports`` for an argument of one report (diff's REPORT_A and REPORT_B): a
    missing one fails before pandas is imported for the other."""
    _check_reports(ctx, param, (report,))
    return report


# REPORT... for the commands that take any number of reports (none: the bundled sample).
reports_argument = click.argument(
    "reports", nargs=-1, type=click.Path(path_type=str), callback=_check_reports
)

# Every field but find_measured, which no option sets (tests and library callers do).
_FIELDS = tuple(field.name for field in dataclasses.fields(LoadOptions) if field.name != "find_measured")


def report_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``REPORT_OPTIONS`` to a click command; it receives them as one ``load_options``."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name) for name in _FIELDS}
        values["phase_specs"] = tuple(values["phase_specs"])
        files = values["ceilings"]  # --ceilings given 0, 1 or several times
        values["ceilings"] = None if not files else files[0] if len(files) == 1 else tuple(files)
        return command(*args, load_options=LoadOptions(**values), **kwargs)

    for option in reversed(REPORT_OPTIONS):
        wrapper = option(wrapper)
    return wrapper


# --ascii/--unicode for every command that opens a screen (the explorer, --compare,
# timeline --tui); None until ``ascii_wanted`` decides from the terminal.
ascii_option = click.option(
    "--ascii/--unicode",
    "ascii_mode",
    default=None,
    help="Only ASCII characters, or Unicode (braille, box lines) even where the locale "
    "is not UTF-8 or TERM cannot draw them (vt100, linux...), where ASCII is the default.",
)


def ascii_wanted(ascii_mode: bool | None) -> bool:
    """``--ascii``/``--unicode`` as given, else ASCII where the locale is not UTF-8 or
    TERM cannot draw braille and box lines (``views.terminal.terminal_wants_ascii``)."""
    if ascii_mode is not None:
        return ascii_mode
    import os

    from rooftui.views.terminal import terminal_wants_ascii

    return terminal_wants_ascii(os.environ)


def reports_or_sample(
    reports: tuple[str, ...], load_options: LoadOptions
) -> tuple[tuple[str, ...], LoadOptions]:
    """``reports``, or with none the bundled sample against the ceilings measured on its
    GPU (as ``rooftui`` opens it), said on stderr so that no output passes it off as a run."""
    if reports:
        return reports, load_options
    from rooftui.sample import sample_ceilings, sample_paths

    paths = tuple(str(path) for path in sample_paths())
    if load_options.ceilings is None:
        load_options = dataclasses.replace(load_options, ceilings=str(sample_ceilings()))
    names = ", ".join(Path(path).name for path in paths)
    click.echo(f"no report given: the bundled sample ({names}, a PyTorch AMP step on an H200)", err=True)
    return paths, load_options
