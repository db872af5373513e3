"""What each micro-kernel in ``rooftui/measure/cuda/`` does, and how many operations one launch performs.

The loop constants (chains, unroll, threads, blocks per SM) live here and are
passed to the compiler as ``-D`` defines, so the operation counts below are
derived from the very numbers the kernels were built with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# CUDA-core FMA kernels (fma_cuda_cores.cu)
FMA_CHAINS = 8
FMA_UNROLL = 32
FMA_THREADS = 256
FMA_BLOCKS_PER_SM = 4

# mma.sync kernels (tensor_mma_sync.cu); MMA_UNROLL must be even (A and -A alternate)
MMA_CHAINS = 4
MMA_UNROLL = 8
MMA_THREADS = 256
MMA_BLOCKS_PER_SM = 2

# wgmma kernels (tensor_wgmma.cu): one warpgroup per block, m64n256
WGMMA_UNROLL = 8
WGMMA_THREADS = 128
WGMMA_N = 256

HASH_MULTIPLIER = 2654435761
A_VALUES = (1, -1, 2, -2)


@dataclass(frozen=True)
class ComputeKernel:
    """One compute micro-kernel: which pipeline it measures and how it counts."""

    function: str  # the extern "C" kernel name
    source: str  # file in rooftui/measure/cuda/
    precision: str  # pipeline name (rooftui.model.columns), plus "bf16" for BF16 FMA
    name: str  # ceiling name
    instruction: str  # what it issues, for the log and the ceiling's method note
    kind: str  # "fma" | "mma" | "wgmma"
    ops_per_instruction: int  # per thread (fma) or per warp (mma) or per warpgroup (wgmma)
    min_arch: int
    only_arch: int | None = None  # wgmma: sm_90a only
    a_elements_per_lane: int = 0  # mma: A fragment elements a lane holds
    a_tile_elements: int = 0  # wgmma: elements in the A tile
    defines: dict[str, int] = field(default_factory=dict)

    @property
    def arch_suffix(self) -> str:
        return "a" if self.kind == "wgmma" else ""

    def runs_on(self, arch: int) -> bool:
        if self.only_arch is not None:
            return arch == self.only_arch
        return arch >= self.min_arch

    def block(self) -> int:
        return {"fma": FMA_THREADS, "mma": MMA_THREADS, "wgmma": WGMMA_THREADS}[self.kind]

    def blocks_per_sm(self) -> int:
        if self.kind == "wgmma":
            return self.defines["WGMMA_BLOCKS_PER_SM"]
        return {"fma": FMA_BLOCKS_PER_SM, "mma": MMA_BLOCKS_PER_SM}[self.kind]

    def instructions(self, grid: int, trips: int) -> int:
        """Instructions one launch issues, counted from the kernel's loop structure."""
        if self.kind == "fma":
            return grid * FMA_THREADS * FMA_CHAINS * FMA_UNROLL * trips
        if self.kind == "mma":
            return grid * (MMA_THREADS // 32) * MMA_CHAINS * (MMA_UNROLL * trips + 1)
        return grid * (WGMMA_UNROLL * trips + 1)

    def operations(self, grid: int, trips: int) -> int:
        """FLOPs (OPs for INT8) of one launch."""
        return self.instructions(grid, trips) * self.ops_per_instruction


def _mma(function, precision, name, shape, ptx_types, k, a_elements, min_arch=80):
    m, n = (8, 8) if shape == "m8n8k4" else (16, 8)
    return ComputeKernel(
        function=function,
        source="tensor_mma_sync.cu",
        precision=precision,
        name=name,
        instruction=f"mma.sync.{shape}.{ptx_types}",
        kind="mma",
        ops_per_instruction=2 * m * n * k,
        min_arch=min_arch,
        a_elements_per_lane=a_elements,
    )


def _wgmma(function, precision, name, ptx_types, k, elem_bytes, blocks_per_sm):
    return ComputeKernel(
        function=function,
        source="tensor_wgmma.cu",
        precision=precision,
        name=name,
        instruction=f"wgmma.m64n{WGMMA_N}k{k}.{ptx_types}",
        kind="wgmma",
        ops_per_instruction=2 * 64 * WGMMA_N * k,
        min_arch=90,
        only_arch=90,
        a_tile_elements=2048 // elem_bytes,
        defines={"WGMMA_BLOCKS_PER_SM": blocks_per_sm},
    )


def _fma(function, precision, name, ptx, lanes, min_arch=0):
    return ComputeKernel(
        function=function,
        source="fma_cuda_cores.cu",
        precision=precision,
        name=name,
        instruction=ptx,
        kind="fma",
        ops_per_instruction=2 * lanes,
        min_arch=min_arch,
    )


def compute_kernels(wgmma_blocks_per_sm: int = 2) -> list[ComputeKernel]:
    """Every compute kernel, in the order they run."""
    return [
        _fma("fma_fp64", "fp64", "FP64 FMA", "fma.rn.f64", 1),
        _fma("fma_fp32", "fp32", "FP32 FMA", "fma.rn.f32", 1),
        _fma("fma_fp16x2", "fp16", "FP16 FMA (HFMA2)", "fma.rn.f16x2", 2, min_arch=53),
        _fma("fma_bf16x2", "bf16", "BF16 FMA (HFMA2.BF16)", "fma.rn.bf16x2", 2, min_arch=80),
        _mma("mma_fp16", "tensor_fp16", "Tensor FP16", "m16n8k16", "f32.f16.f16.f32", 16, 8),
        _mma("mma_bf16", "tensor_bf16", "Tensor BF16", "m16n8k16", "f32.bf16.bf16.f32", 16, 8),
        _mma("mma_tf32", "tensor_tf32", "Tensor TF32", "m16n8k8", "f32.tf32.tf32.f32", 8, 4),
        _mma(
            "mma_fp8",
            "tensor_fp8",
            "Tensor FP8",
            "m16n8k32",
            "f32.e4m3.e4m3.f32",
            32,
            16,
            min_arch=89,
        ),
        _mma("mma_int8", "tensor_int8", "Tensor INT8", "m16n8k32", "s32.s8.s8.s32", 32, 16),
        _mma("mma_fp64_m8n8k4", "tensor_fp64", "Tensor FP64", "m8n8k4", "f64", 4, 1),
        _mma("mma_fp64_m16n8k16", "tensor_fp64", "Tensor FP64", "m16n8k16", "f64", 16, 8, min_arch=90),
        _wgmma("wgmma_fp16", "tensor_fp16", "Tensor FP16", "f32.f16.f16", 16, 2, wgmma_blocks_per_sm),
        _wgmma("wgmma_bf16", "tensor_bf16", "Tensor BF16", "f32.bf16.bf16", 16, 2, wgmma_blocks_per_sm),
        _wgmma("wgmma_tf32", "tensor_tf32", "Tensor TF32", "f32.tf32.tf32", 8, 4, wgmma_blocks_per_sm),
        _wgmma("wgmma_fp8", "tensor_fp8", "Tensor FP8", "f32.e4m3.e4m3", 32, 1, wgmma_blocks_per_sm),
        _wgmma("wgmma_int8", "tensor_int8", "Tensor INT8", "s32.s8.s8", 32, 1, wgmma_blocks_per_sm),
    ]


def defines_for(kernel: ComputeKernel) -> dict[str, int]:
    """The -D defines a kernel's source is compiled with."""
    if kernel.kind == "fma":
        return {
            "FMA_CHAINS": FMA_CHAINS,
            "FMA_UNROLL": FMA_UNROLL,
            "FMA_THREADS": FMA_THREADS,
            "FMA_BLOCKS_PER_SM": FMA_BLOCKS_PER_SM,
        }
    if kernel.kind == "mma":
        return {
            "MMA_CHAINS": MMA_CHAINS,
            "MMA_UNROLL": MMA_UNROLL,
            "MMA_THREADS": MMA_THREADS,
            "MMA_BLOCKS_PER_SM": MMA_BLOCKS_PER_SM,
        }
    return {"WGMMA_UNROLL": WGMMA_UNROLL, **kernel.defines}


def a_value(lane: int, element: int) -> int:
    """The A element the tensor kernels build (same hash as their ``a_value``/``tile_value``)."""
    h = ((lane * 64 + element) * HASH_MULTIPLIER) & 0xFFFFFFFF
    return A_VALUES[(h >> 13) & 3]


def mma_warp_sum(kernel: ComputeKernel) -> int:
    """Expected sum of D over one warp: chains x N(8) x (sum of the warp's A elements)."""
    a_sum = sum(a_value(lane, e) for lane in range(32) for e in range(kernel.a_elements_per_lane))
    return MMA_CHAINS * 8 * a_sum


def wgmma_block_sum(kernel: ComputeKernel) -> int:
    """Expected sum of D over one warpgroup: N(256) x (sum of the A tile's elements)."""
    return WGMMA_N * sum(a_value(0, e) for e in range(kernel.a_tile_elements))


# FMA units per SM (lanes that retire one FMA per clock), by compute capability:
# the CUDA C++ Programming Guide's arithmetic-instruction throughput table.
FP64_FMA_PER_SM = {70: 32, 75: 2, 80: 32, 86: 2, 87: 2, 89: 2, 90: 64, 100: 64, 120: 2}
FP32_FMA_PER_SM = {70: 64, 75: 64, 80: 64, 86: 128, 87: 128, 89: 128, 90: 128, 100: 128, 120: 128}
FMA_UNITS_PER_SM = {"fp64": FP64_FMA_PER_SM, "fp32": FP32_FMA_PER_SM}
