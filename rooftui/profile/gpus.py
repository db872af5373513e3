"""Which compute capability to collect for: from ``--arch``, ``--gpu`` or the local GPU."""

from __future__ import annotations

import re
import shutil
import subprocess

from rooftui.errors import GpuUnavailableError, RooftuiError
from rooftui.model.metrics import Architecture, architecture_for

# Marketing names -> compute capability, from NVIDIA's "CUDA GPUs - Compute
# Capability" table. Each key is matched as whole words inside the name that
# nvidia-smi prints ("NVIDIA H100 80GB HBM3"); the longest matching key wins, so
# "RTX 6000 Ada" beats "RTX 6000" and "GH200" beats "H200".
GPU_COMPUTE_CAPABILITY: dict[str, str] = {
    "V100": "7.0",
    "Titan V": "7.0",
    "Quadro GV100": "7.0",
    "T4": "7.5",
    "RTX 2080": "7.5",
    "RTX 2080 Ti": "7.5",
    "Titan RTX": "7.5",
    "Quadro RTX 6000": "7.5",
    "Quadro RTX 8000": "7.5",
    "A100": "8.0",
    "A800": "8.0",
    "A30": "8.0",
    "A10": "8.6",
    "A10G": "8.6",
    "A40": "8.6",
    "A16": "8.6",
    "RTX A4000": "8.6",
    "RTX A5000": "8.6",
    "RTX A6000": "8.6",
    "RTX 3080": "8.6",
    "RTX 3090": "8.6",
    "L4": "8.9",
    "L20": "8.9",
    "L40": "8.9",
    "L40S": "8.9",
    "RTX 4080": "8.9",
    "RTX 4090": "8.9",
    "RTX 6000 Ada": "8.9",
    "H100": "9.0",
    "H800": "9.0",
    "H20": "9.0",
    "H200": "9.0",
    "GH200": "9.0",
    "B100": "10.0",
    "B200": "10.0",
    "GB200": "10.0",
    "B300": "10.3",
    "GB300": "10.3",
    "RTX 5080": "12.0",
    "RTX 5090": "12.0",
    "RTX PRO 6000 Blackwell": "12.0",
}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def compute_capability_of_gpu(name: str) -> str:
    """The compute capability of a GPU called ``name`` ("H100", "NVIDIA A100-SXM4-80GB")."""
    words = _words(name)
    best: tuple[int, str] | None = None
    for known, cc in GPU_COMPUTE_CAPABILITY.items():
        key = _words(known)
        found = any(words[i : i + len(key)] == key for i in range(len(words) - len(key) + 1))
        if found and (best is None or len(key) > best[0]):
            best = (len(key), cc)
    if best is None:  # written without spaces, "rtx4090": the longest key inside it
        joined = "".join(words)
        inside = [k for k in GPU_COMPUTE_CAPABILITY if "".join(_words(k)) in joined]
        if inside:
            longest = max(inside, key=lambda k: len("".join(_words(k))))
            best = (0, GPU_COMPUTE_CAPABILITY[longest])
    if best is None:
        known = ", ".join(sorted(GPU_COMPUTE_CAPABILITY, key=str.lower))
        raise RooftuiError(
            f"unknown GPU name {name!r}",
            fix=f"pass --arch sm_XY instead; known names: {known}",
        )
    return best[1]


def compute_capability_of_arch(arch: str) -> str:
    """``sm_90``, ``sm_90a``, ``sm_100``, ``90`` or ``9.0`` -> ``"9.0"``."""
    text = arch.strip().lower()
    dotted = re.fullmatch(r"(\d+)\.(\d)", text)
    if dotted:
        return f"{int(dotted.group(1))}.{dotted.group(2)}"
    digits = re.fullmatch(r"(?:sm_?|compute_)?(\d{2,3})[af]?", text)
    if digits is None:
        raise RooftuiError(
            f"cannot read the architecture {arch!r}",
            fix="write it like ncu and nvcc do: sm_70, sm_80, sm_86, sm_89, sm_90, sm_100",
        )
    number = digits.group(1)
    return f"{int(number[:-1])}.{number[-1]}"


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
