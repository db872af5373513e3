"""The sample shipped inside the package, so `rooftui` with no argument shows something real:
a real run against the ceilings measured on the very GPU it ran on.

Copies of sample_data/deepcam/deepcam_{amp,fp32}.raw-base.csv.xz: one training step of
the DeepCAM-like network profiled on an H200 (sample_data/make/make_samples.sh) with
rooftui's metric list, the SMEM counters and the instruction roofline's.
"""

from __future__ import annotations

from pathlib import Path

SAMPLE_DIR = Path(__file__).parent / "data" / "sample"


def sample_paths() -> list[Path]:
    """The AMP step, the default sample."""
    return [SAMPLE_DIR / "deepcam_amp.raw-base.csv.xz"]


def sample_ceilings() -> Path:
    """The ceilings `rooftui measure` measured on the H200 the sample ran on
    (a copy of sample_data/ceilings/h200.json)."""
    return SAMPLE_DIR / "h200_ceilings.json"


def sample_pair() -> tuple[Path, Path]:
    """FP32 and AMP steps of the same network, for comparisons."""
    return SAMPLE_DIR / "deepcam_fp32.raw-base.csv.xz", SAMPLE_DIR / "deepcam_amp.raw-base.csv.xz"
