"""``rooftui profile -- COMMAND...``: run ncu with rooftui's metrics, then summarise."""

from __future__ import annotations

import os
from pathlib import Path

import click

from rooftui.cli.metrics import ARCH_HELP, GPU_HELP, chosen_metrics
from rooftui.errors import RooftuiError
from rooftui.ingest.files import path_error
from rooftui.model.instructions import instruction_metrics
from rooftui.profile.launchers import parse_ranks, split_launcher
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
@click.option(
    "--ranks",
    default=None,
    metavar="LIST",
    help="For torchrun/mpirun/srun jobs: profile only these ranks ('0,1', '0-3'); the others run"
    " plainly. Default: every rank.",
)
@click.option(
    "--comm",
    type=click.Choice(["time", "skip", "replay"]),
    default="time",
    show_default=True,
    help="NCCL kernels in a multi-rank job, profiled one rank per run of the job. time: left out of"
    " the counter run (a collective replayed on one rank hangs the job), then timed in a second,"
    " one-metric run; skip: left out, not timed; replay: ncu on every rank at once, NCCL replayed"
    " like any kernel (hangs on collectives; for comparison).",
)
@click.option(
    "--stall-timeout",
    type=click.FloatRange(min=0),
    default=120,
    show_default=True,
    metavar="SECONDS",
    help="Say which kernel is stuck when none finished for this long; 0: never.",
)
@click.option(
    "--stop-on-stall",
    is_flag=True,
    help="Stop the run after the stall line, keeping what was profiled (as Ctrl-C does).",
)
@click.option(
    "--dedup/--exhaustive",
    "deduplicate",
    default=None,
    help="--dedup (the default for one program): probe every launch in one pass, then in one more"
    " run of COMMAND profile with the whole list the launches that cover each signature of work,"
    " and give the others their twin's counters with their own time (REPORT.raw.csv;"
    " REPORT.signatures.json says which); HFMA2 register moves are taken out of FP16."
    " --exhaustive (the default for launched jobs and with launch filters): every launch with the"
    " whole list.",
)
@click.option(
    "--no-register-moves",
    is_flag=True,
    help="With --dedup: leave the instruction-level data (rooftui's RooftuiRegisterMoves section) out"
    " (cheaper, but FP16 FLOPs then keep HFMA2 register moves).",
)
@click.option(
    "--instructions",
    is_flag=True,
    help="Also collect the instruction roofline's counters (explorer key i): one more ncu replay"
    " pass per kernel (8 -> 9 on an H200, docs/instruction-roofline.md).",
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
    ranks: str | None,
    comm: str,
    stall_timeout: float,
    stop_on_stall: bool,
    deduplicate: bool | None,
    no_register_moves: bool,
    instructions: bool,
    open_tui: bool,
    command: tuple[str, ...],
) -> None:
    """Profile COMMAND with ncu, collecting exactly what the roofline needs.

    \b
    Runs ncu with --nvtx, --clock-control none (clocks are never touched) and
    --target-processes all, then prints the summary of the report.
      rooftui profile --profile-from-start off -- python train.py --steps 20
      rooftui profile --profile-from-start off -- torchrun --nproc_per_node 2 train.py
    torchrun, python -m torch.distributed.run, mpirun/mpiexec and srun get ncu
    inside the launcher: one report per rank, REPORT.rankN.ncu-rep.
    """
    if open_tui:  # before ncu runs, not after: the explorer cannot start without a terminal
        from rooftui.cli.terminal import require_terminal

        require_terminal("profile --open (the explorer)", "profile without --open (it prints the summary)")
    # Every argument is checked before ncu is looked for or anything runs (bounded, one line).
    if output is not None:
        check_output_name(output)
    job = split_launcher(list(command))
    wanted_ranks = parse_ranks(ranks)
    if job is None and wanted_ranks is not None:
        raise RooftuiError(
            "--ranks needs a launcher (torchrun, mpirun, mpiexec, srun) in COMMAND",
            fix="leave out --ranks for a single-process program",
        )
    if job is not None and wanted_ranks is None:
        job.planned_ranks(os.environ)  # refuses -np 1e8, --nproc_per_node 100000000, ...
    ncu = find_ncu(ncu_path)
    names = chosen_metrics(arch, gpu) + (instruction_metrics() if instructions else [])
    options = NcuOptions(
        metrics=tuple(names),
        profile_from_start=profile_from_start == "on",
        nvtx_include=nvtx_include,
        kernel_name=kernel_name,
        launch_skip=launch_skip,
        launch_count=launch_count,
    )
    stem = report_stem(output, list(command), force)
    if job is not None:
        from rooftui.cli.profile_job import profile_launched_job
        from rooftui.profile.launchers import remove_scratch

        try:  # the rank wrapper and the .started marks go however the job ends
            profile_launched_job(
                ncu,
                options,
                stem,
                job,
                wanted_ranks,
                comm,
                force,
                stall_timeout,
                stop_on_stall,
                open_tui,
                deduplicate=bool(deduplicate),  # unverified on several GPUs: opt-in there
            )
        finally:
            remove_scratch()
        return
    filtered = nvtx_include or kernel_name is not None or launch_skip is not None or launch_count is not None
    if deduplicate is None:  # measured: docs/profile.md, "Profiling each distinct piece of work once"
        deduplicate = not filtered
    elif deduplicate and filtered:
        click.echo(
            "rooftui: launch filters given (--nvtx-include, -k, --launch-skip, --launch-count): every"
            " matching launch is profiled in full (as --exhaustive)",
            err=True,
        )
        deduplicate = False
    if deduplicate:
        from rooftui.profile.deduplicated import profile_deduplicated

        done = profile_deduplicated(
            ncu,
            options,
            stem,
            list(command),
            force,
            stall_timeout,
            stop_on_stall,
            register_moves=not no_register_moves,
        )
        for line in done.lines:
            click.echo(line, err=True)
        show_report(done.table, open_tui)
        return
    run = run_ncu(
        ncu_argv(ncu, options, stem, list(command), force=force),
        stem,
        stall_timeout=stall_timeout,
        stop_on_stall=stop_on_stall,
    )
    report = check_run(run)
    passes = sorted(set(run.log.passes))
    each = "/".join(str(p) for p in passes) or "?"
    click.echo(
        f"rooftui: {len(run.log.kernels)} kernels profiled, {each} replay passes each, "
        f"in {run.seconds:.0f} s: {report}",
        err=True,
    )
    show_report(readable_report(report, ncu), open_tui)


# What rooftui and ncu add to -o REPORT: ".comm.rank131071.ncu.log", ".communication.csv"...
_SUFFIX_ROOM = 40
_NAME_MAX = 255  # bytes in one file name (Linux, macOS)
_OUTPUT_FIX = "give -o a file name in a folder that exists, e.g. -o runs/train"


def check_output_name(output: str) -> None:
    """Refuse an ``-o`` that cannot name rooftui's reports, before ncu or the job runs:
    empty, a folder (``.``, ``out/``), a name too long once suffixed, a folder part that
    is a file or missing, or a report/log path that is a folder."""
    name = os.path.basename(output)
    if not output.strip():
        raise RooftuiError("-o '': an empty report name", fix=_OUTPUT_FIX)
    if name in ("", ".", "..") or output.endswith(os.sep):
        raise RooftuiError(f"-o {output}: names a folder, not a report", fix=_OUTPUT_FIX)
    if len(os.fsencode(name)) > _NAME_MAX - _SUFFIX_ROOM:
        raise RooftuiError(
            f"-o: the name is {len(os.fsencode(name))} bytes; with the suffixes rooftui "
            f"adds it must stay within {_NAME_MAX - _SUFFIX_ROOM}",
            fix=_OUTPUT_FIX,
        )
    folder = Path(os.path.dirname(output) or ".")
    try:
        folder.stat()  # missing, too long, no permission: said as such
        is_folder = os.path.isdir(folder)
    except OSError as err:
        raise path_error(err, folder) from None
    if not is_folder:
        raise RooftuiError("-o: not a folder", path=folder, fix=_OUTPUT_FIX)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise RooftuiError("-o: cannot write in this folder", path=folder, fix=_OUTPUT_FIX)
    stem = output[: -len(".ncu-rep")] if output.endswith(".ncu-rep") else output
    for suffix in (".ncu-rep", ".ncu.log", ".raw.csv"):
        if os.path.isdir(stem + suffix):
            raise RooftuiError(
                "is a folder, where rooftui profile writes a file",
                path=stem + suffix,
                fix="give -o another name",
            )


def show_report(report: Path | list[Path], open_tui: bool) -> None:
    """Open ``report`` (or several, as one run) in the explorer, or print their summary."""
    paths = [str(p) for p in (report if isinstance(report, list) else [report])]
    if open_tui:
        from rooftui.cli.open_cmd import open_cmd

        open_cmd.main(paths, prog_name="rooftui open", standalone_mode=False)
    else:
        from rooftui.cli.summary import summary

        summary.main(paths, prog_name="rooftui summary", standalone_mode=False)
