"""Ceilings measured and published by others, for the exact GPU model they were measured on.

A published measurement is an empirical roof (the Empirical Roofline Toolkit's sustained
bandwidths and FLOP rates), not a datasheet peak: it stands where ``rooftui measure`` has
not been run, ranks above the report's own peaks and the datasheet, and is shown as
"published measurement (…)" wherever a roof is shown. A row is matched by the exact model
(form factor and memory size, as ``rooftui.model.spec`` matches datasheet rows): the
numbers were measured on one part and are never lent to another ("V100" alone, which
could be the PCIe part, gets none).
"""

from __future__ import annotations

from dataclasses import dataclass

from rooftui.model.ceilings import Ceiling, CeilingSet, Device
from rooftui.model.columns import LEVEL_LABELS
from rooftui.model.spec import ROOF_LABELS, model_words

G = 1e9


@dataclass(frozen=True)
class PublishedMeasurement:
    """One GPU model's roofs as measured and published (FLOP/s; B/s per memory level)."""

    model: str  # the part it was measured on, shown with every roof
    names: tuple[str, ...]  # display names it matches, as ``model_words`` spells them
    cc: str
    compute: dict[str, float]
    bandwidth: dict[str, float]  # "l1" | "l2" | "hbm"
    who: str  # short citation shown with the roofs
    source: str  # where the numbers are written, exactly


PUBLISHED: tuple[PublishedMeasurement, ...] = (
    # The hierarchical-roofline paper's own ceilings (Yang, Wang, Farrell, Kurth, Williams,
    # "Hierarchical Roofline Performance Analysis for Deep Learning Applications", 2020,
    # arXiv:2009.05257), measured with the Empirical Roofline Toolkit on NERSC's Cori-GPU
    # nodes, whose GPUs are V100 SXM2 with 16 GB HBM2 (docs.nersc.gov/cgpu/hardware: "8
    # NVIDIA Tesla V100 ('Volta') GPUs, each with 16 GB HBM2 memory", NVLink). The values
    # are the ones the authors plot, in GB/s and GFLOP/s, from their notebook's
    # ``plot_roofs``: smemroofs = [14*1024, 2996.77, 828.758] (L1, L2, HBM),
    # scomproofs_fp64 = [7669.86, …], scomproofs_fp32 = [15158.6, …],
    # scomproofs_fp16 = [106496.0] + [29181.6, …] (Tensor Core, FP16 FMA).
    PublishedMeasurement(
        "Tesla V100-SXM2-16GB, NERSC Cori-GPU",
        ("v100 sxm2 16gb",),
        "7.0",
        {
            "fp64": 7669.86 * G,
            "fp32": 15158.6 * G,
            "fp16": 29181.6 * G,
            "tensor_fp16": 106496.0 * G,
        },
        {"l1": 14 * 1024 * G, "l2": 2996.77 * G, "hbm": 828.758 * G},
        "Yang, Wang et al. 2020, ERT",
        "github.com/cyanguwa/DeepLearningProfiling commit 1290c76, "
        "summary/hierarchical_roofline.ipynb, plot_roofs (the ceilings of the paper's figures)",
    ),
)


def published_for(device_name: str) -> PublishedMeasurement | None:
    """The published measurement of exactly this GPU model, or None."""
    words = model_words(device_name)
    return next((row for row in PUBLISHED if words in row.names), None)


def published_ceilings(device_name: str, cc: str = "") -> CeilingSet | None:
    """The published measured ceilings of ``device_name``, or None for a model no one
    published for (a name that could be several models matches none)."""
    row = published_for(device_name)
    if row is None:
        return None
    stamp = {"published": f"{row.who} on {row.model}", "published_source": row.source}
    ceilings = [
        Ceiling(f"{ROOF_LABELS[p]} (published)", "compute", value, "empirical", precision=p, extra=stamp)
        for p, value in row.compute.items()
    ]
    ceilings += [
        Ceiling(
            f"{LEVEL_LABELS[level]} (published)", "bandwidth", value, "empirical", level=level, extra=stamp
        )
        for level, value in row.bandwidth.items()
    ]
    return CeilingSet(
        Device(device_name, cc or row.cc), tuple(ceilings), source=f"published measurement ({row.who})"
    )
