"""The clocks the GPU reports, read (never set) through NVML or nvidia-smi.

The clock each kernel really ran at is measured inside the kernel
(``clock_stamp.cuh``); these readings are the driver's view, recorded beside.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from typing import Any


def read_reported_clocks(index: int, pci_bus_id: str | None = None) -> dict[str, Any]:
    """Current SM and memory clocks (Hz) as the driver reports them, or {} if nothing can read them.

    ``pci_bus_id`` names the device unambiguously (CUDA and NVML may number GPUs
    differently); ``index`` is the fallback.
    """
    try:
        import pynvml
    except ImportError:
        return _nvidia_smi(pci_bus_id or str(index))
    try:
        pynvml.nvmlInit()
        try:
            if pci_bus_id:
                handle = pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id)
            else:
                handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            sm = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
            mem = pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM)
            sm_max = pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM)
            mem_max = pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM)
        finally:
            pynvml.nvmlShutdown()
    except pynvml.NVMLError:
        return _nvidia_smi(pci_bus_id or str(index))
    return {
        "source": "nvml",
        "time": time.time(),
        "sm_hz": sm * 1e6,
        "memory_hz": mem * 1e6,
        "sm_max_hz": sm_max * 1e6,
        "memory_max_hz": mem_max * 1e6,
    }


def _nvidia_smi(gpu_id: str) -> dict[str, Any]:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return {}
    query = "clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem"
    try:
        out = subprocess.run(
            [exe, f"--id={gpu_id}", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
        sm, mem, sm_max, mem_max = (float(x) * 1e6 for x in out.strip().split(","))
    except (subprocess.SubprocessError, ValueError, OSError):
        return {}
    return {
        "source": "nvidia-smi",
        "time": time.time(),
        "sm_hz": sm,
        "memory_hz": mem,
        "sm_max_hz": sm_max,
        "memory_max_hz": mem_max,
    }
