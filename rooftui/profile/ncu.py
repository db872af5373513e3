"""Finding ncu, naming the report, and the ncu command line rooftui runs."""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rooftui.errors import GpuUnavailableError, RooftuiError

# Where ncu lives when it is not on PATH: the CUDA toolkit's link, then the
# standalone Nsight Compute installs (newest version first).
USUAL_NCU_PLACES = ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu")
REPORT_SUFFIX = ".ncu-rep"
LOG_SUFFIX = ".ncu.log"
RAW_CSV_SUFFIX = ".raw.csv"  # ncu's raw page, base units, when ncu-report is not installed


def _version_key(path: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path))


def find_ncu(explicit: str | None = None) -> str:
    """The ncu to run: ``explicit`` (``--ncu`` or ``$ROOFTUI_NCU``), PATH, or a usual place."""
    if explicit:
        found = shutil.which(explicit) if os.sep not in explicit else explicit
        if found and os.path.isfile(found) and os.access(found, os.X_OK):
            return found
        raise GpuUnavailableError(
            f"ncu not found at {explicit!r} (from --ncu or $ROOFTUI_NCU)",
            fix="give the path of Nsight Compute's ncu executable",
        )
    on_path = shutil.which("ncu")
    if on_path:
        return on_path
    for pattern in USUAL_NCU_PLACES:
        for candidate in sorted(glob.glob(pattern), key=_version_key, reverse=True):
            if os.access(candidate, os.X_OK):
                return candidate
    raise GpuUnavailableError(
        "ncu (Nsight Compute) not found on PATH",
        fix="it is usually /usr/local/cuda/bin/ncu or /opt/nvidia/nsight-compute/<version>/ncu;"
        " put it on PATH, or pick it with --ncu PATH or $ROOFTUI_NCU",
    )


@dataclass(frozen=True)
class NcuOptions:
    """What ncu collects and which launches it profiles."""

    metrics: tuple[str, ...]
    profile_from_start: bool = True
    nvtx_include: tuple[str, ...] = ()
    kernel_name: str | None = None
    launch_skip: int | None = None
    launch_count: int | None = None
    kernel_id: str | None = None  # ncu's --kernel-id (signature-deduplicated profiles)
    sections: tuple[str, ...] = ()
    section_folder: str | None = None  # ncu's --section-folder: where ``sections`` are found


def ncu_arguments(options: NcuOptions) -> list[str]:
    """ncu's options for ``options``; never touches clocks (``--clock-control none``)."""
    args = [
        "--metrics",
        ",".join(options.metrics),
        "--nvtx",
        "--clock-control",
        "none",
        "--target-processes",
        "all",
    ]
    if not options.profile_from_start:
        args += ["--profile-from-start", "off"]
    for pattern in options.nvtx_include:
        args += ["--nvtx-include", pattern]
    if options.kernel_name is not None:
        args += ["--kernel-name", options.kernel_name]
    if options.launch_skip is not None:
        args += ["--launch-skip", str(options.launch_skip)]
    if options.launch_count is not None:
        args += ["--launch-count", str(options.launch_count)]
    if options.kernel_id is not None:
        args += ["--kernel-id", options.kernel_id]
    if options.section_folder is not None:
        args += ["--section-folder", options.section_folder]
    for section in options.sections:
        args += ["--section", section]
    return args


def ncu_argv(
    ncu: str, options: NcuOptions, report_stem: Path, command: list[str], force: bool = False
) -> list[str]:
    """The whole argv of a ``rooftui profile`` run: ncu writes ``report_stem``.ncu-rep and
    its own messages to ``report_stem``.ncu.log."""
    argv = [ncu, *ncu_arguments(options)]
    argv += ["--log-file", f"{report_stem}{LOG_SUFFIX}"]
    if force:
        argv.append("-f")
    argv += ["-o", str(report_stem), *command]
    return argv


def ncu_command_line(options: NcuOptions, command: list[str]) -> str:
    """A shell line for running ncu by hand (under srun or mpirun): one report per host
    and process, through ncu's %h and %p placeholders."""
    words = ["ncu", *ncu_arguments(options), "-o", "rooftui.%h.%p", *command]
    return shlex.join(words)


_LAUNCHERS = re.compile(
    r"(python[\d.]*|pypy[\d.]*|env|torchrun|accelerate|deepspeed|mpirun|mpiexec|srun|"
    r"bash|sh|zsh|uv|time|nice|numactl|taskset|exec)"
)


def command_name(command: list[str]) -> str:
    """A short, file-safe name for ``command``: its script, module or program."""
    name = ""
    scripts = [arg for arg in command if arg.endswith((".py", ".sh")) and not arg.startswith("-")]
    if scripts:
        name = Path(scripts[0]).stem
    elif "-m" in command[:-1]:
        name = command[command.index("-m") + 1]
    else:
        for arg in command:
            base = Path(arg).name
            if arg.startswith("-") or "=" in arg or arg.isdigit() or _LAUNCHERS.fullmatch(base):
                continue
            name = base
            break
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._-") or "rooftui"


def _taken(stem: Path) -> bool:
    return any(Path(f"{stem}{suffix}").exists() for suffix in (REPORT_SUFFIX, LOG_SUFFIX, RAW_CSV_SUFFIX))


def report_stem(output: str | None, command: list[str], force: bool, now: datetime | None = None) -> Path:
    """The report's path without ``.ncu-rep``: ``output``, or ``<command>-<time>`` here.

    An existing report is overwritten only with ``force`` (its ``.ncu.log`` and
    ``.raw.csv`` beside it go with it); a default name never overwrites anything.
    """
    if output is not None:
        if "%" in output:
            raise RooftuiError(
                f"-o {output}: ncu's %-placeholders are for running ncu by hand",
                fix="give rooftui profile a plain file name",
            )
        stem = Path(output[: -len(REPORT_SUFFIX)] if output.endswith(REPORT_SUFFIX) else output)
        report = Path(f"{stem}{REPORT_SUFFIX}")
        if report.exists() and not force:
            raise RooftuiError("report already exists", path=report, fix="pass --force to overwrite it")
        return stem
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = f"{command_name(command)}-{stamp}"
    stem, n = Path(base), 2
    while _taken(stem):
        stem, n = Path(f"{base}-{n}"), n + 1
    return stem
