"""On a machine with an NVIDIA GPU: the real run, and ncu confirming rooftui's counts.

Skipped elsewhere (CI has no GPU). On the lent H200 these ran with
``python3 -m pytest tests/measure -m gpu``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rooftui.errors import GpuUnavailableError

ROOT = Path(__file__).resolve().parents[2]


def _gpu_present() -> bool:
    try:
        from rooftui.measure.gpu import device_count

        return device_count() > 0
    except GpuUnavailableError:
        return False


needs_gpu = pytest.mark.skipif(not _gpu_present(), reason="no NVIDIA GPU with cuda-python here")


@pytest.mark.gpu
@needs_gpu
def test_quick_measure_writes_every_ceiling(tmp_path):
    out = tmp_path / "ceilings.json"
    done = subprocess.run(
        [sys.executable, "-m", "rooftui.measure", "--quick", "--ert", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    levels = {c["level"] for c in doc["ceilings"] if c["kind"] == "bandwidth"}
    assert {"l1", "smem", "l2", "hbm"} <= levels
    precisions = {c["precision"] for c in doc["ceilings"] if c["kind"] == "compute"}
    assert {"fp64", "fp32", "fp16", "tensor_fp16"} <= precisions
    ert = json.loads(out.with_name("ceilings.roofline.json").read_text())
    assert [name for name, _ in ert["empirical"]["gbytes"]["data"]][-1] == "DRAM"


@pytest.mark.gpu
@needs_gpu
@pytest.mark.skipif(shutil.which("ncu") is None, reason="ncu (Nsight Compute) is not on PATH")
def test_ncu_counts_match_rooftuis_counts():
    from tests.measure.ncu_counts import run

    rows = run()
    for row in rows:
        print(row)
    assert rows and all(r["ok"] for r in rows), [r for r in rows if not r["ok"]]
    kernels = {r["kernel"] for r in rows}
    assert {"fma_fp32", "read_sweep_l2"} <= kernels  # one compute, one bandwidth kernel at least
