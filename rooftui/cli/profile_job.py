"""``rooftui profile -- torchrun|mpirun|srun ...``: the counter run, the NCCL time run, the summary."""

from __future__ import annotations

from pathlib import Path

import click

from rooftui.errors import RooftuiError
from rooftui.profile.job import (
    COMM_CSV_SUFFIX,
    COMM_SUFFIX,
    KernelTime,
    comm_options,
    counter_options,
    kernel_times,
    lockstep_arguments,
    rank_reports,
    rank_shares,
    run_job,
    write_comm_csv,
)
from rooftui.profile.launchers import LaunchedJob
from rooftui.profile.ncu import NcuOptions
from rooftui.profile.run import NcuRun, ProfileInterrupted, check_run, readable_report

CUT_SHORT_SUFFIX = ".cut-short.txt"


def _check(run: NcuRun, stem: Path, what: str) -> None:
    """Raise what went wrong, writing the cut-short note beside the reports first."""
    if run.interrupted:
        kept = rank_reports(stem)
        reason = run.stalled or "interrupted (Ctrl-C)"
        note = Path(f"{stem}{CUT_SHORT_SUFFIX}")
        note.write_text(f"{what} cut short: {reason}\nreports kept: "
                        + ", ".join(str(p) for p in kept.values()) + "\n", encoding="utf-8")
        fix = (f"{len(kept)} rank report(s) kept ({note} says why);"
               f" open them with rooftui summary {stem}.rank*.ncu-rep" if kept else "no report was written")
        raise ProfileInterrupted(f"{what} cut short: {'stalled' if run.stalled else 'interrupted'}", fix=fix)
    if not run.logs:
        raise RooftuiError(f"{what}: no rank started ncu", fix="check that the launcher started the program")
    if run.log.app_exit_code is not None or run.log.counters_not_permitted:
        check_run(run)  # raises the one-line error for these
    if run.returncode != 0:
        first = run.log.errors[0] if run.log.errors else f"see {stem}.rank*.ncu.log"
        raise RooftuiError(f"{what} failed (exit code {run.returncode}): {first}")


def profile_launched_job(ncu: str, options: NcuOptions, stem: Path, job: LaunchedJob,
                         ranks: tuple[int, ...] | None, comm: str, force: bool, stall_timeout: float,
                         stop_on_stall: bool, open_tui: bool, chosen: str) -> None:
    click.echo(chosen, err=True)
    run = run_job(ncu, counter_options(options, comm), stem, job, ranks, force, stall_timeout,
                  stop_on_stall, echo=click.get_text_stream("stderr"))
    _check(run, stem, "counter run")
    reports = rank_reports(stem)
    if not reports:
        raise RooftuiError("ncu profiled no kernel on any rank",
                           fix="with --profile-from-start off the program must call cudaProfilerStart()")
    passes = "/".join(str(p) for p in sorted(set(run.log.passes))) or "?"
    click.echo(f"rooftui: counter run: {len(run.log.kernels)} kernels on {len(reports)} rank(s), {passes} "
               f"replay passes each, in {run.seconds:.0f} s", err=True)
    compute = [t for rank, path in reports.items() for t in kernel_times(ncu, path, rank)]
    comm_times, not_timed = None, "NCCL not timed (--comm skip)"
    if comm in ("time", "lockstep"):
        comm_times, not_timed = _time_comm(ncu, options, stem, job, ranks, comm, stall_timeout)
    click.echo("rooftui: per rank (kernel times summed, each kernel timed alone by ncu):", err=True)
    for share in rank_shares(compute, comm_times):
        comm_text = (not_timed if share.comm_s is None else
                     f"{share.comm_kernels} NCCL launches {share.comm_s * 1e3:.3f} ms, communication share "
                     f"{(share.comm_share or 0) * 100:.1f}%")
        click.echo(f"  rank {share.rank}: {share.compute_kernels} compute kernels "
                   f"{share.compute_s * 1e3:.3f} ms; {comm_text}", err=True)
    from rooftui.cli.profile import show_report

    show_report([readable_report(p, ncu) for p in reports.values()], open_tui)


def _time_comm(ncu: str, options: NcuOptions, stem: Path, job: LaunchedJob, ranks: tuple[int, ...] | None,
               comm: str, stall_timeout: float) -> tuple[list[KernelTime] | None, str]:
    """The NCCL time run; its kernel times, or None and the reason they are missing."""
    extra: tuple[str, ...] = ()
    if comm == "lockstep":
        peers = len(ranks) if ranks is not None else job.process_count()
        if peers is None:
            raise RooftuiError(f"--comm lockstep: cannot tell how many ranks {job.launcher} starts",
                               fix="give the process count in the launcher's options, or --ranks")
        extra = tuple(lockstep_arguments(peers))
    comm_stem = Path(f"{stem}{COMM_SUFFIX}")
    # A one-metric run replays nothing, so a stall here is a hang for good: stop on it.
    comm_run = run_job(ncu, comm_options(options), comm_stem, job, ranks, True, stall_timeout or 120,
                       True, echo=click.get_text_stream("stderr"), extra=extra)
    try:
        _check(comm_run, comm_stem, "NCCL time run")
    except RooftuiError as err:
        click.echo(f"rooftui: {err}; the counter reports are complete, NCCL launches are not timed", err=True)
        return None, "NCCL NOT timed (the NCCL time run did not finish)"
    times = [t for rank, path in rank_reports(comm_stem).items() for t in kernel_times(ncu, path, rank)]
    csv_path = Path(f"{stem}{COMM_CSV_SUFFIX}")
    write_comm_csv(csv_path, times)
    click.echo(f"rooftui: NCCL time run: {len(times)} NCCL launches in {comm_run.seconds:.0f} s,"
               f" each with its time ({csv_path})", err=True)
    return times, ""
