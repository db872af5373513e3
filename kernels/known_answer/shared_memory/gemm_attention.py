"""A cuBLAS BF16 GEMM and two attention kernels whose shared-memory traffic follows from
their tile shapes: profiled with ``ncu --profile-from-start off`` so only the launches
between ``cudaProfilerStart`` and ``cudaProfilerStop`` are captured (warm-ups are not).

    python3 gemm_attention.py SHAPES.json

Writes the problem shapes to SHAPES.json; the tile shape of each kernel is read from
its name afterwards (tests/core/test_shared_memory_known.py), never from a profile.
"""

from __future__ import annotations

import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

GEMM = {"m": 6144, "n": 6144, "k": 4096}
ATTENTION = {"batch": 4, "heads": 16, "seq": 2048, "head_dim": 128}


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    return float((out.float() - ref).norm() / ref.norm())


def main(shapes_path: str) -> None:
    torch.manual_seed(0)
    a = torch.randn(GEMM["m"], GEMM["k"], device="cuda", dtype=torch.bfloat16)
    b = torch.randn(GEMM["k"], GEMM["n"], device="cuda", dtype=torch.bfloat16)
    shape = (ATTENTION["batch"], ATTENTION["heads"], ATTENTION["seq"], ATTENTION["head_dim"])
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    usable = {}
    for name, backend in backends.items():  # warm-up, and which backends run here
        try:
            with sdpa_kernel(backend):
                usable[name] = F.scaled_dot_product_attention(q, k, v)
        except RuntimeError as err:
            print(f"gemm_attention: {name} attention not available: {err}", file=sys.stderr)
    c = a @ b
    torch.cuda.synchronize()

    torch.cuda.profiler.start()
    c = a @ b
    outs = {}
    for name in usable:
        with sdpa_kernel(backends[name]):
            outs[name] = F.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()

    errors = {"gemm": relative_error(c, a.double() @ b.double())}
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double())
    errors.update({name: relative_error(out, ref) for name, out in outs.items()})
    print("gemm_attention: relative errors", errors)
    if not all(err < 1e-2 for err in errors.values()):
        sys.exit("gemm_attention: a result is wrong")
    with open(shapes_path, "w", encoding="utf-8") as handle:
        json.dump(
            {"gemm": GEMM, "attention": ATTENTION, "attention_backends": list(outs), "errors": errors},
            handle,
            indent=1,
        )


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "shapes.json")
