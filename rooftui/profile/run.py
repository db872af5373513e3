"""Running ncu: echo its messages as they come, then name what went wrong in one line.

ncu writes its own messages (``==PROF==``, ``==ERROR==``) to a log file beside the
report (``--log-file``), so the profiled program keeps its terminal as it is; this
module follows that file, echoes it to stderr and reads the outcome from it.
"""

from __future__ import annotations

import importlib.util
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from rooftui.errors import GpuUnavailableError, RooftuiError
from rooftui.profile.ncu import LOG_SUFFIX, RAW_CSV_SUFFIX, REPORT_SUFFIX

# "- 12: 0%....50%....100% - 8 passes", or "- 12 (13/300): ..." under --launch-count.
_PROFILED = re.compile(
    r'==PROF== Profiling "(?P<name>.*)" - (?P<id>\d+)(?: \(\d+/\d+\))?: .* - (?P<passes>\d+) pass'
)
_REPORT = re.compile(r"==PROF== Report: (?P<path>.+?)\s*$")
_APP_EXIT = re.compile(r"application returned an error code \((?P<code>-?\d+)\)")
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

    def read_line(self, line: str) -> None:
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

    @property
    def report(self) -> Path | None:
        """The report ncu wrote, if any."""
        path = self.log.report or self.report_path
        return path if path.exists() else None


class _LogFollower:
    """Reads the log as ncu appends to it, echoing whole lines."""

    def __init__(self, path: Path, echo: TextIO | None):
        self.path, self.echo = path, echo
        self.offset, self.partial = 0, ""
        self.log = NcuLog()

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
            if self.echo is not None:
                self.echo.write(line + "\n")
                self.echo.flush()


def run_ncu(argv: list[str], report_stem: Path, echo: TextIO | None = sys.stderr) -> NcuRun:
    """Run ``argv`` (from ``ncu_argv``) to its end; Ctrl-C waits for ncu to save what it has."""
    log_path = Path(f"{report_stem}{LOG_SUFFIX}")
    log_path.unlink(missing_ok=True)  # only after the -o/--force checks allowed it
    follower = _LogFollower(log_path, echo)
    start = time.monotonic()
    try:
        process = subprocess.Popen(argv)
    except OSError as err:
        raise GpuUnavailableError(f"could not start ncu: {err}", path=argv[0]) from err
    interrupted = False
    interrupted_at = 0.0
    forwarded = False
    while True:
        try:
            while process.poll() is None:
                follower.poll()
                if interrupted and not forwarded and time.monotonic() - interrupted_at > INTERRUPT_GRACE_S:
                    process.send_signal(signal.SIGINT)
                    forwarded = True
                time.sleep(0.1)
            break
        except KeyboardInterrupt:
            if interrupted:  # a second Ctrl-C: stop waiting, leave ncu to finish alone
                break
            interrupted, interrupted_at = True, time.monotonic()
    follower.poll(final=True)
    return NcuRun(
        returncode=process.returncode if process.returncode is not None else 130,
        seconds=time.monotonic() - start,
        log=follower.log,
        log_path=log_path,
        report_path=Path(f"{report_stem}{REPORT_SUFFIX}"),
        interrupted=interrupted,
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
    return f"ncu kept {kernels} in {report}"


def check_run(run: NcuRun) -> Path:
    """The report of a good run; otherwise the one-line error that says what happened."""
    if run.interrupted:
        raise ProfileInterrupted("interrupted", fix=_kept(run))
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


def readable_report(report: Path, ncu: str, echo: TextIO | None = sys.stderr) -> Path:
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
