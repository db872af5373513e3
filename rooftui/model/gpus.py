"""GPU names and architecture spellings -> compute capability ("H100" and "sm_90" -> "9.0")."""

from __future__ import annotations

import re

from rooftui.errors import RooftuiError

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
