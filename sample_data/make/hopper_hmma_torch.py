"""The PyTorch kernels of sample_data/make/make_hopper_hmma.sh: elementwise BF16/FP16
work with no matrix math (RMSNorm, SiLU, a random fill) and one real BF16 GEMM, each
launched once inside cudaProfilerStart/Stop after a warm-up, so ncu sees one launch each."""

import torch

n = 1 << 24
x16 = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
h16 = torch.randn(n, device="cuda", dtype=torch.float16)
a = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
b = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
weight = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
out = torch.empty(n, device="cuda", dtype=torch.float32)


def step() -> None:
    torch.nn.functional.rms_norm(x16, (4096,), weight)  # RMSNorm, BF16
    torch.nn.functional.silu(h16)  # SiLU, FP16
    out.normal_()  # the random fill of the GH200 report (distribution_elementwise_grid_stride_kernel)
    a @ b  # 2·2048³ FLOPs, BF16 Tensor Core (cuBLAS: HGMMA on sm_90)


step()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
step()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
print("ok: 4 launches profiled; GEMM FLOPs", 2 * 2048**3)
