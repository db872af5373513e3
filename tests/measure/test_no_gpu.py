"""Without a GPU (or without CUDA at all), `rooftui measure` says so in one line and exits 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_measure_without_a_gpu_is_one_line_and_exit_2(tmp_path):
    # CUDA_VISIBLE_DEVICES="" hides every GPU even on a GPU machine; on a machine
    # without cuda-python the import fails first. Either way: one line, exit 2.
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT))
    out = tmp_path / "c.json"
    done = subprocess.run(
        [sys.executable, "-m", "rooftui", "measure", "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("rooftui: ")
    assert "cuda" in lines[0].lower() or "gpu" in lines[0].lower()
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_every_measure_kernel_and_header_is_read_from_the_package():
    from rooftui.measure.gpu import inline_headers, kernel_text
    from rooftui.measure.runner import kernel_sources

    for source in kernel_sources():
        text = inline_headers(kernel_text(source))
        assert "__global__" in text and '#include "' not in text, source


def test_a_missing_kernel_source_is_named_before_any_gpu_work(tmp_path, monkeypatch):
    from rooftui.errors import GpuUnavailableError
    from rooftui.measure import gpu
    from rooftui.measure.runner import check_installation

    for source in gpu.KERNELS.iterdir():  # a copy of the kernels without one header
        if source.name != "clock_stamp.cuh":
            (tmp_path / source.name).write_text(source.read_text())
    monkeypatch.setattr(gpu, "KERNELS", tmp_path)
    with pytest.raises(GpuUnavailableError, match="missing from this installation.*clock_stamp.cuh"):
        check_installation()
