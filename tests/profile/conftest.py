"""Fake ``ncu`` and ``nvidia-smi`` executables, and the real CLI run in a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KNOWN_ANSWER_REPORT = REPO / "sample_data" / "known_answer" / "known_answer.ncu-rep"

# Every fake ncu starts by recording its arguments and finding where rooftui asked
# it to write its log (--log-file) and report (-o), as the real one does.
FAKE_NCU_PROLOGUE = """#!/bin/sh
printf '%s\\n' "$@" > "$(dirname "$0")/argv.txt"
log=/dev/stdout; out=rooftui
prev=""
for a in "$@"; do
  case "$prev" in --log-file) log=$a ;; -o) out=$a ;; esac
  prev=$a
done
"""


@pytest.fixture
def fake_bin(tmp_path: Path) -> Path:
    """A folder for fake executables, first on PATH in ``run_rooftui``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


@pytest.fixture
def fake_ncu(fake_bin: Path) -> Callable[[str], Path]:
    """``fake_ncu(body)``: an executable ``ncu`` running FAKE_NCU_PROLOGUE, then ``body``."""

    def make(body: str) -> Path:
        path = fake_bin / "ncu"
        path.write_text(FAKE_NCU_PROLOGUE + body)
        path.chmod(0o755)
        return path

    return make


@pytest.fixture
def fake_nvidia_smi(fake_bin: Path) -> Callable[[str], Path]:
    """``fake_nvidia_smi(lines)``: an ``nvidia-smi`` that prints ``lines`` for any query."""

    def make(lines: str) -> Path:
        path = fake_bin / "nvidia-smi"
        path.write_text(f"#!/bin/sh\ncat <<'EOF'\n{lines}\nEOF\n")
        path.chmod(0o755)
        return path

    return make


def rooftui_env(fake_bin: Path, **extra: str) -> dict[str, str]:
    """An environment whose PATH has only the fakes and the basic tools (no real ncu)."""
    env = {k: v for k, v in os.environ.items() if k not in ("ROOFTUI_NCU", "PYTHONPATH")}
    env["PATH"] = f"{fake_bin}:/usr/bin:/bin"
    env["PYTHONPATH"] = str(REPO)
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "200"
    env.update(extra)
    return env


def run_rooftui(args: list[str], cwd: Path, env: dict[str, str]):
    """``rooftui ARGS`` in this process, in ``cwd``, with exactly the environment ``env``."""
    from tests.conftest import run_cli

    return run_cli(*args, cwd=cwd, env=env, replace_env=True)


def as_from_a_terminal() -> None:
    """In the child before it starts: Ctrl-C (SIGINT) does what it does in a terminal, even
    where pytest was started with SIGINT ignored (a shell's background job without job
    control), which the child would inherit: rooftui would then never see the Ctrl-C
    these tests send, nor ncu, and they would wait for the timeouts instead."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_rooftui_process(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 60):
    """``rooftui ARGS`` in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "rooftui", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=as_from_a_terminal,
    )
