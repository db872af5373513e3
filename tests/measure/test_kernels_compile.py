"""The measure kernels compile with the machine's nvcc for every architecture rooftui supports.

Compile only (no GPU needed): the same sources NVRTC builds at run time, with
the same -D defines the Python side passes. Kernels that need a newer
architecture are guarded by ``#if __CUDA_ARCH__ >= ...`` and must still compile
(empty) for the older ones.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from importlib.resources import as_file

import pytest

from rooftui.measure import bandwidth as B
from rooftui.measure import issue_rate as I
from rooftui.measure import kernels as K
from rooftui.measure.gpu import KERNELS

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")

SOURCES = {
    "fma_cuda_cores.cu": K.defines_for(K.compute_kernels()[0]),
    "tensor_mma_sync.cu": K.defines_for(next(k for k in K.compute_kernels() if k.kind == "mma")),
    "tensor_wgmma.cu": K.defines_for(next(k for k in K.compute_kernels() if k.kind == "wgmma")),
    "bandwidth_sweep.cu": {"SWEEP_THREADS": B.SWEEP_THREADS, "SWEEP_BLOCKS_PER_SM": 1},
    "shared_memory.cu": {"SMEM_THREADS": B.SMEM_THREADS, "SMEM_BLOCKS_PER_SM": 2},
    "empty_kernel.cu": {},
    "issue_rate.cu": I.issue_defines(),
}


def nvcc(source: str, arch: str, out_kind: str, tmp_path) -> subprocess.CompletedProcess:
    target = f"-gencode=arch=compute_{arch},code=sm_{arch}" if arch.endswith("a") else f"-arch=sm_{arch}"
    defines = [f"-D{k}={v}" for k, v in SOURCES[source].items()]
    out = tmp_path / f"{source}.{arch}.{out_kind}"
    with as_file(KERNELS) as kernel_dir:
        return subprocess.run(
            [NVCC, target, f"-{out_kind}", "-o", str(out), *defines, str(kernel_dir / source)],
            capture_output=True,
            text=True,
            timeout=300,
        )


@needs_nvcc
@pytest.mark.parametrize("arch", ["75", "80", "90"])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_kernel_source_compiles_for(source, arch, tmp_path):
    done = nvcc(source, arch, "cubin", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr.lower(), done.stderr


@needs_nvcc
def test_wgmma_is_emitted_only_for_sm90a(tmp_path):
    assert nvcc("tensor_wgmma.cu", "90a", "ptx", tmp_path).returncode == 0
    ptx_90a = (tmp_path / "tensor_wgmma.cu.90a.ptx").read_text()
    assert ptx_90a.count("wgmma.mma_async") >= 5 * 2  # five types, A and -A
    assert nvcc("tensor_wgmma.cu", "90", "ptx", tmp_path).returncode == 0
    assert "wgmma.mma_async" not in (tmp_path / "tensor_wgmma.cu.90.ptx").read_text()


@needs_nvcc
def test_fp8_mma_sync_only_from_sm89(tmp_path):
    assert nvcc("tensor_mma_sync.cu", "80", "ptx", tmp_path).returncode == 0
    assert "e4m3" not in (tmp_path / "tensor_mma_sync.cu.80.ptx").read_text()
    assert nvcc("tensor_mma_sync.cu", "90", "ptx", tmp_path).returncode == 0
    assert (
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"
        in (tmp_path / "tensor_mma_sync.cu.90.ptx").read_text()
    )
