"""``rooftui profile -- COMMAND...``: run ncu with rooftui's metrics, then summarise."""

from __future__ import annotations

from pathlib import Path

import click

from rooftui.cli.metrics import ARCH_HELP, GPU_HELP, chosen_metrics
from rooftui.profile.ncu import NcuOptions, find_ncu, ncu_argv, report_stem
from rooftui.profile.run import check_run, readable_report, run_ncu


@click.command(
    "profile",
    context_settings={"allow_interspersed_args": False},
)
@click.option("--arch", default=None, metavar="sm_XY", help=ARCH_HELP + " Default: this GPU.")
@click.option("--gpu", default=None, metavar="NAME", help=GPU_HELP)
@click.option(
    "-o",
    "--output",
    default=None,
    metavar="REPORT",
    help="Report to write (.ncu-rep added). Default: <command>-<date>-<time>.ncu-rep here.",
)
@click.option("--force", is_flag=True, help="Overwrite REPORT if it exists.")
@click.option(
    "--profile-from-start",
    type=click.Choice(["on", "off"]),
    default="on",
    show_default=True,
    help="off: profile only between cudaProfilerStart and Stop (torch.cuda.profiler.start() and stop()).",
)
@click.option(
    "--nvtx-include",
    multiple=True,
    metavar="FILTER",
    help="Only kernels inside these NVTX ranges, in ncu's syntax ('forward/'); repeatable.",
)
@click.option(
    "-k",
    "--kernel-name",
    default=None,
    metavar="NAME",
    help="Only kernels of this name; 'regex:gemm|conv' for a regular expression.",
)
@click.option(
    "--launch-skip",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Skip the first N matching launches.",
)
@click.option(
    "--launch-count",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Profile at most N matching launches.",
)
@click.option(
    "--ncu",
    "ncu_path",
    envvar="ROOFTUI_NCU",
    default=None,
    metavar="PATH",
    help="The ncu to run (also $ROOFTUI_NCU). Default: ncu on PATH, then "
    "/usr/local/cuda/bin/ncu, then /opt/nvidia/nsight-compute/<version>/ncu.",
)
@click.option("--open", "open_tui", is_flag=True, help="Open the report in the explorer when done.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def profile(
    arch: str | None,
    gpu: str | None,
    output: str | None,
    force: bool,
    profile_from_start: str,
    nvtx_include: tuple[str, ...],
    kernel_name: str | None,
    launch_skip: int | None,
    launch_count: int | None,
    ncu_path: str | None,
    open_tui: bool,
    command: tuple[str, ...],
) -> None:
    """Profile COMMAND with ncu, collecting exactly what the roofline needs.

    \b
    Runs ncu with --nvtx, --clock-control none (clocks are never touched) and
    --target-processes all, then prints the summary of the report.
      rooftui profile --profile-from-start off -- python train.py --steps 20
    """
    ncu = find_ncu(ncu_path)
    names = chosen_metrics(arch, gpu)
    options = NcuOptions(
        metrics=tuple(names),
        profile_from_start=profile_from_start == "on",
        nvtx_include=nvtx_include,
        kernel_name=kernel_name,
        launch_skip=launch_skip,
        launch_count=launch_count,
    )
    stem = report_stem(output, list(command), force)
    run = run_ncu(ncu_argv(ncu, options, stem, list(command), force=force), stem)
    report = check_run(run)
    passes = sorted(set(run.log.passes))
    each = "/".join(str(p) for p in passes) or "?"
    click.echo(
        f"rooftui: {len(run.log.kernels)} kernels profiled, {each} replay passes each, "
        f"in {run.seconds:.0f} s: {report}",
        err=True,
    )
    show_report(readable_report(report, ncu), open_tui)


def show_report(report: Path, open_tui: bool) -> None:
    """Open ``report`` in the explorer, or print its summary (``rooftui summary``)."""
    if open_tui:
        from rooftui.cli.open_cmd import open_cmd

        open_cmd.main([str(report)], prog_name="rooftui open", standalone_mode=False)
    else:
        from rooftui.cli.summary import summary

        summary.main([str(report)], prog_name="rooftui summary", standalone_mode=False)
