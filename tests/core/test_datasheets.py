"""#28: datasheet roofs go to the exact GPU model ncu names, never to a similar name's.

Each expected number is typed from NVIDIA's public datasheet named in the row
(rooftui.model.spec.DATASHEETS), not read back from the table.
"""

from __future__ import annotations

import pytest

from rooftui.analysis.ceilings import choose_ceilings, source_text
from rooftui.model.spec import datasheet_for, spec_ceilings

T = 1e12


def _peaks(name: str) -> dict[str, float]:
    found = spec_ceilings(name)
    assert found is not None, name
    return {c.precision or c.level or "": c.value for c in found.ceilings}


def test_h100_pcie_gets_the_pcie_datasheet_not_the_sxm_one():
    peaks = _peaks("NVIDIA H100 PCIe")
    assert peaks["fp32"] == 51.2 * T and peaks["fp64"] == 25.6 * T
    assert peaks["tensor_fp16"] == 756 * T and peaks["hbm"] == 2.0e12
    sxm = _peaks("NVIDIA H100 80GB HBM3")
    assert sxm["fp32"] == 67 * T and sxm["tensor_fp16"] == 989.4 * T and sxm["hbm"] == 3.35e12


@pytest.mark.parametrize(
    ("name", "bandwidth"),
    [
        ("NVIDIA A100-PCIE-40GB", 1555e9),
        ("NVIDIA A100-SXM4-40GB", 1555e9),
        ("NVIDIA A100 80GB PCIe", 1935e9),
        ("NVIDIA A100-SXM4-80GB", 2039e9),
        ("A100-SXM4-40GB", 1555e9),  # older drivers print no "NVIDIA"
        ("Tesla V100-SXM2-16GB", 900e9),
        ("Tesla T4", 320e9),
        ("NVIDIA A40", 696e9),
        ("NVIDIA L4", 300e9),
        ("NVIDIA H200", 4.8e12),
    ],
)
def test_memory_bandwidth_follows_form_factor_and_memory_size(name, bandwidth):
    assert _peaks(name)["hbm"] == bandwidth


def test_gh200_is_not_an_h200_and_gets_no_dram_roof_it_cannot_name():
    sheet = datasheet_for("NVIDIA GH200 120GB")
    assert sheet is not None and sheet.model == "NVIDIA GH200 Grace Hopper"
    peaks = _peaks("NVIDIA GH200 480GB")
    assert "hbm" not in peaks and peaks["fp64"] == 34 * T


@pytest.mark.parametrize(
    "name",
    [
        "NVIDIA H100",
        "NVIDIA H20",
        "NVIDIA A100",
        "NVIDIA A10G",
        "NVIDIA GeForce RTX 3080",
        "NVIDIA H100 PCIe 2",
    ],
)
def test_a_model_not_in_the_table_gets_no_datasheet_roofs_and_is_told(name):
    assert spec_ceilings(name) is None
    notes: list[str] = []
    import pandas as pd

    chosen = choose_ceilings(pd.DataFrame({"x": [1.0]}), name, "9.0", None, find_measured=False, notes=notes)
    assert not chosen.ceilings
    assert any(note.startswith(f"no datasheet row for {name!r}") for note in notes)


def test_the_matched_row_is_named_where_the_ceilings_are_shown():
    import pandas as pd

    chosen = choose_ceilings(
        pd.DataFrame({"x": [1.0]}), "NVIDIA A100-PCIE-40GB", "8.0", None, find_measured=False
    )
    hbm = chosen.bandwidth("hbm")
    assert hbm is not None and source_text(hbm) == "datasheet NVIDIA A100 PCIe 40GB"
    assert hbm.to_dict()["datasheet_source"].startswith("NVIDIA A100 Tensor Core GPU datasheet")


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("NVIDIA H100 NVL", "NVIDIA H100 NVL"),
        ("NVIDIA H200 NVL", "NVIDIA H200 NVL"),
        ("NVIDIA GH200 480GB", "NVIDIA GH200 Grace Hopper"),
    ],
)
def test_rows_no_nvidia_document_confirmed_say_unverified_wherever_their_roofs_are_shown(name, model):
    import pandas as pd

    chosen = choose_ceilings(pd.DataFrame({"x": [1.0]}), name, "9.0", None, find_measured=False)
    fp32 = chosen.compute("fp32")
    assert fp32 is not None and source_text(fp32) == f"datasheet {model} (unverified)"
    stamp = fp32.to_dict()
    assert stamp["datasheet_verified"] is False and stamp["datasheet_source"].startswith("unverified: ")


def test_rows_checked_against_nvidia_documents_carry_no_unverified_mark():
    for name in ("NVIDIA H100 PCIe", "NVIDIA H200", "NVIDIA A100-SXM4-80GB", "Tesla T4"):
        found = spec_ceilings(name)
        assert found is not None
        for ceiling in found.ceilings:
            assert ceiling.extra["datasheet_verified"] is True
            assert "unverified" not in ceiling.extra["datasheet"] + ceiling.extra["datasheet_source"]
