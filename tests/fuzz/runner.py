"""Run fuzz cases and say what went wrong: in-process (CI) or through the real CLI (long runs).

Checked for every case: the exit code is 0 or 2 (1 means the last-resort handler: a bug);
no traceback; an error is exactly one line; no control character reaches stdout (table
outputs) or stderr raw; every input is unchanged afterwards; no file is left behind
(temporary copies, partial outputs). The subprocess runner also bounds time and
reports each run's peak memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.generators import Case

# Small enough that a bomb of BOMB_BYTES hits it; large enough for every real sample.
FUZZ_INPUT_LIMIT = 2 << 20
_RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@dataclass
class Outcome:
    case: Case
    returncode: int
    stdout: str
    stderr: str
    seconds: float = 0.0
    peak_rss_bytes: int = 0
    problems: list[str] = field(default_factory=list)


_PRESENT: dict[Path, set[str]] = {}  # what each case's folder held before its files were written


def write_case(case: Case, folder: Path) -> tuple[list[str], dict[Path, str]]:
    """Write the case's files into ``folder``; its argv and the inputs' hashes."""
    (folder / "out").mkdir(parents=True, exist_ok=True)
    (folder / "tmp").mkdir(exist_ok=True)
    hashes = {}
    for name, data in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)  # "run.ncu.log/keep": a folder where a file goes
        path.write_bytes(data)
        hashes[path] = hashlib.sha256(data).hexdigest()
    if case.setup is not None:  # links, a damaged cache: part of the case, not left behind
        case.setup(folder)
    _PRESENT[folder] = {p.name for p in folder.iterdir()}  # a test's own FIFOs and folders
    return [a.replace("{dir}", str(folder)) for a in case.argv], hashes


def _case_env(case: Case, folder: Path) -> dict[str, str]:
    return {name: value.replace("{dir}", str(folder)) for name, value in case.env.items()}


def run_in_process(case: Case, folder: Path) -> Outcome:
    """``rooftui.cli.main`` in this process, stdout/stderr captured (what CI runs)."""
    from rooftui.cli import main

    # The report cache goes into the case's folder: fuzz cases never fill the user's.
    argv, hashes = write_case(case, folder)
    out, err = io.StringIO(), io.StringIO()
    saved_env = dict(os.environ)
    saved_tempdir = tempfile.tempdir
    os.environ.update(
        {
            "ROOFTUI_MAX_INPUT_BYTES": str(FUZZ_INPUT_LIMIT),
            "NO_COLOR": "1",
            "COLUMNS": "100",
            "XDG_CACHE_HOME": str(folder / "cache"),
            **_case_env(case, folder),
        }
    )
    tempfile.tempdir = str(folder / "tmp")
    # main() turns SIGTERM into an exception: keep this process's own handling.
    saved_signals = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGHUP)}
    code = 0
    started = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(argv)
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        tempfile.tempdir = saved_tempdir
        for number, handler in saved_signals.items():
            signal.signal(number, handler)
    outcome = Outcome(case, code, out.getvalue(), err.getvalue(), time.perf_counter() - started)
    check(outcome, folder, hashes)
    return outcome


def run_subprocess(case: Case, folder: Path, timeout_s: float = 120.0) -> Outcome:
    """The real ``python -m rooftui`` in a child process, with its peak memory."""
    argv, hashes = write_case(case, folder)
    env = {
        **os.environ,
        "ROOFTUI_MAX_INPUT_BYTES": str(FUZZ_INPUT_LIMIT),
        "NO_COLOR": "1",
        "COLUMNS": "100",
        "TMPDIR": str(folder / "tmp"),
        "XDG_CACHE_HOME": str(folder / "cache"),
        **_case_env(case, folder),
    }
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    # The peak RSS of a child forked from this (large) process would start at this
    # process's own; GNU time forks it from a small process and reports it alone.
    rss_file = folder / "peak_rss_kb.txt"
    timer_cmd = ["/usr/bin/time", "-f", "%M", "-o", str(rss_file)] if Path("/usr/bin/time").exists() else []
    started = time.perf_counter()
    child = subprocess.Popen(
        [*timer_cmd, sys.executable, "-m", "rooftui", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=folder,
        start_new_session=True,
    )
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream) -> None:
        chunks[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=(n, s)) for n, s in (("out", child.stdout), ("err", child.stderr))
    ]
    for reader in readers:
        reader.start()
    timer = threading.Timer(timeout_s, os.killpg, (child.pid, signal.SIGKILL))  # the whole group
    timer.start()
    _, status, usage = os.wait4(child.pid, 0)
    timer.cancel()
    child.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    outcome = Outcome(
        case,
        child.returncode,
        chunks.get("out", b"").decode("utf-8", errors="replace"),
        chunks.get("err", b"").decode("utf-8", errors="replace"),
        time.perf_counter() - started,
        _peak_rss(rss_file, usage),
    )
    if child.returncode == -9:
        outcome.problems.append(f"hang: killed after {timeout_s:.0f} s")
    check(outcome, folder, hashes)
    return outcome


def _peak_rss(rss_file: Path, usage) -> int:
    try:
        return int(rss_file.read_text().split()[-1]) * 1024
    except (OSError, ValueError, IndexError):  # no GNU time: an upper bound (see above)
        return usage.ru_maxrss * (1024 if sys.platform != "darwin" else 1)
    finally:
        rss_file.unlink(missing_ok=True)


def check(outcome: Outcome, folder: Path, hashes: dict[Path, str]) -> None:
    problems = outcome.problems
    code, stdout, stderr = outcome.returncode, outcome.stdout, outcome.stderr
    if code not in (0, 2):
        problems.append(f"exit code {code}" + (" (last-resort handler: a bug)" if code == 1 else ""))
    if "Traceback" in stderr:
        problems.append("traceback")
    if outcome.case.must_fail and code == 0:
        problems.append("silent damage: damage rooftui can detect loaded without an error")
    if outcome.case.must_succeed and code != 0:
        problems.append("wrong refusal: an input with nothing wrong was refused")
    if outcome.case.check_stdout is not None and code == 0:
        wrong = outcome.case.check_stdout(stdout)
        if wrong:
            problems.append(wrong)
    lines = [line for line in stderr.splitlines() if line.strip()]
    if code == 2 and len(lines) != 1:
        problems.append(f"error on {len(lines)} lines")
    if _RAW_CONTROL.search(stderr):
        problems.append("raw control character on stderr")
    if not outcome.case.exact_stdout and _RAW_CONTROL.search(stdout):
        problems.append("raw control character on stdout")
    for path, digest in hashes.items():
        if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            problems.append(f"input changed: {path.name}")
    left = [p.name for p in (folder / "tmp").iterdir()]
    left += [p.name for p in folder.iterdir() if p.name.startswith(".rooftui-")]
    outputs = list((folder / "out").iterdir())
    left += [p.name for p in outputs if p.name.startswith(".rooftui-")]
    cache = folder / "cache"
    if cache.exists():  # a cache entry half written
        left += [p.name for p in cache.rglob(".writing-*")]
    if code != 0 and any(not p.name.startswith(".rooftui-") for p in outputs):
        problems.append("partial output after an error")
    # the user's folder: nothing new beside the inputs (a report, a wrapper, a .started mark)
    inputs = {path.relative_to(folder).parts[0] for path in hashes} | _PRESENT.pop(folder, set())
    left += [
        p.name
        for p in folder.iterdir()
        if p.name not in inputs | {"out", "tmp", "cache"} and not p.name.startswith(".rooftui-")
    ]
    if left:
        problems.append(f"files left behind: {', '.join(sorted(left))[:80]}")


def peak_rss_of_this_process() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
