"""Running ncu: echo its messages as they come, then name what went wrong in one line.

ncu writes its own messages (``==PROF==``, ``==ERROR==``) to a log file beside the
report (``--log-file``), so the profiled program keeps its terminal as it is; this
module follows that file, echoes it to stderr and reads the outcome from it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TextIO, cast

from rooftui.errors import GpuUnavailableError, RooftuiError
from rooftui.ingest.sidecars import cut_short_path, write_cut_short_note
from rooftui.profile.ncu import LOG_SUFFIX, RAW_CSV_SUFFIX, REPORT_SUFFIX
from rooftui.views.text import printable


class _CurrentStderr:
    """``sys.stderr`` as it is when written to, not as it was when this module was imported: a
    default argument of ``sys.stderr`` keeps the stream of the first caller, so an in-process
    CLI call (click's runner, the tests) would echo into an earlier call's captured stream."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


STDERR = cast(TextIO, _CurrentStderr())

# "- 12: 0%....50%....100% - 8 passes", or "- 12 (13/300): ..." under --launch-count;
# under a --kernel-name filter ncu 2025.3 leaves the ID out ('Profiling "k": 0%....').
_PROFILED = re.compile(
    r'==PROF== Profiling "(?P<name>.*)"(?: - (?P<id>\d+)(?: \(\d+/\d+\))?)?: .* - (?P<passes>\d+) pass'
)
_REPORT = re.compile(r"==PROF== Report: (?P<path>.+?)\s*$")
_APP_EXIT = re.compile(r"application returned an error code \((?P<code>-?\d+)\)")
# A kernel being profiled: the line ncu starts before its passes finish.
_PROFILING = re.compile(r'==PROF== Profiling "(?P<name>.*?)"')
_SLOW = "taking more time than expected"
# How long to leave ncu to finish on its own after Ctrl-C (the terminal signals
# ncu too) before passing the interrupt on to it ourselves.
INTERRUPT_GRACE_S = 10.0


class CountersNotPermittedError(GpuUnavailableError):
    """ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM)."""


class ProfiledCommandFailed(RooftuiError):
    """The profiled program failed; rooftui exits with its exit code."""

    def __init__(self, message: str, exit_code: int, fix: str | None = None):
        super().__init__(message, fix=fix)
        self.exit_code = exit_code


class ProfileInterrupted(RooftuiError):
    """Ctrl-C during a profile: what ncu had written is kept."""

    exit_code = 130


@dataclass
class NcuLog:
    """What ncu's messages say about a run."""

    kernels: list[str] = field(default_factory=list)
    passes: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    report: Path | None = None
    app_exit_code: int | None = None
    counters_not_permitted: bool = False
    no_kernels: bool = False
    slow_warning: bool = False

    def read_line(self, line: str) -> None:
        if _SLOW in line:
            self.slow_warning = True
        if match := _PROFILED.search(line):
            self.kernels.append(match["name"])
            self.passes.append(int(match["passes"]))
        elif match := _REPORT.search(line):
            self.report = Path(match["path"])
        if "==ERROR==" in line:
            self.errors.append(line.strip())
        if "ERR_NVGPUCTRPERM" in line:
            self.counters_not_permitted = True
        if match := _APP_EXIT.search(line):
            self.app_exit_code = int(match["code"])
        if "No kernels were profiled" in line:
            self.no_kernels = True


@dataclass
class NcuRun:
    """One finished (or interrupted) ncu run."""

    returncode: int
    seconds: float
    log: NcuLog
    log_path: Path
    report_path: Path
    interrupted: bool = False
    stalled: str | None = None  # the stall line, when the watchdog stopped the run
    logs: dict[str, NcuLog] = field(default_factory=dict)  # per rank, for a launched job

    @property
    def report(self) -> Path | None:
        """The report ncu wrote, if any."""
        path = self.log.report or self.report_path
        return path if path.exists() else None


class _LogFollower:
    """Reads the log as ncu appends to it, echoing whole lines."""

    def __init__(self, path: Path, echo: TextIO | None, prefix: str = ""):
        self.path, self.echo, self.prefix = path, echo, prefix
        self.offset, self.partial = 0, ""
        self.log = NcuLog()

    def profiling_now(self) -> str | None:
        """The kernel whose passes have started but not finished, if any."""
        match = _PROFILING.search(self.partial)
        return match["name"] if match else None

    def poll(self, final: bool = False) -> None:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                handle.seek(self.offset)
                text = handle.read()
                self.offset = handle.tell()
        except FileNotFoundError:
            return
        lines = (self.partial + text).split("\n")
        self.partial = "" if final else lines.pop()
        for line in lines:
            if not line and final:
                continue
            self.log.read_line(line)
            if self.echo is not None:  # kernel names come from the program: no escape reaches the terminal
                self.echo.write(echo_line(self.prefix + line) + "\n")
                self.echo.flush()


def stall_message(stuck: list[tuple[str, str | None]], seconds: float, slow_warning: bool) -> str:
    """The one line for a run in which no kernel finished for ``seconds``.

    ``stuck`` holds (who, kernel) for each log: the kernel whose passes started last.
    """
    named = [f"{who}{printable(kernel)}" for who, kernel in stuck if kernel]
    where = f"stuck profiling {', '.join(named)}" if named else "no kernel being profiled"
    said = "; ncu says the launch is taking more time than expected" if slow_warning else ""
    if len(stuck) > 1:
        fix = (
            "ncu drains each GPU before it profiles a kernel, and a collective in flight drains only "
            "when every peer launches its part, which a peer blocked in ncu never does: profile one "
            "rank at a time (rooftui profile's default for launched jobs; --comm replay does not)"
        )
    elif any(kernel and kernel.startswith("nccl") for _, kernel in stuck):
        fix = (
            "a collective replayed on one rank waits for its peers forever: "
            "leave NCCL kernels out of replay (--comm time, the default, or --comm skip)"
        )
    else:
        fix = (
            "if the program waits on another process (a collective, a queue), leave that kernel out "
            "with -k regex:, or profile fewer kernels with --launch-count"
        )
    return (
        f"rooftui: no kernel finished for {seconds:.0f} s, {where}{said}. {fix}; "
        "Ctrl-C stops the run and keeps what was profiled"
    )


@dataclass
class _Watch:
    """Follows every log of a run: the one ncu log, or one per rank of a launched job."""

    echo: TextIO | None
    fixed: Path | None
    rank_glob: tuple[Path, str, str] | None  # folder, glob, the file names' part before the rank
    followers: dict[str, _LogFollower] = field(default_factory=dict)

    def poll(self, final: bool = False) -> int:
        """Read what is new; the number of kernels finished so far."""
        if self.fixed is not None and not self.followers:
            self.followers[""] = _LogFollower(self.fixed, self.echo)
        if self.rank_glob is not None:
            folder, pattern, before = self.rank_glob
            for path in sorted(folder.glob(pattern)):
                rank = path.name[len(before) : -len(LOG_SUFFIX)]
                if rank not in self.followers:
                    self.followers[rank] = _LogFollower(path, self.echo, prefix=f"[rank {rank}] ")
        for follower in self.followers.values():
            follower.poll(final)
        return sum(len(f.log.kernels) for f in self.followers.values())

    def stuck(self) -> list[tuple[str, str | None]]:
        return [(f"rank {rank}: " if rank else "", f.profiling_now()) for rank, f in self.followers.items()]

    def merged(self) -> NcuLog:
        if list(self.followers) == [""]:
            return self.followers[""].log
        merged = NcuLog()
        for follower in self.followers.values():
            log = follower.log
            merged.kernels += log.kernels
            merged.passes += log.passes
            merged.errors += log.errors
            merged.counters_not_permitted |= log.counters_not_permitted
            merged.slow_warning |= log.slow_warning
            if log.app_exit_code is not None:
                merged.app_exit_code = log.app_exit_code
        merged.no_kernels = not merged.kernels
        return merged


_ECHO_CHARS = 2000  # a log line longer than this (a huge kernel name) is cut when echoed


def echo_line(line: str) -> str:
    """A line of ncu's log as echoed: control characters escaped (kernel names and the
    program's output come from the profiled program), at most ``_ECHO_CHARS`` long."""
    from rooftui.views.text import printable

    shown = printable(line)
    return shown if len(shown) <= _ECHO_CHARS else shown[: _ECHO_CHARS - 1] + "…"


def _stop(process: subprocess.Popen, group: bool, sig: int) -> None:
    try:
        if group:
            os.killpg(process.pid, sig)
        else:
            process.send_signal(sig)
    except ProcessLookupError:
        pass


def run_ncu(
    argv: list[str],
    report_stem: Path,
    echo: TextIO | None = STDERR,
    stall_timeout: float = 0,
    stop_on_stall: bool = False,
    per_rank: bool = False,
    ranks: tuple[int, ...] | None = None,
) -> NcuRun:
    """Run ``argv`` (from ``ncu_argv``, or a launcher with the rank wrapper) to its end.

    Ctrl-C waits for ncu to save what it has. With ``stall_timeout`` > 0 a watchdog
    prints one line when no kernel finished for that long (and, with
    ``stop_on_stall``, stops the run as Ctrl-C would). ``per_rank``: the logs are
    ``report_stem``.rankN.ncu.log, written by one ncu per rank (N: the one rank in
    ``ranks``, or any).
    """
    log_path = Path(f"{report_stem}{LOG_SUFFIX}")
    if per_rank:
        before = f"{report_stem.name}.rank"
        which = str(ranks[0]) if ranks is not None and len(ranks) == 1 else "*"
        pattern = f"{before}{which}{LOG_SUFFIX}"
        for old in report_stem.parent.glob(pattern):
            old.unlink()
        watch = _Watch(echo, None, (report_stem.parent, pattern, before))
    else:
        log_path.unlink(missing_ok=True)  # only after the -o/--force checks allowed it
        cut_short_path(report_stem).unlink(missing_ok=True)  # a note of an earlier run
        watch = _Watch(echo, log_path, None)
    start = time.monotonic()
    try:
        # A launched job gets its own process group, so that stopping it reaches every rank.
        process = subprocess.Popen(argv, start_new_session=per_rank)
    except OSError as err:
        raise GpuUnavailableError(f"could not start ncu: {err}", path=argv[0]) from err
    interrupted = False
    interrupted_at = 0.0
    forwarded = terminated = False
    stalled: str | None = None
    # A stall is a kernel inside ncu that has not finished: time runs from the moment the
    # kernels being profiled last changed; a program busy outside ncu (start-up, warm-up
    # before cudaProfilerStart) is never called stuck.
    last_state: tuple = ()
    last_progress, warned = start, False
    while True:
        try:
            while process.poll() is None:
                count = watch.poll()
                now = time.monotonic()
                stuck = watch.stuck()
                state = (count, tuple(stuck))
                if state != last_state:
                    last_state, last_progress, warned = state, now, False
                elif (
                    stall_timeout > 0
                    and not warned
                    and any(kernel for _, kernel in stuck)
                    and now - last_progress >= stall_timeout
                ):
                    warned = True
                    line = stall_message(stuck, now - last_progress, watch.merged().slow_warning)
                    if echo is not None:
                        echo.write(echo_line(line) + "\n")
                        echo.flush()
                    if stop_on_stall and not interrupted:
                        stalled = line
                        interrupted, interrupted_at = True, now
                        _stop(process, per_rank, signal.SIGINT)
                        forwarded = per_rank
                waited = time.monotonic() - interrupted_at
                if interrupted and not forwarded and waited > INTERRUPT_GRACE_S:
                    _stop(process, per_rank, signal.SIGINT)
                    forwarded, interrupted_at = True, time.monotonic()
                # escalation, for a job or a stall (a Ctrl-C by hand is the user's to repeat)
                escalate = interrupted and (per_rank or stalled is not None)
                if escalate and waited > 3 * INTERRUPT_GRACE_S:
                    _stop(process, per_rank, signal.SIGKILL)  # a rank stuck in a collective ignores SIGINT
                elif escalate and waited > 2 * INTERRUPT_GRACE_S and not terminated:
                    _stop(process, per_rank, signal.SIGTERM)  # before SIGKILL: lets ncu save what it has
                    terminated = True
                time.sleep(0.1)
            break
        except KeyboardInterrupt:
            if interrupted:  # a second Ctrl-C: stop waiting, leave ncu to finish alone
                break
            interrupted, interrupted_at = True, time.monotonic()
            if per_rank:  # the ranks are in their own session: the terminal did not signal them
                _stop(process, per_rank, signal.SIGINT)
                forwarded = True
    watch.poll(final=True)
    return NcuRun(
        returncode=process.returncode if process.returncode is not None else 130,
        seconds=time.monotonic() - start,
        log=watch.merged(),
        log_path=log_path,
        report_path=Path(f"{report_stem}{REPORT_SUFFIX}"),
        interrupted=interrupted,
        stalled=stalled,
        logs={rank: f.log for rank, f in watch.followers.items()},
    )


COUNTERS_FIX = (
    "run as root, or let every user profile: add `options nvidia "
    "NVreg_RestrictProfilingToAdminUsers=0` to a file in /etc/modprobe.d/ and reload the "
    "nvidia module or reboot (NVIDIA's page 'ERR_NVGPUCTRPERM: Permission issue with "
    "Performance Counters', developer.nvidia.com/ERR_NVGPUCTRPERM)"
)


def _kept(run: NcuRun) -> str:
    report = run.report
    if report is None:
        return f"ncu wrote no report; its log is {run.log_path}"
    count = len(run.log.kernels)
    kernels = f"the {count} kernel{'s' if count != 1 else ''} it had profiled"
    note = f", marked partial by {cut_short_path(report).name} beside it" if run.interrupted else ""
    return f"ncu kept {kernels} in {report}{note}"


def check_run(run: NcuRun) -> Path:
    """The report of a good run; otherwise the one-line error that says what happened."""
    if run.interrupted:
        reason = f"cut short: {run.stalled or 'interrupted (Ctrl-C)'}"
        if run.report is not None:
            write_cut_short_note(run.report, reason)
        raise ProfileInterrupted("stalled" if run.stalled else "interrupted", fix=_kept(run))
    if run.log.counters_not_permitted:
        raise CountersNotPermittedError(
            "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM)", fix=COUNTERS_FIX
        )
    if run.log.app_exit_code is not None:
        raise ProfiledCommandFailed(
            f"the profiled command exited with code {run.log.app_exit_code}",
            exit_code=run.log.app_exit_code % 256 or 1,
            fix=_kept(run),
        )
    if run.returncode != 0:
        first = run.log.errors[0] if run.log.errors else f"see {run.log_path}"
        raise RooftuiError(f"ncu failed (exit code {run.returncode}): {first}")
    report = run.report
    if run.log.no_kernels or report is None:
        raise RooftuiError(
            "ncu profiled no kernel",
            fix="with --profile-from-start off the program must call cudaProfilerStart() "
            "(torch.cuda.profiler.start()); check the --nvtx-include and --kernel-name filters",
        )
    return report


def readable_report(report: Path, ncu: str, echo: TextIO | None = STDERR) -> Path:
    """``report`` where the ncu-report package can read it; otherwise its raw CSV
    (base units), exported beside it by the ncu that wrote it."""
    if importlib.util.find_spec("ncu_report") is not None:
        return report
    name = report.name[: -len(REPORT_SUFFIX)] if report.name.endswith(REPORT_SUFFIX) else report.name
    csv = report.with_name(name + RAW_CSV_SUFFIX)
    with open(csv, "w", encoding="utf-8") as handle:
        done = subprocess.run(
            [ncu, "--import", str(report), "--csv", "--page", "raw", "--print-units", "base"],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    if done.returncode != 0 or csv.stat().st_size == 0:
        reason = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[0]
        raise RooftuiError(f"ncu could not export the report to CSV: {reason}", path=report)
    if echo is not None:
        echo.write(f"rooftui: no ncu-report package here; reading {csv}, exported by ncu\n")
    return csv


@dataclass
class StartedExport:
    """``ncu --import REPORT --csv --page raw`` running in the background, its CSV going to an
    unnamed temporary file, so that several exports, and rooftui's own work, run at once."""

    report: Path
    process: subprocess.Popen
    stdout: IO[bytes]
    stderr: IO[bytes]

    def text(self) -> str:
        """The export, once ncu is done; RooftuiError naming the report if it failed."""
        with self.stdout, self.stderr:
            code = self.process.wait()
            self.stdout.seek(0)
            out = self.stdout.read().decode("utf-8", errors="replace")
            self.stderr.seek(0)
            said = self.stderr.read(4096).decode("utf-8", errors="replace")
        if code != 0 or not out.strip():
            reason = (said.strip().splitlines() or [f"exit code {code}"])[0]
            raise RooftuiError(f"ncu could not export the report to CSV: {reason}", path=self.report)
        return out


def start_export(ncu: str, report: Path, kernel_base: str = "demangled") -> StartedExport:
    """Start exporting ``report``'s raw page as ncu's CSV, base units, kernels named by
    ``kernel_base`` (demangled, function or mangled: ncu's --print-kernel-base)."""
    argv = [ncu, "--import", str(report), "--csv", "--page", "raw", "--print-units", "base"]
    stdout, stderr = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    try:
        process = subprocess.Popen([*argv, "--print-kernel-base", kernel_base], stdout=stdout, stderr=stderr)
    except OSError:
        stdout.close()
        stderr.close()
        raise
    return StartedExport(report, process, stdout, stderr)


def exports_at_once(ncu: str, wanted: list[tuple[Path, str]]) -> list[str]:
    """The raw-page CSV of each (report, kernel base) in ``wanted``, ncu exporting them all at
    once; every export is waited for before the first failure is raised."""
    started = [start_export(ncu, report, kernel_base) for report, kernel_base in wanted]
    texts, failed = [], []
    for export in started:
        try:
            texts.append(export.text())
        except RooftuiError as err:
            failed.append(err)
    if failed:
        raise failed[0]
    return texts


def export_raw(ncu: str, report: Path, kernel_base: str = "demangled") -> str:
    """``report``'s raw page as ncu's CSV (``start_export``), once ncu is done."""
    return start_export(ncu, report, kernel_base).text()
