"""What the benchmarks that time fresh rooftui processes share."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def process_env(scratch: Path, **extra: str) -> dict[str, str]:
    """The environment of a timed process: this checkout's rooftui, a report cache and
    compiled bytecode in ``scratch`` (never the user's), as an installed rooftui would
    have (PYTHONDONTWRITEBYTECODE would make every start compile rooftui anew)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    env.update(
        PYTHONPATH=path,
        XDG_CACHE_HOME=str(scratch / "cache"),
        PYTHONPYCACHEPREFIX=str(scratch / "pycache"),
        NO_COLOR="1",
        **extra,
    )
    return env


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall time of ``command`` in a fresh process, and its stdout; exits if it fails."""
    took, _, stdout = timed_cpu(command, env)
    return took, stdout


def timed_cpu(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall time and CPU time (user + system, of the process and every descendant it
    waited for) of ``command`` in a fresh process, and its stdout; exits if it fails.
    On a busy machine the CPU time moves far less than the wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:5])}... failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, done.stdout


def spread(values: list[float], unit: str = "s", digits: int = 2) -> str:
    """``low-high unit`` over the rounds, or one value when they agree to ``digits``."""
    low, high = min(values), max(values)
    if round(high - low, digits) == 0:
        return f"{low:.{digits}f} {unit}"
    return f"{low:.{digits}f}-{high:.{digits}f} {unit}"


def tree_memory(command: list[str], env: dict[str, str], every_s: float = 0.01) -> tuple[int, int]:
    """Peak memory of ``command``'s whole process tree (it and every descendant, summed
    at each sample, every ``every_s``): (PSS, RSS) in bytes; exits if it fails.

    PSS splits a page shared by N processes N ways (the reader's forked children share
    ncu_report's setup with their parent), so its sum is the memory the tree takes;
    the RSS sum counts a shared page once per process, an upper bound. Sampling can
    miss a peak shorter than ``every_s``; time commands separately, not with this.
    """
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    peak_pss = peak_rss = 0
    while process.poll() is None:
        pss = rss = 0
        for pid in _tree(process.pid):
            pss_kb, rss_kb = _rollup(pid)
            pss += pss_kb * 1024
            rss += rss_kb * 1024
        peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
        time.sleep(every_s)
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command[:5])}... failed:\n{stderr}")
    return peak_pss, peak_rss


def _tree(root: int) -> list[int]:
    """``root`` and its descendants, from each process's parent in /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _rollup(pid: int) -> tuple[int, int]:
    """(Pss, Rss) of one process in kB; zeros once it has ended."""
    pss = rss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1])
                elif line.startswith(b"Rss:"):
                    rss = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return pss, rss
