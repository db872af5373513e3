"""``rooftui profile -- torchrun|mpirun|srun ...``: per rank, the counter run and the NCCL
time run (see rooftui.profile.job for why one rank at a time), then the per-rank summary."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import click

from rooftui.errors import RooftuiError
from rooftui.ingest.sidecars import COMMUNICATION_CSV_SUFFIX, write_cut_short_note
from rooftui.profile.job import (
    COMM_SUFFIX,
    TIME_METRIC,
    KernelTime,
    comm_options,
    counter_options,
    inherit_counters,
    kernel_times,
    rank_reports,
    rank_shares,
    run_job,
    write_comm_csv,
)
from rooftui.profile.launchers import (
    LaunchedJob,
    clear_started,
    describe,
    ranks_text,
    started_ranks,
)
from rooftui.profile.ncu import NcuOptions
from rooftui.profile.run import NcuRun, ProfileInterrupted, check_run, readable_report


def _check(run: NcuRun, stem: Path, what: str, group: tuple[int, ...] | None) -> None:
    """Raise what went wrong; a run stopped early leaves a note beside each report it cut."""
    if run.interrupted:
        reason = f"{what} cut short: {run.stalled or 'interrupted (Ctrl-C)'}"
        cut = [
            path
            for rank, path in rank_reports(stem).items()
            if group is None or rank in {str(r) for r in group}
        ]
        for path in cut:
            write_cut_short_note(path, reason)
        fix = (
            f"kept, partial: {', '.join(map(str, cut))} (a .cut-short.txt beside each says why; rooftui"
            f" summary and the explorer note it); open with rooftui summary {stem}.rank*.ncu-rep"
            if cut
            else "no report was written"
        )
        raise ProfileInterrupted(f"{what} cut short: {'stalled' if run.stalled else 'interrupted'}", fix=fix)
    if not run.logs:
        raise RooftuiError(f"{what}: no rank started ncu", fix="check that the launcher started the program")
    if run.log.app_exit_code is not None or run.log.counters_not_permitted:
        check_run(run)  # raises the one-line error for these
    if run.returncode != 0:
        first = run.log.errors[0] if run.log.errors else f"see {stem}.rank*.ncu.log"
        raise RooftuiError(f"{what} failed (exit code {run.returncode}): {first}")


def _learn_ranks(
    stem: Path, first: int, planned: tuple[int, ...] | None, source: str, explicit: bool, runs_per_rank: int
) -> list[int] | None:
    """After the first run of the job: the ranks still to profile when the ranks the job
    started (marked by the rank wrapper) differ from the plan; None to keep the plan."""
    started = started_ranks(stem)
    if not started:
        return None  # no wrapper ran: the counter run's check says what happened
    if explicit:
        missing = set(planned or ()) - started
        if missing:
            raise RooftuiError(
                f"--ranks {ranks_text(missing)}: the job started no such rank"
                f" (it started ranks {ranks_text(started)})",
                fix="list ranks the job starts",
            )
        return None
    if planned is not None and set(planned) == started:
        return None
    said = f"the options said {ranks_text(planned)}" if planned is not None else source
    click.echo(
        f"rooftui: the job started ranks {ranks_text(started)} ({said}): profiling each,"
        f" {len(started) * runs_per_rank} runs of the job in all",
        err=True,
    )
    return sorted(started - {first})


def profile_launched_job(
    ncu: str,
    options: NcuOptions,
    stem: Path,
    job: LaunchedJob,
    ranks: tuple[int, ...] | None,
    comm: str,
    force: bool,
    stall_timeout: float,
    stop_on_stall: bool,
    open_tui: bool,
    deduplicate: bool = False,
) -> None:
    """Profile ``job`` rank by rank (the caller removes the rank wrapper and marks after)."""
    stderr = sys.stderr
    explicit = ranks is not None
    planned, source = (ranks, "--ranks") if explicit else job.planned_ranks(os.environ)
    click.echo(describe(job, planned, comm, source), err=True)
    if deduplicate and comm != "replay":
        click.echo(
            "rooftui: --dedup: the first rank profiled gets rooftui's whole list; every other rank is"
            " timed in one pass and takes its counters launch by launch",
            err=True,
        )
    if comm == "replay":  # every listed rank at once, in one run (None: every rank)
        queue: list[tuple[int, ...] | None] = [ranks]
    else:  # one rank per run; with no plan, rank 0 first, then the ranks that run started
        queue = [(r,) for r in (planned if planned is not None else (0,))]
    learned = comm == "replay"
    comm_times: list[KernelTime] | None = [] if comm == "time" else None
    not_timed = {"skip": "NCCL not timed (--comm skip)", "replay": "NCCL in the counter report"}.get(comm, "")
    # --dedup: the ranks run the same kernels, so only the first rank profiled gets the whole
    # list; the others are timed (one pass) and take its counters launch by launch.
    first: str | None = None
    while queue:
        group = queue.pop(0)
        run_options = counter_options(options, comm)
        if deduplicate and comm != "replay" and first is not None:
            run_options = replace(run_options, metrics=(TIME_METRIC,))
        run = run_job(ncu, run_options, stem, job, group, force, stall_timeout, stop_on_stall, echo=stderr)
        if not learned and group is not None:
            learned = True
            more = _learn_ranks(stem, group[0], planned, source, explicit, 2 if comm == "time" else 1)
            if more is not None:
                queue = [(r,) for r in more]
                if group[0] not in started_ranks(stem):
                    continue  # that run profiled no rank: the job has no such rank
        _check(run, stem, "counter run", group)
        if first is None and group is not None:
            first = str(group[0])
        passes = "/".join(str(p) for p in sorted(set(run.log.passes))) or "?"
        who = "every rank" if group is None else "rank " + ",".join(str(r) for r in group)
        click.echo(
            f"rooftui: counter run, {who}: {len(run.log.kernels)} kernels, {passes} replay passes"
            f" each, in {run.seconds:.0f} s",
            err=True,
        )
        if comm_times is not None:
            timed = _time_comm(ncu, options, stem, job, group, stall_timeout)
            if timed is None:
                comm_times, not_timed = None, "NCCL NOT timed (the NCCL time run did not finish)"
            else:
                comm_times += timed
    clear_started(stem)
    clear_started(Path(f"{stem}{COMM_SUFFIX}"))
    reports = rank_reports(stem)
    if not reports:
        raise RooftuiError(
            "ncu profiled no kernel on any rank",
            fix="with --profile-from-start off the program must call cudaProfilerStart()",
        )
    compute = [t for rank, path in reports.items() for t in kernel_times(ncu, path, rank)]
    if comm_times is not None:
        csv_path = Path(f"{stem}{COMMUNICATION_CSV_SUFFIX}")
        write_comm_csv(csv_path, comm_times)
        click.echo(f"rooftui: {len(comm_times)} NCCL launches, each with its time: {csv_path}", err=True)
    click.echo(
        "rooftui: per rank (kernel times summed, each kernel timed alone by ncu, overlap not seen):", err=True
    )
    for share in rank_shares(compute, comm_times):
        comm_text = (
            not_timed
            if share.comm_s is None
            else f"{share.comm_kernels} NCCL launches {share.comm_s * 1e3:.3f} ms, communication share "
            f"{(share.comm_share or 0) * 100:.1f}%"
        )
        click.echo(
            f"  rank {share.rank}: {share.compute_kernels} kernels "
            f"{share.compute_s * 1e3:.3f} ms; {comm_text}",
            err=True,
        )
    from rooftui.cli.profile import show_report

    if deduplicate and first is not None and first in reports:
        tables, lines = inherit_counters(ncu, reports, first)
        for line in lines:
            click.echo(line, err=True)
        show_report(tables, open_tui)
        return
    show_report([readable_report(p, ncu) for p in reports.values()], open_tui)


def _time_comm(
    ncu: str,
    options: NcuOptions,
    stem: Path,
    job: LaunchedJob,
    group: tuple[int, ...] | None,
    stall_timeout: float,
) -> list[KernelTime] | None:
    """The NCCL time run for ``group``; its kernel times, or None when it did not finish."""
    comm_stem = Path(f"{stem}{COMM_SUFFIX}")
    # One metric replays nothing, so a stall here is a hang for good: stop on it.
    comm_run = run_job(
        ncu, comm_options(options), comm_stem, job, group, True, stall_timeout or 120, True, echo=sys.stderr
    )
    try:
        _check(comm_run, comm_stem, "NCCL time run", group)
    except RooftuiError as err:
        click.echo(f"rooftui: {err}; the counter reports are complete, NCCL launches are not timed", err=True)
        return None
    mine = {str(r) for r in group} if group is not None else None
    times = [
        t
        for rank, path in rank_reports(comm_stem).items()
        if mine is None or rank in mine
        for t in kernel_times(ncu, path, rank)
    ]
    click.echo(f"rooftui: NCCL time run: {len(times)} NCCL launches in {comm_run.seconds:.0f} s", err=True)
    return times
