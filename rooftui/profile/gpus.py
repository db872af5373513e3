"""Which compute capability to collect for: from ``--arch``, ``--gpu`` or the local GPU."""

from __future__ import annotations

import re
import shutil
import subprocess

from rooftui.errors import GpuUnavailableError, RooftuiError
from rooftui.model.gpus import compute_capability_of_arch, compute_capability_of_gpu
from rooftui.model.metrics import Architecture, architecture_for


def local_compute_capability() -> str:
    """The compute capability of this machine's GPUs, read with nvidia-smi."""
    nvidia_smi = shutil.which("nvidia-smi")
    fix = "pass --arch (e.g. --arch sm_90) or --gpu (e.g. --gpu H100)"
    if nvidia_smi is None:
        raise GpuUnavailableError("no GPU found (nvidia-smi is not on PATH)", fix=fix)
    try:
        done = subprocess.run(
            [nvidia_smi, "--query-gpu=name,compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise GpuUnavailableError(f"nvidia-smi failed: {err}", fix=fix) from err
    if done.returncode != 0:
        # Drivers older than R510 lack the compute_cap field: go by the names.
        done = subprocess.run(
            [nvidia_smi, "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    if done.returncode != 0:
        reason = (done.stderr or done.stdout).strip().splitlines()
        raise GpuUnavailableError(
            f"nvidia-smi failed: {reason[0] if reason else f'exit code {done.returncode}'}",
            fix=fix,
        )
    return compute_capability_from_nvidia_smi(done.stdout)


def compute_capability_from_nvidia_smi(output: str) -> str:
    """The one compute capability in nvidia-smi's ``name[, compute_cap]`` lines."""
    fix = "pass --arch (e.g. --arch sm_90) or --gpu (e.g. --gpu H100)"
    found: dict[str, str] = {}
    for line in output.strip().splitlines():
        name, _, cc = (part.strip() for part in line.rpartition(","))
        if not re.fullmatch(r"\d+\.\d", cc):
            name, cc = line.strip(), compute_capability_of_gpu(line)
        found.setdefault(cc, name)
    if not found:
        raise GpuUnavailableError("nvidia-smi lists no GPU", fix=fix)
    if len(found) > 1:
        listed = "; ".join(f"{name} ({cc})" for cc, name in found.items())
        raise GpuUnavailableError(f"GPUs of different architectures here: {listed}", fix=fix)
    return next(iter(found))


def resolve_architecture(arch: str | None, gpu: str | None) -> tuple[str, Architecture]:
    """The compute capability and rooftui architecture chosen by ``--arch``/``--gpu``, or local."""
    if arch is not None and gpu is not None:
        raise RooftuiError("--arch and --gpu both given", fix="pass only one of them")
    if arch is not None:
        cc = compute_capability_of_arch(arch)
    elif gpu is not None:
        cc = compute_capability_of_gpu(gpu)
    else:
        cc = local_compute_capability()
    return cc, architecture_for(cc)


def is_known_compute_capability(cc: str, architecture: Architecture) -> bool:
    """False when ``architecture_for`` fell back to the nearest older architecture."""
    return cc in architecture.cc
