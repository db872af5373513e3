"""Profiling a launched job (torchrun, mpirun, srun): one ncu per rank, NCCL kept apart.

Seen on two H200s with the DDP sample (sample_data/multigpu/README.md):
- ncu on every rank at once hangs, even collecting one metric (one pass): before
  profiling a kernel ncu waits for its GPU to drain, and a collective in flight on
  that GPU completes only when every peer launches its part, which a peer blocked
  inside ncu's own profiling never does. Leaving NCCL kernels out is not enough
  (the run stalled in the forward pass, behind DDP's buffer broadcast).
- A collective replayed on one rank waits for peers that are not replaying it.

So the default, ``--comm time``, profiles ONE rank per run of the job, the others
running plainly (their collectives always complete): first every kernel except
NCCL's (function name starting "nccl") under rooftui's metric list, then NCCL's
kernels alone with one metric, gpu__time_duration.sum (one pass, nothing
replayed), so every collective launch is kept with its time, marked communication.
That is 2 runs of the job per profiled rank; ``--ranks`` picks fewer ranks.
"""

from __future__ import annotations

import csv
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from rooftui.errors import RooftuiError
from rooftui.ingest.sidecars import CUT_SHORT_SUFFIX
from rooftui.profile.launchers import LaunchedJob, clear_started, rank_wrapper_script, scratch_dir
from rooftui.profile.ncu import LOG_SUFFIX, RAW_CSV_SUFFIX, REPORT_SUFFIX, NcuOptions, ncu_arguments
from rooftui.profile.run import NcuRun, run_ncu
from rooftui.profile.time_export import TIME_METRIC, read_kernel_times

NCCL_PREFIX = "nccl"
# ncu's --kernel-name takes an ECMAScript regular expression after "regex:";
# a negative look-ahead leaves out every kernel whose function name starts "nccl".
NOT_NCCL = f"regex:^(?!{NCCL_PREFIX})"
ONLY_NCCL = f"regex:^{NCCL_PREFIX}"
COMM_SUFFIX = ".comm"  # the time-only run's reports: STEM.comm.rankN.ncu-rep


def counter_options(options: NcuOptions, comm: str) -> NcuOptions:
    """The counter run's options: NCCL left out unless ``comm`` is "replay"."""
    if comm == "replay" or options.kernel_name is not None:
        return options
    return replace(options, kernel_name=NOT_NCCL)


def comm_options(options: NcuOptions) -> NcuOptions:
    """The time-only run: NCCL kernels alone, one metric, one pass (nothing replayed)."""
    return replace(
        options, metrics=(TIME_METRIC,), kernel_name=ONLY_NCCL, launch_skip=None, launch_count=None
    )


def rank_reports(stem: Path) -> dict[str, Path]:
    """The per-rank reports ``stem``.rankN.ncu-rep, by rank, in rank order."""
    found = {}
    for path in stem.parent.glob(f"{stem.name}.rank*{REPORT_SUFFIX}"):
        rank = path.name[len(stem.name) + len(".rank") : -len(REPORT_SUFFIX)]
        found[rank] = path
    return dict(sorted(found.items(), key=lambda item: (not item[0].isdigit(), item[0].zfill(8))))


def run_job(
    ncu: str,
    options: NcuOptions,
    stem: Path,
    job: LaunchedJob,
    ranks: tuple[int, ...] | None,
    force: bool,
    stall_timeout: float,
    stop_on_stall: bool,
    echo: TextIO | None,
) -> NcuRun:
    """Run ``job`` once with ncu inside its launcher for ``ranks`` (None: all at once);
    reports STEM.rankN.ncu-rep, an existing one replaced only with ``force``."""
    mine = {str(r) for r in ranks} if ranks is not None else None
    old = [path for rank, path in rank_reports(stem).items() if mine is None or rank in mine]
    if old and not force:
        raise RooftuiError(
            "report already exists", path=old[0], fix="pass --force to overwrite it, or -o another name"
        )
    ncu_words = [ncu, *ncu_arguments(options), "-f"]
    wrapper = scratch_dir(stem) / f"{stem.name}.rank-wrapper.sh"  # removed when rooftui ends
    wrapper.write_text(rank_wrapper_script(ncu_words, stem, ranks), encoding="utf-8")
    wrapper.chmod(0o755)
    notes = [
        p
        for p in stem.parent.glob(f"{stem.name}.rank*{CUT_SHORT_SUFFIX}")
        if mine is None or p.name[len(stem.name) + len(".rank") : -len(CUT_SHORT_SUFFIX)] in mine
    ]
    for path in [*old, *notes]:
        path.unlink()
    clear_started(stem)
    return run_ncu(
        job.wrapped(wrapper.resolve()),
        stem,
        echo=echo,
        stall_timeout=stall_timeout,
        stop_on_stall=stop_on_stall,
        per_rank=True,
        ranks=ranks,
    )


@dataclass(frozen=True)
class KernelTime:
    rank: str
    ncu_id: int
    name: str
    time_s: float


def kernel_times(ncu: str, report: Path, rank: str) -> list[KernelTime]:
    """Each kernel's gpu__time_duration.sum in ``report``, through ncu's own CSV export."""
    done = subprocess.run(
        [
            ncu,
            "--import",
            str(report),
            "--csv",
            "--page",
            "raw",
            "--print-units",
            "base",
            "--metrics",
            TIME_METRIC,
        ],
        capture_output=True,
        text=True,
        errors="replace",  # whatever --ncu printed, undecodable bytes included
        check=False,
    )
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[0]
        raise RooftuiError(f"ncu could not export kernel times: {reason}", path=report)
    times = read_kernel_times(done.stdout, report)
    return [KernelTime(rank, ncu_id, name, seconds) for ncu_id, name, seconds in times]


def write_comm_csv(path: Path, times: list[KernelTime]) -> None:
    """Every NCCL launch with its time, marked communication (JSON/CSV keep exact names)."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["rank", "ncu_id", "name", "time_s", "communication", "time_source"])
        for t in times:
            writer.writerow([t.rank, t.ncu_id, t.name, repr(t.time_s), "true", f"measured ({TIME_METRIC})"])


@dataclass(frozen=True)
class RankShare:
    rank: str
    compute_kernels: int
    compute_s: float
    comm_kernels: int
    comm_s: float | None  # None: NCCL kernels were not timed

    @property
    def comm_share(self) -> float | None:
        if self.comm_s is None:
            return None
        total = self.compute_s + self.comm_s
        return self.comm_s / total if total > 0 else None


def rank_shares(compute: list[KernelTime], comm: list[KernelTime] | None) -> list[RankShare]:
    """Per rank: kernel time summed (each kernel timed alone by ncu, so overlap is not seen)."""
    ranks = sorted(
        {t.rank for t in compute} | {t.rank for t in comm or []}, key=lambda r: (not r.isdigit(), r.zfill(8))
    )
    shares = []
    for rank in ranks:
        mine = [t.time_s for t in compute if t.rank == rank]
        theirs = None if comm is None else [t.time_s for t in comm if t.rank == rank]
        shares.append(
            RankShare(rank, len(mine), sum(mine), len(theirs or []), None if theirs is None else sum(theirs))
        )
    return shares


def inherit_counters(ncu: str, reports: dict[str, Path], first: str) -> tuple[list[Path], list[str]]:
    """``rooftui profile --dedup`` of a launched job: the ranks other than ``first`` ran
    time-only; each gets ``first``'s counters launch by launch (STEM.rankN.raw.csv).
    The tables to summarise (``first``'s report first), and a line per rank."""
    from rooftui.profile import dedup, raw_export
    from rooftui.profile.run import export_raw, readable_report

    counters = raw_export.read_export(export_raw(ncu, reports[first]))
    tables, lines = [readable_report(reports[first], ncu)], []
    for rank, report in reports.items():
        if rank == first:
            continue
        times = raw_export.read_export(export_raw(ncu, report))
        merged, reason = dedup.rank_from_twin(counters, times, first)
        table = report.with_name(report.name[: -len(REPORT_SUFFIX)] + RAW_CSV_SUFFIX)
        table.write_text(raw_export.write_export(merged), encoding="utf-8")
        tables.append(table)
        lines.append(
            f"rooftui: rank {rank}: its own times, rank {first}'s counters launch by launch: {table}"
            if reason is None
            else f"rooftui: rank {rank}: its own times; counters NOT collected ({reason}): {table}"
        )
    return tables, lines


def comm_log_paths(stem: Path) -> list[Path]:
    return sorted(stem.parent.glob(f"{stem.name}{COMM_SUFFIX}.rank*{LOG_SUFFIX}"))
