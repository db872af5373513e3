"""Datasheet ceilings for common GPUs: the last resort when neither a measured
ceilings file nor the report's own peaks are there. Dense (no sparsity) rates.

Sources: NVIDIA's datasheets and architecture whitepapers — V100 SXM2 (Volta
whitepaper), A100 SXM4 80 GB (A100 datasheet), H100 SXM5 and H200 SXM (Hopper
whitepaper, H200 datasheet: same SM complex as H100, 4.8 TB/s HBM3e),
B200 (DGX B200 datasheet, per GPU). Marketing peaks: measure with
``rooftui measure`` for an honest roofline.
"""

from __future__ import annotations

from rooftui.model.ceilings import Ceiling, CeilingSet, Device

T = 1e12
_LABELS = {"fp64": "FP64", "fp32": "FP32", "fp16": "FP16", "tensor_fp64": "Tensor FP64",
           "tensor_tf32": "Tensor TF32", "tensor_fp16": "Tensor FP16", "tensor_bf16": "Tensor BF16",
           "tensor_fp8": "Tensor FP8", "tensor_int8": "Tensor INT8"}

# name patterns (lower case, matched as substrings of ncu's display name) -> peaks
SPEC_TABLE: tuple[tuple[tuple[str, ...], str, dict[str, float], float], ...] = (
    (("v100",), "7.0",
     {"fp64": 7.8 * T, "fp32": 15.7 * T, "fp16": 31.4 * T, "tensor_fp16": 125 * T}, 900e9),
    (("a100",), "8.0",
     {"fp64": 9.7 * T, "fp32": 19.5 * T, "fp16": 78 * T, "tensor_fp64": 19.5 * T,
      "tensor_tf32": 156 * T, "tensor_fp16": 312 * T, "tensor_bf16": 312 * T,
      "tensor_int8": 624 * T}, 2039e9),
    (("h200",), "9.0",
     {"fp64": 34 * T, "fp32": 67 * T, "fp16": 133.8 * T, "tensor_fp64": 67 * T,
      "tensor_tf32": 494.7 * T, "tensor_fp16": 989.4 * T, "tensor_bf16": 989.4 * T,
      "tensor_fp8": 1978.9 * T, "tensor_int8": 1978.9 * T}, 4.8e12),
    (("h100",), "9.0",
     {"fp64": 34 * T, "fp32": 67 * T, "fp16": 133.8 * T, "tensor_fp64": 67 * T,
      "tensor_tf32": 494.7 * T, "tensor_fp16": 989.4 * T, "tensor_bf16": 989.4 * T,
      "tensor_fp8": 1978.9 * T, "tensor_int8": 1978.9 * T}, 3.35e12),
    (("b200",), "10.0",
     {"fp64": 40 * T, "fp32": 80 * T, "tensor_fp64": 40 * T, "tensor_tf32": 1100 * T,
      "tensor_fp16": 2250 * T, "tensor_bf16": 2250 * T, "tensor_fp8": 4500 * T,
      "tensor_int8": 4500 * T}, 8e12),
)


def spec_ceilings(device_name: str, cc: str = "") -> CeilingSet | None:
    """The datasheet ceilings of ``device_name``, or None for a GPU not in the table."""
    lowered = device_name.lower()
    for patterns, spec_cc, compute, hbm in SPEC_TABLE:
        if any(p in lowered for p in patterns):
            ceilings = [Ceiling(f"{_LABELS[p]} (spec)", "compute", value, "spec", precision=p)
                        for p, value in compute.items()]
            ceilings.append(Ceiling("HBM (spec)", "bandwidth", hbm, "spec", level="hbm"))
            return CeilingSet(Device(device_name, cc or spec_cc), tuple(ceilings),
                              source=f"datasheet peaks for {device_name}")
    return None
