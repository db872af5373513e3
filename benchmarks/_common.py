"""What the benchmarks that time fresh rooftui processes share."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def process_env(scratch: Path, **extra: str) -> dict[str, str]:
    """The environment of a timed process: this checkout's rooftui, a report cache and
    compiled bytecode in ``scratch`` (never the user's), as an installed rooftui would
    have (PYTHONDONTWRITEBYTECODE would make every start compile rooftui anew)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(scratch / "cache"),
               PYTHONPYCACHEPREFIX=str(scratch / "pycache"), NO_COLOR="1", **extra)
    return env


def timed(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall time of ``command`` in a fresh process, and its stdout; exits if it fails."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:5])}... failed:\n{done.stderr}")
    return took, done.stdout


def spread(values: list[float], unit: str = "s", digits: int = 2) -> str:
    """``low-high unit`` over the rounds, or one value when they agree to ``digits``."""
    low, high = min(values), max(values)
    if round(high - low, digits) == 0:
        return f"{low:.{digits}f} {unit}"
    return f"{low:.{digits}f}-{high:.{digits}f} {unit}"
