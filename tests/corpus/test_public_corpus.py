"""The public corpus itself (docs/corpus.md), where it has been fetched.

``python -m tests.corpus.fetch_public DEST`` takes every file of ``public_corpus.json``
from its repository; ``ROOFTUI_CORPUS=DEST python -m pytest tests/corpus`` then checks
that each loads or is refused with one line, and the answers known without rooftui: the
launch counts ncu_report finds, a GEMM's analytic FLOP count, the paper's own notebook
table of the same run, the failed replays ncu_report shows with every metric blank.
Without ROOFTUI_CORPUS these tests are skipped (the files are not rooftui's to commit);
tests/corpus/test_corpus_fixtures.py checks every layout they taught, always.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_cli

MANIFEST = json.loads(Path(__file__).with_name("public_corpus.json").read_text())
CORPUS = Path(os.environ["ROOFTUI_CORPUS"]) if os.environ.get("ROOFTUI_CORPUS") else None
pytestmark = pytest.mark.skipif(
    CORPUS is None,
    reason="ROOFTUI_CORPUS not set (python -m tests.corpus.fetch_public DEST fetches the public corpus)",
)
KNOWN = {entry["file"]: entry for entry in MANIFEST if "known" in entry}


# The paper's runs name no device; the paper ran them on NERSC's Cori-GPU, whose V100s are
# SXM2 with 16 GB (docs.nersc.gov/cgpu/hardware): that exact model gets the paper's own
# measured roofs (rooftui.model.published). "--gpu V100" alone could be the PCIe part.
PAPER_GPU = "Tesla V100-SXM2-16GB"


def _options(entry: dict) -> list[str]:
    return ["--gpu", PAPER_GPU] if entry["repo"] == "cyanguwa/DeepLearningProfiling" else []


def _summary(entry: dict):
    assert CORPUS is not None
    return run_cli("summary", "--format", "json", "--no-cache", *_options(entry), CORPUS / entry["file"])


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["file"] for entry in MANIFEST])
def test_every_public_file_loads_or_is_refused_in_one_line(entry):
    result = _summary(entry)
    if entry["outcome"] == "refused":
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
        return
    assert result.returncode == 0, result.stderr
    kernels = json.loads(result.stdout)["kernels"]
    if entry["file"].endswith(".ncu-rep") and entry.get("launches"):
        assert len(kernels) == entry["launches"]  # every launch ncu_report reads, failed replays too


def _rows(entry_name: str) -> list[dict]:
    result = _summary(KNOWN[entry_name])
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["kernels"]


def test_hand_written_sgemms_count_2n3_fp32_flops_plus_their_epilogue():
    entry = KNOWN["AveryClapp+ESMM-Research/metrics.csv"]
    n = entry["known"]["sgemm_n"]
    for kernel in _rows(entry["file"])[: len(entry["known"]["hand_written_ids"])]:
        # n³ FFMA in the inner loop (the source), and at most one FMUL/FADD per element after it
        assert kernel["flops"]["fp32"] in (2 * n**3, 2 * n**3 + n**2), kernel["name"]


def test_the_papers_run_matches_its_own_notebook_table():
    import pandas as pd

    entry = KNOWN["cyanguwa+DeepLearningProfiling/TF-fp32-batch1-fw-noamp-732370"]
    assert CORPUS is not None
    peer = pd.read_csv(CORPUS / Path(entry["file"]).parent / entry["known"]["peer_table"])
    result = run_cli(
        "summary",
        "--format",
        "json",
        "--no-cache",
        "--gpu",
        "V100",
        "--fp16-rule",
        "paper",
        CORPUS / entry["file"],
    )
    kernels = json.loads(result.stdout)["kernels"]
    assert len(kernels) == entry["known"]["kernel_names"] == len(peer)
    assert sum(k["launches"] for k in kernels) == entry["known"]["launches"] == peer["Count"].sum()
    cuda_core = sum((k["flops"]["fp32"] or 0) + (k["flops"]["fp16"] or 0) for k in kernels)
    assert cuda_core == peer["CC FLOPs"].sum()  # to the unit
    levels = (("hbm", "dram__bytes.sum"), ("l2", "lts__t_bytes.sum"), ("l1", "l1tex__t_bytes.sum"))
    for level, column in levels:
        assert sum(k["bytes"][level] for k in kernels) == peer[column].sum(), level
    assert sum(k["time_s"] for k in kernels) == pytest.approx(peer["Time"].sum(), rel=1e-12)


@pytest.mark.parametrize("name", [n for n, e in KNOWN.items() if "failed_replay_id" in e["known"]])
def test_failed_replays_are_named(name):
    entry = KNOWN[name]
    failed = entry["known"]["failed_replay_id"]
    result = _summary(entry)
    if entry["outcome"] == "refused":
        assert f"ID {failed}," in result.stderr and "every metric blank" in result.stderr
        return
    assert result.returncode == 0
    note = next(n for n in json.loads(result.stdout)["notes"] if "every metric blank" in n)
    assert f"ID {failed} (" in note


@pytest.mark.parametrize("name", [n for n, e in KNOWN.items() if "fp32_flops" in e["known"]])
def test_sgemm_with_alpha_beta_epilogue_counts_2n3_plus_3n2(name):
    n = KNOWN[name]["known"]["sgemm_n"]
    for kernel in _rows(name):
        assert kernel["flops"]["fp32"] == 2 * n**3 + 3 * n**2, kernel["name"]


@pytest.mark.parametrize("entry", [e for e in MANIFEST if e["repo"] == "cyanguwa/DeepLearningProfiling"])
def test_the_papers_runs_bind_on_the_papers_roofs_unless_fp64_was_not_collected(entry):
    """With the paper's measured roofs every level has one, so a launch lacks a bound only
    where the FP64 counters the runs did not collect could change it."""
    result = _summary(entry)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    sources = {c["source"] for ceilings in out["ceilings_by_device"].values() for c in ceilings}
    assert sources == {"published"}
    for kernel in out["kernels"]:
        if not kernel["bound"]:
            assert kernel["bound_reason"].startswith("FLOP total partial (FP64 not collected)"), kernel


@pytest.mark.parametrize("name", [n for n, e in KNOWN.items() if "tensor_uncounted_ids" in e["known"]])
def test_tensor_core_work_the_report_cannot_count_is_never_zero_ai(name):
    """The A40 int4 beamformer (IMMA 54% busy) and CUTLASS's int8/int4 IMMA GEMMs on an A100:
    Tensor work is present (ncu's own pipe counters), its amount is not in the report."""
    kernels = {k["id"]: k for k in _rows(name)}
    for launch in KNOWN[name]["known"]["tensor_uncounted_ids"]:
        kernel = kernels[launch]
        assert kernel["pipeline"] == "tensor_uncounted" and kernel["zero_ai"] is False, kernel["name"]
        assert kernel["flops"]["tensor"] is None and kernel["flops"]["tensor_int8_ops"] is None
        assert kernel["flops_partial"] and not kernel["bound"]


@pytest.mark.parametrize("name", [n for n, e in KNOWN.items() if "fp32_flops_by_kernel" in e["known"]])
def test_reference_gemm_fp32_flops_are_what_its_source_does(name):
    expected = KNOWN[name]["known"]["fp32_flops_by_kernel"]
    found = {k["name"]: k["flops"]["fp32"] for k in _rows(name) if k["name"] in expected}
    assert found == expected  # to the unit: 2 x 384^3 for the float reference, 0 for the integer one


@pytest.mark.parametrize("name", [n for n, e in KNOWN.items() if "datasheet_row" in e["known"]])
def test_datasheet_roofs_come_from_the_exact_models_row_or_none(name):
    """A40, A100 80GB PCIe and GH200 120GB get their own rows; H800, RTX 3080, RTX 2060 Max-Q
    and GTX 1660 SUPER have none in the table, so no datasheet roof at all (never a similar
    name's); a V100-SXM2-16GB has the paper's published measurements for every roof."""
    result = _summary(KNOWN[name])
    assert result.returncode == 0, result.stderr
    ceilings = json.loads(result.stdout)["ceilings_by_device"]
    rows = {c.get("datasheet") for cs in ceilings.values() for c in cs if c["source"] == "datasheet"}
    expected = KNOWN[name]["known"]["datasheet_row"]
    assert rows == ({expected} if expected else set())


@pytest.mark.parametrize("name", [n for n, e in KNOWN.items() if "l2_bytes_by_id" in e["known"]])
def test_l1_and_l2_bytes_are_the_kernels_own_stores_not_other_units_traffic(name):
    """aplainjane's shared-memory demo on an RTX 3060 Laptop: lts__t_sectors reads 10.9x the
    L1-requested sectors (instruction, constant and other units' traffic after ncu's cache
    flush); rooftui's L2 bytes are lts__t_sectors_srcunit_tex x 32, the 4096 bytes each
    32x32 block stores, to the byte."""
    known = KNOWN[name]["known"]
    kernels = {str(k["id"]): k for k in _rows(name)}
    assert {i: kernels[i]["bytes"]["l2"] for i in known["l2_bytes_by_id"]} == known["l2_bytes_by_id"]
    assert {i: kernels[i]["bytes"]["l1"] for i in known["l1_bytes_by_id"]} == known["l1_bytes_by_id"]


@pytest.mark.parametrize("name", [n for n, e in KNOWN.items() if "fp32_flops_by_id" in e["known"]])
def test_tree_reduction_fp32_flops_are_255_per_block(name):
    expected = KNOWN[name]["known"]["fp32_flops_by_id"]
    kernels = {str(k["id"]): k for k in _rows(name)}
    assert {i: kernels[i]["flops"]["fp32"] for i in expected} == expected  # to the unit
