"""A small kernel table with exactly the contract's columns, for unit tests of the
pure filtering helpers, where exact numbers are easiest to see by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.model.ceilings import Ceiling, CeilingSet, Device
from rooftui.model.columns import BOUND_LEVELS as LEVELS  # the synthetic rows have the paper's three
from rooftui.model.columns import FLOP_COLUMNS, LEVEL_LABELS, PIPELINE_LABELS

CEILINGS = CeilingSet(
    device=Device(name="NVIDIA H200", cc="9.0", sm_count=132),
    ceilings=(
        Ceiling("FP64", "compute", 6.7e13, "spec", precision="fp64"),
        Ceiling("FP32", "compute", 6.7e13, "spec", precision="fp32"),
        Ceiling("Tensor FP16", "compute", 9.89e14, "spec", precision="tensor_fp16"),
        Ceiling("L1", "bandwidth", 3.3e13, "empirical", level="l1"),
        Ceiling("L2", "bandwidth", 1.1e13, "empirical", level="l2"),
        Ceiling("HBM", "bandwidth", 4.0e12, "empirical", level="hbm"),
    ),
    source="tests",
)

# name, pipeline, phase, time_s, flops, bytes (l1, l2, hbm)
KERNELS = [
    ("daxpy", "fp64", "forward", 2.0e-3, 2.0e9, (2.4e10, 2.4e10, 2.4e10)),
    ("dgemm", "fp64", "forward", 5.0e-3, 3.0e11, (6.0e10, 3.0e10, 6.0e9)),
    ("wmma_gemm", "tensor_fp16", "backward", 4.0e-3, 2.0e12, (4.0e10, 2.0e10, 4.0e9)),
    ("memset_zero", "none", "optimizer", 1.0e-3, 0.0, (0.0, 4.0e9, 4.0e9)),
    ("sgemv", "fp32", "backward", 3.0e-3, 4.0e9, (1.6e10, 8.0e9, 8.0e9)),
]


def _roof(ceilings: CeilingSet, pipeline: str, level: str, ai: float) -> float:
    compute = ceilings.compute(pipeline)
    bandwidth = ceilings.bandwidth(level)
    if compute is None or bandwidth is None or not np.isfinite(ai):
        return float("nan")
    return min(compute.value, ai * bandwidth.value)


def kernel_table(repeat: int = 2) -> pd.DataFrame:
    """``repeat`` invocations of each kernel in ``KERNELS``; invocation k runs k+1 times as long."""
    rows = []
    for k in range(repeat):
        for name, pipeline, phase, time_s, flops, nbytes in KERNELS:
            time = time_s * (k + 1)
            row = {
                "id": len(rows),
                "report": "synthetic.csv",
                "ncu_id": len(rows),
                "device": "NVIDIA H200",
                "cc": "9.0",
                "name": name,
                "demangled": f"{name}(double*)",
                "grid": "(1024, 1, 1)",
                "block": "(256, 1, 1)",
                "nvtx": f"step > {phase}",
                "time_s": time,
                "ops_tensor_int8": 0.0,
            }
            for column in FLOP_COLUMNS:
                row[column] = flops if column == f"flops_{pipeline}" else 0.0
            row["flops_tensor"] = flops if pipeline.startswith("tensor") else 0.0
            row["flops"] = flops
            fractions, bounds = {}, {}
            for level, moved in zip(LEVELS, nbytes, strict=True):
                row[f"bytes_{level}"] = moved
                ai = flops / moved if moved else float("nan")
                row[f"ai_{level}"] = ai
                roof = _roof(CEILINGS, pipeline, level, ai)
                row[f"roof_{level}"] = roof
                row[f"roof_fraction_{level}"] = (flops / time) / roof if roof == roof else np.nan
                compute = CEILINGS.compute(pipeline)
                bound = "compute" if compute and roof == compute.value else "memory"
                row[f"bound_{level}"] = bound if flops else "none"
                fractions[level], bounds[level] = row[f"roof_fraction_{level}"], bound
            row["flop_rate"] = flops / time
            row["pipeline"] = pipeline
            row["zero_ai"] = flops == 0
            row["fp16_approximate"] = False
            row["phase"], row["phase_inferred"] = phase, True
            if flops:
                binding = max(LEVELS, key=lambda lv: fractions[lv])
                row["bound"] = (
                    LEVEL_LABELS[binding] if bounds[binding] == "memory" else PIPELINE_LABELS[pipeline]
                )
                row["roof_fraction"] = fractions[binding]
            else:
                row["bound"], row["roof_fraction"] = "none", np.nan
            rows.append(row)
    return pd.DataFrame(rows)
