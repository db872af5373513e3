"""The shared-memory level against kernels whose traffic is known by construction
(kernels/known_answer/shared_memory, profiled on an H200): each kind of shared-memory
traffic exact to the byte where the kernel fixes it, within the stated tile rule where
only the kernel's name does (cuBLAS picks its wgmma shape)."""

import csv
import json
import runpy
from types import SimpleNamespace

import numpy as np
import pandas as pd

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.model import shared_memory as smem
from rooftui.model.metrics import architecture_for, required_metrics
from rooftui.views.tui.roofline_model import build_figure
from tests.conftest import KNOWN, ROOT

HERE = KNOWN / "shared_memory"
SASS = "smsp__sass_data_bytes_mem_shared_op_"
# Each kind of traffic (expected.KINDS) as ncu counts it (model.shared_memory).
COUNTERS = {
    "lsu_load": (f"{SASS}ld.sum", f"{SASS}ldsm.sum"),
    "lsu_store": (f"{SASS}st.sum", f"{SASS}stsm.sum"),
    "gmma": (smem.WGMMA_READS,),
    "tma_load": (smem.TMA_LOADS,),
    "tma_store": (smem.TMA_STORES,),
    "ldgsts": (smem.CP_ASYNC_WRITES,),
}


# the committed script that derives the bytes from the kernels' parameters, not a profile
expected = SimpleNamespace(**runpy.run_path(str(ROOT / "kernels/known_answer/shared_memory/expected.py")))


def counted(name: str) -> dict[str, dict[str, int]]:
    """Per kernel of a committed profile, ncu's bytes of each kind."""
    raw = pd.read_csv(HERE / name, skiprows=[1], thousands=",", low_memory=False)
    return {
        row["Kernel Name"]: {kind: sum(int(row[c]) for c in columns) for kind, columns in COUNTERS.items()}
        for _, row in raw.iterrows()
    }


def kernels(load_once, name: str) -> pd.DataFrame:
    """The kernel table of a committed profile, by demangled name (``load_once``: read once
    per worker, a copy of its own per caller)."""
    return load_once(HERE / name).kernels.set_index("demangled")


def test_every_known_answer_kernels_shared_memory_bytes_are_exact(load_once):
    answers = expected.known_answer_bytes(json.loads((HERE / "params.json").read_text()))
    seen = counted("shared_memory.raw-base.csv")
    assert set(seen) == set(answers)
    table = kernels(load_once, "shared_memory.raw-base.csv")
    for name, kinds in answers.items():
        assert seen[name] == kinds, name
        assert table.loc[name, "bytes_smem"] == sum(kinds.values()), name
        assert table.loc[name, "bytes_tma"] == kinds["tma_load"], name


def test_bank_conflicts_change_wavefronts_never_bytes(load_once):
    raw = pd.read_csv(HERE / "shared_memory.raw-base.csv", skiprows=[1], thousands=",").set_index(
        "Kernel Name"
    )
    waves = raw["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
    assert waves["smem_conflict"] == 8 * waves["smem_words"]  # 32 per 16-byte access, 4 without conflict
    table = kernels(load_once, "shared_memory.raw-base.csv")
    assert table.loc["smem_conflict", "bytes_smem"] == table.loc["smem_words", "bytes_smem"]


def test_a_cublas_gemms_tma_and_epilogue_bytes_are_its_tiles_and_its_wgmma_reads_within_the_tile_rule(
    load_once,
):
    shapes = json.loads((HERE / "shapes.json").read_text())["gemm"]
    seen = counted("gemm_attention.raw-base.csv")
    name = next(n for n in seen if n.startswith("nvjet"))
    bm, bn, _ = expected.gemm_tile(name)
    least = expected.gemm_bytes(shapes["m"], shapes["n"], shapes["k"], bm, bn, wgmma_n=min(bn, 256))
    most = expected.gemm_bytes(shapes["m"], shapes["n"], shapes["k"], bm, bn, wgmma_n=64)
    got = seen[name]
    assert got["tma_load"] == least["tma_load"]  # multicast copies counted per receiving SM
    assert got["tma_store"] == least["tma_store"]
    assert least["gmma"] <= got["gmma"] <= most["gmma"]
    # the C tile passes through shared memory once (STSM); cuBLAS's own few words beside it
    # (tile scheduler, barriers) stay under 0.1% of the kernel's shared-memory bytes
    tile_bytes = sum(least[k] for k in ("tma_load", "tma_store", "lsu_store")) + got["gmma"]
    assert got["lsu_store"] >= least["lsu_store"]
    assert got["lsu_load"] + got["lsu_store"] - least["lsu_store"] < 1e-3 * tile_bytes
    assert kernels(load_once, "gemm_attention.raw-base.csv").loc[name, "bytes_smem"] == sum(got.values())


def test_flash_attention_2s_cp_async_and_ldmatrix_bytes_are_its_tiles():
    shapes = json.loads((HERE / "shapes.json").read_text())["attention"]
    seen = counted("gemm_attention.raw-base.csv")
    name = next(n for n in seen if "flash_fwd_kernel" in n)
    head_dim, block_m, block_n, warps = expected.flash_tile(name)
    assert head_dim == shapes["head_dim"]
    answer = expected.flash_fwd_bytes(
        shapes["batch"], shapes["heads"], shapes["seq"], head_dim, block_m, block_n, warps
    )
    assert seen[name] == answer


def test_every_gemm_of_a_gpt_step_has_its_smem_point_in_the_range_its_tile_allows(load_once):
    table = kernels(load_once, "gpt_step.raw-base.csv.xz")
    gemms = table[table.index.str.startswith("nvjet")]
    assert len(gemms) == 15
    for name, row in gemms.iterrows():
        least, most = expected.gemm_ai_range(*expected.gemm_tile(name)[:2])
        assert least <= row["ai_smem"] <= most, (name, least, row["ai_smem"], most)
        assert 10 <= least and most <= 300  # a few tens to a few hundred FLOP/byte


def test_no_l1_point_beyond_1e4_goes_unexplained(load_once):
    for name in ("gpt_step.raw-base.csv.xz", "gemm_attention.raw-base.csv"):
        table = kernels(load_once, name)
        far = table["ai_l1"] > 1e4
        assert far.any() and table.loc[far, "l1_bypassed"].all(), name
        # every TMA kernel, GEMM and attention alike, is marked; no other kernel is
        assert (table["l1_bypassed"] == (table["bytes_tma"] > 0)).all(), name


def test_old_reports_without_tma_counters_mark_tensor_kernels_whose_l1_saw_a_tenth_of_l2(load_once):
    run = load_once(ROOT / "sample_data/multigpu/single_gpu.raw.csv.xz")
    table = run.kernels
    assert table["bytes_tma"].isna().all() and table["bytes_smem"].isna().all()
    marked = table[table["l1_bypassed"]]
    assert len(marked) and (marked["flops_tensor"] > 0).all()
    assert (marked["bytes_l2"] >= smem.L1_BYPASS_RATIO * marked["bytes_l1"]).all()
    assert not (table.loc[~table["l1_bypassed"], "ai_l1"] > 1e4).any()


def test_the_roofline_draws_bypassed_l1_points_on_the_right_edge_not_at_1e7(load_once):
    run = load_once(HERE / "gpt_step.raw-base.csv.xz")
    table = run.kernels
    figure = build_figure(table, next(iter(run.ceilings_by_device.values())), pipelines=["tensor_bf16"])
    edge = [s for s in figure.points if s.emphasis == "bypassed"]
    assert len(edge) == 1 and edge[0].level == "l1"
    assert len(edge[0].xs) == int(table["l1_bypassed"].sum())
    assert np.all(edge[0].xs == figure.x_range[1])
    assert figure.x_range[1] <= 4  # the axis ends near the SMEM and L2 points, not at 1e7
    others = [s for s in figure.points if s.level == "l1" and s.emphasis != "bypassed"]
    assert all(len(set(s.kernels) & set(edge[0].kernels)) == 0 for s in others)
    assert "L1 bypassed (TMA) on the right edge" in figure.note


def test_a_report_that_has_only_ncus_lsu_total_says_its_smem_bytes_are_loads_and_stores_only(tmp_path):
    raw = pd.read_csv(HERE / "shared_memory.raw-base.csv", header=None, dtype=str, keep_default_na=False)
    path = tmp_path / "lsu_only.raw-base.csv"
    raw.loc[:, ~raw.iloc[0].isin(smem.HOPPER_TERMS)].to_csv(
        path, header=False, index=False, quoting=csv.QUOTE_ALL
    )
    run = load_run([path], LoadOptions())
    row = run.kernels.set_index("name").loc["wgmma_bf16"]
    assert row["bytes_smem"] == 1_622_016  # the stores that fill the tiles; wgmma's reads unseen
    assert row["bytes_smem_source"] == smem.LSU_ONLY_WHAT
    assert any(smem.LSU_ONLY_WHAT in str(note) for note in run.notes)


def test_smem_not_collected_is_blank_with_no_note_and_never_zero(load_once):
    run = load_once(KNOWN / "known_answer.raw-base.csv")
    assert run.kernels["bytes_smem"].isna().all() and run.kernels["ai_smem"].isna().all()
    assert not any("smem" in str(note).lower() or "shared" in str(note).lower() for note in run.notes)


def test_rooftui_profile_collects_the_smem_counters_on_hopper_only():
    assert set(smem.HOPPER_TERMS) <= set(required_metrics(architecture_for("9.0")))
    for cc in ("7.0", "8.0", "8.9", "10.0"):  # unchecked there: a name ncu lacks fails the run
        assert not set(smem.HOPPER_TERMS) & set(required_metrics(architecture_for(cc))), cc


def without_smem_counters(tmp_path, name: str):
    raw = pd.read_csv(HERE / name, header=None, dtype=str, keep_default_na=False)
    gone = set(smem.HOPPER_TERMS) | {smem.LSU_TOTAL, smem.WGMMA_READS}
    path = tmp_path / name.replace(".xz", "")
    raw.loc[:, ~raw.iloc[0].isin(gone)].to_csv(path, header=False, index=False, quoting=csv.QUOTE_ALL)
    return path


def test_smem_decides_no_binding_roof_since_gemms_run_past_its_lds_roof(tmp_path, load_once):
    table = kernels(load_once, "gpt_step.raw-base.csv.xz")
    gemms = table[table.index.str.startswith("nvjet")]
    assert (gemms["roof_fraction_smem"] > 1.0).any()  # wgmma + TMA traffic past the LDS roof
    before = load_run([without_smem_counters(tmp_path, "gpt_step.raw-base.csv.xz")], LoadOptions()).kernels
    assert before["bytes_smem"].isna().all()
    assert before["bound"].tolist() == table["bound"].tolist()
    assert before["roof_fraction"].equals(table.reset_index()["roof_fraction"])
