"""The measure kernels compile with the machine's nvcc for every architecture rooftui supports.

Compile only (no GPU needed): the same sources NVRTC builds at run time, with
the same -D defines the Python side passes. Kernels that need a newer
architecture are guarded by ``#if __CUDA_ARCH__ >= ...`` and must still compile
(empty) for the older ones. Each (source, architecture) is built once, to SASS, with
``-keep``: the PTX cicc made on the way is what the guards' checks read (``PTX_HOLDS``),
where a second ``-ptx`` build used to make it again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from importlib.resources import as_file
from pathlib import Path

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


@dataclass(frozen=True)
class Build:
    done: subprocess.CompletedProcess
    ptx: Path  # the PTX cicc made on the way (nvcc -keep): what ptxas turned into SASS


def nvcc(source: str, arch: str, out_kind: str, folder: Path, *flags: str) -> Build:
    """``nvcc -cubin`` (or ``-ptx``) of ``source`` for ``arch``, its PTX kept; ``flags`` go
    to nvcc before the rest."""
    target = f"-gencode=arch=compute_{arch},code=sm_{arch}" if arch.endswith("a") else f"-arch=sm_{arch}"
    defines = [f"-D{k}={v}" for k, v in SOURCES[source].items()]
    keep = folder / f"{source}.{arch}.{out_kind}.keep"
    keep.mkdir()
    out = folder / f"{source}.{arch}.{out_kind}"
    with as_file(KERNELS) as kernel_dir:
        done = subprocess.run(
            [
                NVCC,
                *flags,
                target,
                f"-{out_kind}",
                "-o",
                str(out),
                "-keep",
                "-keep-dir",
                str(keep),
                *defines,
                str(kernel_dir / source),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    return Build(done, out if out_kind == "ptx" else keep / f"{Path(source).stem}.ptx")


# What the PTX of a build must (True) or must not (False) hold: the arch guards at work.
PTX_HOLDS = {
    ("tensor_mma_sync.cu", "80"): {"e4m3": False},  # FP8 mma.sync needs sm_89
    ("tensor_mma_sync.cu", "90"): {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32": True},
    ("tensor_wgmma.cu", "90"): {"wgmma.mma_async": False},  # wgmma needs sm_90a, not plain sm_90
}


@needs_nvcc
@pytest.mark.parametrize("arch", ["75", "80", "90"])
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_kernel_source_compiles_for(source, arch, tmp_path):
    build = nvcc(source, arch, "cubin", tmp_path)
    if (source, arch) in PTX_HOLDS:  # read before ptxas's verdict: cicc's PTX says which guard failed
        assert build.ptx.exists(), build.done.stderr
        ptx = build.ptx.read_text()
        assert f".target sm_{arch}\n" in ptx  # the PTX of this very build
        for text, present in PTX_HOLDS[source, arch].items():
            assert (text in ptx) == present, f"{text!r} {'missing from' if present else 'in'} sm_{arch} PTX"
    assert build.done.returncode == 0, build.done.stderr
    assert "warning" not in build.done.stderr.lower(), build.done.stderr


@needs_nvcc
def test_wgmma_is_emitted_only_for_sm90a(tmp_path):
    # and not for plain sm_90: PTX_HOLDS, checked on the sm_90 build above. Which wgmma the
    # source emits is settled by its __CUDA_ARCH_FEAT_SM90_ALL guard, before any optimisation:
    # cicc at -O0 answers that in a fifth of the CPU of -O3, which unrolls each kernel's eight
    # 128-operand wgmma statements (3.1 s against 0.8 s).
    sm90a = nvcc("tensor_wgmma.cu", "90a", "ptx", tmp_path, "-Xcicc", "-O0")
    assert sm90a.done.returncode == 0, sm90a.done.stderr
    assert sm90a.ptx.read_text().count("wgmma.mma_async") >= 5 * 2  # five types, A and -A
