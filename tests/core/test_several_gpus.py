"""Several GPUs in one run: every bound uses its own GPU's ceilings, the data layer
hands each GPU's ceilings out (Run.ceilings_for), and the JSON lists them per GPU
while `ceilings` stays the first GPU's (issue 11 item 6, data side)."""

import copy
import json

import pandas as pd
import pytest

from rooftui.analysis import grouped_kernels, load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.ingest.ceilings import load_ceilings
from rooftui.views.summary import to_json
from tests.conftest import KNOWN, SAMPLES

BASE = KNOWN / "known_answer.raw-base.csv"
TWO = SAMPLES / "ceilings" / "h200x2"
GPU0, GPU1 = TWO / "ceil_vm_0.json", TWO / "ceil_vm_1.json"


def as_profiled_on(tmp_path, device_index: int, name: str | None = None):
    """The known-answer report as if its kernels had run on GPU ``device_index`` (and a
    GPU called ``name``)."""
    frame = pd.read_csv(BASE, dtype=str, keep_default_na=False)
    launches = frame["ID"] != ""  # not the units row
    frame.loc[launches, "Device"] = str(device_index)
    if name:
        frame.loc[launches, "device__attribute_display_name"] = name
    path = tmp_path / f"gpu{device_index}.raw-base.csv"
    frame.to_csv(path, index=False)
    return path


def file_hbm(path) -> float:
    doc = json.loads(path.read_text())
    return next(c["value"] for c in doc["ceilings"] if c.get("level") == "hbm")


@pytest.fixture(scope="module")
def _two_h200s_read_once(tmp_path_factory):
    folder = tmp_path_factory.mktemp("two-h200s")
    reports = [as_profiled_on(folder, 0), as_profiled_on(folder, 1)]
    return load_run(reports, LoadOptions(ceilings=(GPU1, GPU0)))  # matched by device index, not by order


@pytest.fixture
def two_h200s(_two_h200s_read_once):
    """The two-H200 run, read once per module (three tests read it); a copy of its own per test."""
    return copy.deepcopy(_two_h200s_read_once)


def test_two_h200s_each_get_the_ceilings_measured_on_them(two_h200s):
    run = two_h200s
    assert run.devices == ["NVIDIA H200 [device 0]", "NVIDIA H200 [device 1]"]
    for label, path in zip(run.devices, (GPU0, GPU1)):
        hbm = run.ceilings_for(label).bandwidth("hbm")
        assert (hbm.value, hbm.source, hbm.origin) == (file_hbm(path), "file", str(path))
    assert file_hbm(GPU0) != file_hbm(GPU1)  # 4.6727 and 4.6700 TB/s


def test_every_point_headroom_and_bound_uses_its_own_gpus_roofs(two_h200s):
    run = two_h200s
    for label, path in zip(run.devices, (GPU0, GPU1)):
        own = load_ceilings(path)
        kernels = run.kernels[run.kernels["device"] == label].set_index("name")
        assert len(kernels) == 15
        daxpy = kernels.loc["daxpy"]
        assert daxpy["bound"] == "HBM"
        assert daxpy["roof_hbm"] == pytest.approx(daxpy["ai_hbm"] * own.bandwidth("hbm").value, rel=1e-12)
        fma = kernels.loc["fma_loop<double>"]
        assert fma["bound"] == "FP64"
        # its compute roof mixes the pipelines it used (the FP64 loop also shows one HFMA2.MMA
        # register move per thread): FLOPs / Σ FLOPs_p / P_p
        seconds_at_peak = sum(fma[f"flops_{p}"] / own.compute(p).value for p in ("fp64", "fp32", "fp16"))
        roof = fma["flops"] / seconds_at_peak
        assert fma["roof_fraction"] == pytest.approx(fma["flop_rate"] / roof, rel=1e-12)
    groups = grouped_kernels(run)
    assert (groups["name"] == "daxpy").sum() == 2  # kept apart, each against its own roofs
    for _, group in groups[groups["name"] == "daxpy"].iterrows():
        hbm = run.ceilings_for(group["device"]).bandwidth("hbm").value
        assert group["roof_hbm"] == pytest.approx(group["ai_hbm"] * hbm, rel=1e-12)


def test_json_keeps_ceilings_for_the_first_gpu_and_adds_them_per_gpu(two_h200s):
    run = two_h200s
    doc = json.loads(json.dumps(to_json(run, run.kernels)))
    assert doc["ceilings"] == doc["ceilings_by_device"]["NVIDIA H200 [device 0]"]
    assert list(doc["ceilings_by_device"]) == run.devices
    hbm = {
        label: next(c["value"] for c in roofs if c.get("level") == "hbm")
        for label, roofs in doc["ceilings_by_device"].items()
    }
    assert hbm == {"NVIDIA H200 [device 0]": file_hbm(GPU0), "NVIDIA H200 [device 1]": file_hbm(GPU1)}
    assert [d["name"] for d in doc["devices"]] == run.devices


def test_an_h100_and_an_h200_each_get_their_own_sources(tmp_path):
    reports = [as_profiled_on(tmp_path, 0), as_profiled_on(tmp_path, 1, "NVIDIA H100 80GB HBM3")]
    run = load_run(reports)
    h200, h100 = run.ceilings_for("NVIDIA H200"), run.ceilings_for("NVIDIA H100 80GB HBM3")
    assert {c.source for c in h200.ceilings} == {"bundled"}
    assert h100.bandwidth("hbm").source == "report" and h100.bandwidth("l1").caveat
    doc = to_json(run, run.kernels)
    assert {c["source"] for c in doc["ceilings_by_device"]["NVIDIA H100 80GB HBM3"]} >= {"report"}
    both = run.kernels.set_index(["device", "name"])
    on_h200, on_h100 = both.loc[("NVIDIA H200", "daxpy")], both.loc[("NVIDIA H100 80GB HBM3", "daxpy")]
    assert on_h200["roof_hbm"] / on_h100["roof_hbm"] == pytest.approx(
        h200.bandwidth("hbm").value / h100.bandwidth("hbm").value, rel=1e-12
    )


def test_one_ceilings_file_still_applies_to_every_gpu(tmp_path):
    run = load_run([as_profiled_on(tmp_path, 0), as_profiled_on(tmp_path, 1)], LoadOptions(ceilings=GPU1))
    assert {run.ceilings_for(label).bandwidth("hbm").value for label in run.devices} == {file_hbm(GPU1)}
