"""Datasheet ceilings for common GPUs: the last resort when neither a measured
ceilings file nor the report's own peaks are there. Dense (no sparsity) rates: where a
datasheet gives only the 2:4-sparse Tensor rate (marked * there), half of it.

A row is matched by the exact model ncu names (``device__attribute_display_name``, the
name nvidia-smi prints): form factor (PCIe, SXM, NVL) and memory size decide the
peaks, so "NVIDIA H100 PCIe" never gets the SXM part's roofs, nor "GH200" the H200's,
nor an A100 40GB the 80GB part's bandwidth. A model not in the table gets no datasheet
roof (``datasheet_note`` says so), never a similar name's. Marketing peaks: measure with
``rooftui measure`` for an honest roofline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rooftui.model.ceilings import Ceiling, CeilingSet, Device

T = 1e12
ROOF_LABELS = {
    "fp64": "FP64",
    "fp32": "FP32",
    "fp16": "FP16",
    "tensor_fp64": "Tensor FP64",
    "tensor_tf32": "Tensor TF32",
    "tensor_fp16": "Tensor FP16",
    "tensor_bf16": "Tensor BF16",
    "tensor_fp8": "Tensor FP8",
    "tensor_int8": "Tensor INT8",
}


@dataclass(frozen=True)
class Datasheet:
    """One GPU model's published peaks (FLOP/s, OP/s for INT8; DRAM B/s or None)."""

    model: str  # the row's name, shown wherever its ceilings are
    names: tuple[str, ...]  # display names it matches, as ``model_words`` spells them
    cc: str
    compute: dict[str, float]
    dram: float | None
    source: str  # the public document the numbers are from
    any_suffix: bool = False  # also "NAME <anything>" (a suffix that changes no peak)
    verified: bool = True  # False: no NVIDIA document was found to check the figures against

    @property
    def shown(self) -> str:
        """The row's name as every view shows it: "(unverified)" where it is."""
        return self.model if self.verified else f"{self.model} (unverified)"


def _tensor(tf32: float, fp16: float, int8: float, fp8: float = 0.0) -> dict[str, float]:
    rates = {"tensor_tf32": tf32, "tensor_fp16": fp16, "tensor_bf16": fp16, "tensor_int8": int8}
    if fp8:
        rates["tensor_fp8"] = fp8
    return {k: v * T for k, v in rates.items() if v}


_A100 = {"fp64": 9.7 * T, "fp32": 19.5 * T, "fp16": 78 * T, "tensor_fp64": 19.5 * T, **_tensor(156, 312, 624)}
_A100_SOURCE = "NVIDIA A100 Tensor Core GPU datasheet (2021); FP16 CUDA-core rate: A100 whitepaper"
_H100_SXM = {
    "fp64": 34 * T,
    "fp32": 67 * T,
    "fp16": 133.8 * T,
    "tensor_fp64": 67 * T,
    **_tensor(494.7, 989.4, 1978.9, 1978.9),
}
_H100_SOURCE = "NVIDIA H100 Tensor Core GPU datasheet (2023), dense = half the * sparse rates"
_NVL = {"fp64": 30 * T, "fp32": 60 * T, "tensor_fp64": 60 * T, **_tensor(417.5, 835.5, 1670.5, 1670.5)}
# No NVIDIA product brief, datasheet or spec table for the H100 NVL, H200 NVL or GH200 was
# in the public corpora searched on 2026-12-01, nor again on 2026-12-02 (docs and pages, for
# each model's datasheet, product brief and nvidia.com spec table: only NVIDIA's H100 PCIe
# product brief PB-11133 and third-party pages came back, and those disagree with each
# other: H100 NVL FP32 60 or 67 TFLOP/s, HBM 3.9 or 4.8 TB/s), so these rows keep the
# figures an earlier round typed in and say they are unverified wherever their roofs are shown.
_UNVERIFIED = (
    "unverified: not checked against an NVIDIA document (none found in the public corpora "
    "searched on 2026-12-01 and 2026-12-02); figures as typed from "
)

DATASHEETS: tuple[Datasheet, ...] = (
    Datasheet(
        "Tesla V100 SXM2",
        ("v100 sxm2 16gb", "v100 sxm2 32gb"),
        "7.0",
        {"fp64": 7.8 * T, "fp32": 15.7 * T, "fp16": 31.4 * T, "tensor_fp16": 125 * T},
        900e9,
        "NVIDIA Tesla V100 datasheet (2018); FP16 CUDA-core rate: Volta whitepaper",
    ),
    Datasheet(
        "Tesla V100 PCIe",
        ("v100 pcie 16gb", "v100 pcie 32gb"),
        "7.0",
        {"fp64": 7 * T, "fp32": 14 * T, "fp16": 28 * T, "tensor_fp16": 112 * T},
        900e9,
        "NVIDIA Tesla V100 datasheet (2018); FP16 CUDA-core rate: Volta whitepaper",
    ),
    Datasheet(
        "Tesla T4",
        ("t4",),
        "7.5",
        {"fp32": 8.1 * T, "tensor_fp16": 65 * T, "tensor_int8": 130 * T},
        320e9,
        "NVIDIA T4 datasheet (2019)",
    ),
    Datasheet("NVIDIA A100 SXM4 40GB", ("a100 sxm4 40gb",), "8.0", _A100, 1555e9, _A100_SOURCE),
    Datasheet("NVIDIA A100 PCIe 40GB", ("a100 pcie 40gb",), "8.0", _A100, 1555e9, _A100_SOURCE),
    Datasheet("NVIDIA A100 SXM4 80GB", ("a100 sxm4 80gb",), "8.0", _A100, 2039e9, _A100_SOURCE),
    Datasheet(
        "NVIDIA A100 PCIe 80GB", ("a100 80gb pcie", "a100 pcie 80gb"), "8.0", _A100, 1935e9, _A100_SOURCE
    ),
    Datasheet(
        "NVIDIA A30",
        ("a30",),
        "8.0",
        {"fp64": 5.2 * T, "fp32": 10.3 * T, "tensor_fp64": 10.3 * T, **_tensor(82, 165, 330)},
        933e9,
        "NVIDIA A30 Tensor Core GPU datasheet (2021)",
    ),
    Datasheet(
        "NVIDIA A10",
        ("a10",),
        "8.6",
        {"fp32": 31.2 * T, **_tensor(62.5, 125, 250)},
        600e9,
        "NVIDIA A10 Tensor Core GPU datasheet (2021)",
    ),
    Datasheet(
        "NVIDIA A40",
        ("a40",),
        "8.6",
        {"fp32": 37.4 * T, **_tensor(74.8, 149.7, 299.3)},
        696e9,
        "NVIDIA A40 datasheet (2021)",
    ),
    Datasheet(
        "NVIDIA RTX A6000",
        ("rtx a6000",),
        "8.6",
        {"fp32": 38.7 * T},
        768e9,
        "NVIDIA RTX A6000 datasheet (2021); Tensor rates there are sparse only: left out",
    ),
    Datasheet(
        "NVIDIA GeForce RTX 3090",
        ("rtx 3090",),
        "8.6",
        {"fp32": 35.6 * T},
        936e9,
        "NVIDIA Ampere GA102 GPU architecture whitepaper (2021), appendix table",
    ),
    Datasheet(
        "NVIDIA L4",
        ("l4",),
        "8.9",
        {"fp32": 30.3 * T, **_tensor(60, 121, 242.5, 242.5)},
        300e9,
        "NVIDIA L4 Tensor Core GPU datasheet (2023), dense = half the * sparse rates",
    ),
    Datasheet(
        "NVIDIA L40S",
        ("l40s",),
        "8.9",
        {"fp32": 91.6 * T, **_tensor(183, 362.05, 733, 733)},
        864e9,
        "NVIDIA L40S datasheet (2023), dense = half the * sparse rates",
    ),
    Datasheet(
        "NVIDIA GeForce RTX 4090",
        ("rtx 4090",),
        "8.9",
        {"fp32": 82.6 * T},
        1008e9,
        "NVIDIA Ada GPU architecture whitepaper (2023), appendix table",
    ),
    Datasheet(
        "NVIDIA H100 SXM5 80GB", ("h100 80gb hbm3", "h100 sxm5 80gb"), "9.0", _H100_SXM, 3.35e12, _H100_SOURCE
    ),
    Datasheet(
        "NVIDIA H100 PCIe",
        ("h100 pcie",),
        "9.0",
        {"fp64": 25.6 * T, "fp32": 51.2 * T, "tensor_fp64": 51.2 * T, **_tensor(378, 756, 1513, 1513)},
        2.0e12,
        _H100_SOURCE,
    ),
    Datasheet(
        "NVIDIA H100 NVL", ("h100 nvl",), "9.0", _NVL, 3.9e12, _UNVERIFIED + _H100_SOURCE, verified=False
    ),
    Datasheet(
        "NVIDIA H200 SXM",
        ("h200",),
        "9.0",
        _H100_SXM,
        4.8e12,
        "NVIDIA H200 Tensor Core GPU datasheet (2024): H100 SXM's SM complex, 4.8 TB/s HBM3e",
    ),
    Datasheet(
        "NVIDIA H200 NVL",
        ("h200 nvl",),
        "9.0",
        _NVL,
        4.8e12,
        _UNVERIFIED + "NVIDIA H200 Tensor Core GPU datasheet (2024), dense = half the * sparse rates",
        verified=False,
    ),
    # GH200 ships with 96 GB HBM3 (4 TB/s) or 144 GB HBM3e (4.9 TB/s) and names its CPU
    # memory ("GH200 480GB"): the name does not say which, so no DRAM roof.
    Datasheet(
        "NVIDIA GH200 Grace Hopper",
        ("gh200",),
        "9.0",
        {k: v for k, v in _H100_SXM.items() if k != "fp16"},
        None,
        _UNVERIFIED + "NVIDIA GH200 Grace Hopper Superchip datasheet (2024), dense = half the * sparse rates",
        any_suffix=True,
        verified=False,
    ),
    Datasheet(
        "NVIDIA B200",
        ("b200",),
        "10.0",
        {"fp64": 40 * T, "fp32": 80 * T, "tensor_fp64": 40 * T, **_tensor(1100, 2250, 4500, 4500)},
        8e12,
        "NVIDIA DGX B200 datasheet (2024), per GPU, dense = half the * sparse rates",
    ),
)

_DROPPED = {"nvidia", "tesla", "geforce"}


def model_words(name: str) -> str:
    """ "NVIDIA A100-SXM4-80GB" -> "a100 sxm4 80gb": lower case, vendor words dropped."""
    return " ".join(w for w in re.findall(r"[a-z0-9]+", name.lower()) if w not in _DROPPED)


def datasheet_for(device_name: str) -> Datasheet | None:
    """The datasheet row of exactly this GPU model, or None."""
    words = model_words(device_name)
    for sheet in DATASHEETS:
        if words in sheet.names or (sheet.any_suffix and any(words.startswith(n + " ") for n in sheet.names)):
            return sheet
    return None


def datasheet_note(device_name: str) -> str:
    """Why a GPU got no datasheet roofs: a name that fits several rows ("V100": SXM2 or
    PCIe) says which, and how to name the exact model."""
    words = model_words(device_name)
    fits = [
        sheet for sheet in DATASHEETS if words and any(name.startswith(words + " ") for name in sheet.names)
    ]
    if len(fits) > 1:
        return (
            f"no datasheet row for {device_name!r}: it could be any of "
            f"{', '.join(sheet.model for sheet in fits)}, whose peaks differ, so no datasheet roofs; "
            "give the exact model (form factor and memory), e.g. "
            f"--gpu '{fits[0].names[0].upper()}'"
        )
    models = ", ".join(sheet.model for sheet in DATASHEETS)
    return (
        f"no datasheet row for {device_name!r} (matched by exact model: form factor and memory "
        f"size change the peaks), so no datasheet roofs; rooftui has: {models}"
    )


def spec_ceilings(device_name: str, cc: str = "") -> CeilingSet | None:
    """The datasheet ceilings of ``device_name``, or None for a GPU not in the table."""
    sheet = datasheet_for(device_name)
    if sheet is None:
        return None
    row = {"datasheet": sheet.shown, "datasheet_source": sheet.source, "datasheet_verified": sheet.verified}
    ceilings = [
        Ceiling(f"{ROOF_LABELS[p]} (spec)", "compute", value, "spec", precision=p, extra=row)
        for p, value in sheet.compute.items()
    ]
    if sheet.dram is not None:
        ceilings.append(Ceiling("HBM (spec)", "bandwidth", sheet.dram, "spec", level="hbm", extra=row))
    return CeilingSet(
        Device(device_name, cc or sheet.cc),
        tuple(ceilings),
        source=f"datasheet peaks for {sheet.shown} ({sheet.source})",
    )
