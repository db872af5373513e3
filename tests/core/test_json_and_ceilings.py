"""The JSON contract of `rooftui summary` and the ceilings files it accepts."""

import json

import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.errors import CeilingsError
from rooftui.ingest.ceilings import load_ceilings
from rooftui.model.ceilings import Ceiling, CeilingSet, Device
from tests.conftest import KNOWN, run_cli
from tests.sample_variants import without_peaks

BASE = KNOWN / "known_answer.raw-base.csv"


def test_summary_json_keeps_the_documented_keys(expected):
    result = run_cli("summary", BASE, "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["device"] == {"name": "NVIDIA H200", "cc": "9.0"}
    assert {"name", "kind", "value", "method"} <= set(doc["ceilings"][0])
    kernel = next(k for k in doc["kernels"] if k["name"] == "wmma_gemm")
    assert {
        "id",
        "name",
        "demangled",
        "time_s",
        "flops",
        "bytes",
        "ai",
        "pipeline",
        "zero_ai",
        "phase",
        "phase_inferred",
        "nvtx",
    } <= set(kernel)
    assert kernel["flops"]["tensor"] == 137_438_953_472
    assert set(kernel["flops"]) >= {"fp64", "fp32", "fp16", "tensor"}
    assert set(kernel["bytes"]) == set(kernel["ai"]) == {"l1", "l2", "hbm", "smem"}
    assert kernel["bytes"]["smem"] is None and kernel["ai"]["smem"] is None  # not collected: null, never 0
    assert kernel["demangled"] == "wmma_gemm(int, const __half *, const __half *, float *)"
    assert doc["summary"]["kernels"] == len(expected) and doc["summary"]["zero_ai"] == 1
    assert set(doc["summary"]) >= {"kernels", "zero_ai", "zero_ai_time_share", "phases"}


def test_summary_csv_has_one_row_per_invocation_or_group(expected):
    rows = run_cli("summary", BASE, "--format", "csv").stdout.strip().splitlines()
    assert len(rows) == len(expected) + 1 and rows[0].startswith("id,report,device")
    grouped = run_cli("summary", BASE, "--format", "csv", "--group").stdout.strip().splitlines()
    assert len(grouped) == len(expected) + 1 and ",count," in grouped[0]


def test_summary_table_fits_eighty_columns():
    result = run_cli("summary", BASE)
    assert result.returncode == 0
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert "wmma_gemm" in result.stdout and "Zero-AI" in result.stdout


def test_rooftui_ceilings_file_round_trips_and_takes_precedence(tmp_path):
    ceilings = CeilingSet(
        Device("NVIDIA H200", "9.0", 132, {"sm": 1.98e9}),
        (
            Ceiling("FP64 FMA", "compute", 6.5e13, "empirical", precision="fp64"),
            Ceiling("HBM", "bandwidth", 4.4e12, "empirical", level="hbm", extra={"curve": [[1e9, 4.4e12]]}),
        ),
        source="test",
    )
    path = tmp_path / "ceil.json"
    path.write_text(json.dumps(ceilings.to_dict()))
    loaded = load_ceilings(path)
    assert loaded == ceilings
    assert loaded.bandwidth("hbm").extra["curve"] == [[1e9, 4.4e12]]
    run = load_run([BASE], LoadOptions(ceilings=path))
    assert run.ceilings.compute("fp64").method == "empirical"
    assert run.ceilings.compute("fp64").source == "file"
    # not in the file: the H200 measurement bundled with rooftui, then the report's peak
    assert run.ceilings.compute("fp32").source == "bundled"
    without_measured = load_run([BASE], LoadOptions(ceilings=path, find_measured=False))
    assert without_measured.ceilings.compute("fp32").method == "report"
    daxpy = run.kernels.set_index("name").loc["daxpy"]
    assert daxpy["roof_hbm"] == pytest.approx(daxpy["ai_hbm"] * 4.4e12)


def test_ert_roofline_json_is_read(tmp_path):
    path = tmp_path / "roofline.json"
    path.write_text(
        json.dumps(
            {
                "empirical": {
                    "gbytes": {"data": [["L1", 12000.0], ["L2", 5500.0], ["DRAM", 4300.0]]},
                    "gflops": {
                        "data": [
                            ["FP64 GFLOPs", 64000.0],
                            ["Tensor BF16 GFLOPs", 940000.0],
                            ["TF32 GFLOPs", 485000.0],
                            ["INT8 Tensor GOPs", 1930000.0],
                            ["FP32 GFLOPs", 65000.0],
                        ]
                    },
                }
            }
        )
    )
    ceilings = load_ceilings(path)
    assert ceilings.bandwidth("hbm").value == 4.3e12
    assert ceilings.bandwidth("l2").value == 5.5e12
    assert ceilings.compute("fp64").value == 6.4e13
    assert ceilings.compute("fp32").value == 6.5e13
    assert ceilings.compute("tensor_bf16").value == 9.4e14
    assert ceilings.compute("tensor_tf32").value == 4.85e14
    assert ceilings.compute("tensor_int8").value == 1.93e15


def test_ceilings_file_errors_name_the_entry(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"ceilings": [{"kind": "bandwidth", "level": "l9", "value": 1}]}))
    with pytest.raises(CeilingsError, match=r"ceilings\[0\].*level"):
        load_ceilings(path)


def test_without_a_file_the_report_peaks_are_used(load_once):
    ceilings = load_once(BASE, find_measured=False).ceilings
    fp32 = ceilings.compute("fp32")
    assert fp32.method == "report"
    clock = fp32.value / (16_896 * 2)
    # 16,896 FFMA/cycle (132 SMs × 128) × 2 FLOPs × the SM clock the kernels ran at
    assert 1.8e9 < clock < 2.0e9
    # Tensor peaks: the counters' peak is the sparse rate, dense is half of it
    assert ceilings.compute("tensor_fp16").value == pytest.approx(1_081_344 / 2 * clock, rel=0.01)
    assert ceilings.compute("tensor_fp64").value == pytest.approx(33_792 * clock, rel=0.01)
    # 1,504 B/cycle at the 3.2 GHz memory clock
    assert ceilings.bandwidth("hbm").value == pytest.approx(4.81e12, rel=0.01)
    assert ceilings.bandwidth("hbm").method == "report"


def test_without_peaks_in_the_report_the_datasheet_fills_in(tmp_path):
    ceilings = load_run([without_peaks(tmp_path)], LoadOptions(find_measured=False)).ceilings
    assert ceilings.compute("fp32").method == "report"
    assert ceilings.compute("tensor_fp16").method == "spec"
    assert ceilings.compute("tensor_fp16").value == 989.4e12
    assert ceilings.bandwidth("hbm").method == "spec"
