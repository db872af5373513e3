"""One GPU, driven through NVIDIA's cuda-python (``cuda.core``).

The only module of ``rooftui.measure`` that touches CUDA. It opens a device,
compiles the kernels in ``rooftui/measure/cuda/`` with NVRTC (cached per device and
source hash), allocates, launches, times with CUDA events and copies results
back. Works with cuda.core's ``experimental`` namespace (0.1 to 0.x) and the
top-level one (1.x).
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.resources
import os
import re
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rooftui.errors import GpuUnavailableError

# The CUDA C++ sources ship inside the package (a wheel too) and are read as resources.
KERNELS = importlib.resources.files("rooftui.measure") / "cuda"
INSTALL_HINT = "install the GPU extra: pip install 'rooftui[gpu]'"
NEEDS_GPU = "run it on a machine with an NVIDIA GPU and its driver (check CUDA_VISIBLE_DEVICES)"


def _import_core() -> Any:
    try:
        import cuda.core as core

        if hasattr(core, "Program"):
            return core
        from cuda.core import experimental

        return experimental
    except ImportError as err:
        raise GpuUnavailableError(
            f"measuring needs NVIDIA's cuda-python (cuda.core), which is not installed ({err.name})",
            fix=INSTALL_HINT,
        ) from err


def _driver() -> Any:
    try:
        from cuda.bindings import driver
    except ImportError:  # cuda-python before 12.6 named it cuda.cuda
        from cuda import cuda as driver  # type: ignore[no-redef]
    return driver


def _check(result: tuple, what: str, fix: str | None = None) -> tuple:
    """Raise GpuUnavailableError unless a driver call returned CUDA_SUCCESS."""
    driver = _driver()
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        label = name.decode() if isinstance(name, bytes) else str(err)
        raise GpuUnavailableError(f"{what} failed: {label}", fix=fix)
    return result[1:]


def visible_gpus() -> int:
    """How many NVIDIA GPUs the driver shows this process, asked of libcuda itself (ctypes),
    so that a machine without a GPU hears so whether or not cuda-python is installed."""
    library = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        libcuda = ctypes.CDLL(library)
    except OSError:
        raise GpuUnavailableError(
            f"no NVIDIA GPU found (no NVIDIA driver: {library} cannot be loaded)", fix=NEEDS_GPU
        ) from None
    status = libcuda.cuInit(0)
    if status != 0:  # CUDA_ERROR_NO_DEVICE (100) when CUDA_VISIBLE_DEVICES hides every GPU
        raise GpuUnavailableError(f"no NVIDIA GPU found (cuInit returned CUDA error {status})", fix=NEEDS_GPU)
    count = ctypes.c_int(0)
    if libcuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        raise GpuUnavailableError("no NVIDIA GPU found", fix=NEEDS_GPU)
    return count.value


def device_count() -> int:
    """How many CUDA devices this process sees; GpuUnavailableError if none or no driver."""
    visible_gpus()
    _import_core()
    try:
        driver = _driver()
        _check(driver.cuInit(0), "cuInit", NEEDS_GPU)
        (count,) = _check(driver.cuDeviceGetCount(), "cuDeviceGetCount", NEEDS_GPU)
    except (OSError, RuntimeError) as err:  # libcuda.so missing or unloadable
        raise GpuUnavailableError(f"no NVIDIA driver: {err}", fix=NEEDS_GPU) from err
    if count == 0:
        raise GpuUnavailableError("no CUDA device found", fix=NEEDS_GPU)
    return int(count)


def _pci_bus_id(index: int) -> str | None:
    driver = _driver()
    try:
        err, bus_id = driver.cuDeviceGetPCIBusId(32, index)
    except TypeError:  # bindings that want a CUdevice, not an int
        err, bus_id = driver.cuDeviceGetPCIBusId(32, driver.CUdevice(index))
    if err != driver.CUresult.CUDA_SUCCESS:
        return None
    text = bus_id.decode() if isinstance(bus_id, bytes) else str(bus_id)
    return text.split("\x00")[0].strip() or None


def _total_memory(index: int) -> int | None:
    driver = _driver()
    try:
        err, size = driver.cuDeviceTotalMem(index)
    except TypeError:  # bindings that want a CUdevice, not an int
        err, size = driver.cuDeviceTotalMem(driver.CUdevice(index))
    return int(size) if err == driver.CUresult.CUDA_SUCCESS else None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rooftui" / "kernels"


@dataclass
class DeviceInfo:
    index: int
    name: str
    cc: str  # "9.0"
    arch: int  # 90
    sm_count: int
    l2_bytes: int
    max_threads_per_sm: int
    max_shared_per_sm: int
    hostname: str
    pci_bus_id: str | None
    total_memory: int | None


class Gpu:
    """An opened device with one stream; everything it launches runs in order on it."""

    def __init__(self, index: int):
        count = device_count()
        self.core = _import_core()
        if not 0 <= index < count:
            raise GpuUnavailableError(f"no CUDA device {index}: this machine has {count}")
        self.device = self.core.Device(index)
        self.device.set_current()
        self.stream = self.device.create_stream()
        props = self.device.properties
        major, minor = self.device.compute_capability
        self.info = DeviceInfo(
            index=index,
            name=self.device.name,
            cc=f"{major}.{minor}",
            arch=major * 10 + minor,
            sm_count=props.multiprocessor_count,
            l2_bytes=props.l2_cache_size,
            max_threads_per_sm=props.max_threads_per_multiprocessor,
            max_shared_per_sm=props.max_shared_memory_per_multiprocessor,
            hostname=socket.gethostname(),
            pci_bus_id=_pci_bus_id(index),
            total_memory=_total_memory(index),
        )
        self.compile_log: list[str] = []
        self.cubins: dict[str, Path] = {}  # source -> the cubin it was last compiled into

    # ---- compiling ---------------------------------------------------------
    def compile(self, source: str, defines: dict[str, int], arch_suffix: str = "") -> Any:
        """Compile ``rooftui/measure/cuda/<source>`` to a cubin for this device (cached)."""
        arch = f"sm_{self.info.arch}{arch_suffix}"
        text = inline_headers(kernel_text(source))
        options = ["-std=c++17", f"-arch={arch}"] + [f"-D{k}={v}" for k, v in sorted(defines.items())]
        key = hashlib.sha256(
            "\0".join([text, *options, self.info.name, self._versions()]).encode()
        ).hexdigest()[:24]
        path = cache_dir() / f"{Path(source).stem}-{arch}-{key}.cubin"
        self.cubins[source] = path
        if path.exists():
            self.compile_log.append(f"{source} ({arch}): cached {path.name}")
            return self._load_cubin(path.read_bytes())
        # Defines and the shared headers go into the text itself, so the only
        # options NVRTC needs are the standard and the target (any cuda.core).
        full_text = "".join(f"#define {k} {v}\n" for k, v in sorted(defines.items())) + text
        program = self.core.Program(
            full_text, code_type="c++", options=self.core.ProgramOptions(std="c++17", arch=arch)
        )
        module = program.compile("cubin")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(bytes(module.code))
        tmp.replace(path)
        self.compile_log.append(f"{source} ({arch}): compiled with NVRTC into {path.name}")
        return module

    def _versions(self) -> str:
        import cuda.core

        return f"cuda.core {getattr(cuda.core, '__version__', '?')}"

    def _load_cubin(self, data: bytes) -> Any:
        object_code = self.core.ObjectCode
        if hasattr(object_code, "from_cubin"):
            return object_code.from_cubin(data)
        return object_code(data, "cubin")  # cuda.core 0.1

    # ---- memory --------------------------------------------------------------
    def allocate(self, nbytes: int) -> Any:
        return self.device.allocate(nbytes, stream=self.stream)

    def to_host(self, buffer: Any, dtype: Any, count: int) -> np.ndarray:
        """Copy the first ``count`` elements of ``buffer`` back (after the stream is done)."""
        self.stream.sync()
        out = np.empty(count, dtype=dtype)
        _check(
            _driver().cuMemcpyDtoH(out.ctypes.data, int(buffer.handle), out.nbytes),
            "copying results back",
        )
        return out

    def from_host(self, array: np.ndarray) -> Any:
        buffer = self.allocate(max(array.nbytes, 16))
        self.stream.sync()
        _check(
            _driver().cuMemcpyHtoD(int(buffer.handle), array.ctypes.data, array.nbytes),
            "copying inputs to the GPU",
        )
        return buffer

    # ---- launching -------------------------------------------------------------
    def launch(self, kernel: Any, grid: int, block: int, *args: Any) -> None:
        config = self.core.LaunchConfig(grid=grid, block=block)
        try:
            self.core.launch(self.stream, config, kernel, *args)
        except TypeError:  # cuda.core 0.1: launch(kernel, config(stream=...), *args)
            config = self.core.LaunchConfig(grid=grid, block=block, stream=self.stream)
            self.core.launch(kernel, config, *args)

    def timing_event(self) -> Any:
        options_type = self.core.EventOptions
        try:
            options = options_type(timing_enabled=True)
        except TypeError:
            options = options_type(enable_timing=True)
        return self.stream.record(options=options)

    def time_launch(self, kernel: Any, grid: int, block: int, *args: Any) -> float:
        """Seconds one launch took on the GPU, between two CUDA events."""
        start = self.timing_event()
        self.launch(kernel, grid, block, *args)
        end = self.timing_event()
        end.sync()
        return (end - start) / 1e3


def clock_hz(stamps: np.ndarray) -> float:
    """SM clock from the per-block (cycles, nanoseconds) pairs a kernel wrote."""
    cycles = stamps[:, 0].astype(np.float64)
    ns = stamps[:, 1].astype(np.float64)
    ok = ns > 0
    if not ok.any():
        return float("nan")
    return float(np.median(cycles[ok] / ns[ok]) * 1e9)


_LOCAL_INCLUDE = re.compile(r'^#include "([\w.]+\.cuh)"\s*$', re.MULTILINE)


def inline_headers(text: str) -> str:
    """Replace ``#include "x.cuh"`` lines by the headers beside the kernels (each once),
    so NVRTC needs no include path and the cache key covers the headers too."""
    seen: set[str] = set()

    def expand(match: re.Match) -> str:
        name = match.group(1)
        if name in seen:
            return ""
        seen.add(name)
        return _LOCAL_INCLUDE.sub(expand, kernel_text(name).replace("#pragma once", ""))

    return _LOCAL_INCLUDE.sub(expand, text)


def kernel_text(name: str) -> str:
    """The source of one measure kernel or header, e.g. ``fma_cuda_cores.cu``."""
    return (KERNELS / name).read_text(encoding="utf-8")


def check_kernels(names: list[str]) -> None:
    """Raise unless every kernel source (and each header it includes) is installed:
    a broken install says so before any GPU work starts."""
    missing = []
    for name in names:
        try:
            inline_headers(kernel_text(name))
        except FileNotFoundError as err:
            missing.append(Path(err.filename or name).name)
    if missing:
        raise GpuUnavailableError(
            f"the measure kernels are missing from this installation ({', '.join(sorted(missing))} "
            f"not in {KERNELS})",
            fix="reinstall rooftui (pip install --force-reinstall rooftui)",
        )
