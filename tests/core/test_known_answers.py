"""The known-answer kernels (kernels/known_answer), profiled on an H200, pin every
formula: FLOPs exactly, L1 and L2 bytes exactly, HBM bytes within the L2's reach."""

import copy
import csv
import json
import lzma

import pytest

from rooftui.analysis import load_run
from rooftui.model.byte_sources import L2_FROM_L1, L2_FROM_L1_WHAT
from tests.conftest import KNOWN

EXACT_FORMS = ["known_answer.raw-base.csv"]
ALL_FORMS = ["known_answer.raw-base.csv", "known_answer.raw.csv", "known_answer.details.csv"]
L2_BYTES = 62_914_560  # device__attribute_l2_cache_size of the H200


def by_name(run):
    return {row["name"]: row for row in run.kernels.to_dict("records")}


@pytest.mark.parametrize("form", ALL_FORMS)
def test_every_known_answer_kernel_has_its_exact_flops_in_every_export(form, expected, load_once):
    rows = by_name(load_once(KNOWN / form))
    assert set(rows) == set(expected)
    for name, answer in expected.items():
        row = rows[name]
        assert row["flops_fp64"] == answer["flops_fp64"], name
        assert row["flops_fp32"] == answer["flops_fp32"], name
        if answer["pipeline"] != "tensor_int8":
            assert row["flops_tensor"] == answer["flops_tensor"], name
        assert row["pipeline"] == answer["pipeline"], name


def test_wmma_gemm_4096_cubed_is_2mnk_tensor_flops_not_the_volta_rule(expected, load_once):
    row = by_name(load_once(KNOWN / "known_answer.raw-base.csv"))["wmma_gemm"]
    assert row["flops_tensor_fp16"] == 2 * 4096**3 == 137_438_953_472
    assert row["flops"] == 137_438_953_472


def test_each_tensor_source_type_lands_in_its_own_pipeline(load_once):
    rows = by_name(load_once(KNOWN / "known_answer.raw-base.csv"))
    assert rows["wmma_gemm_bf16"]["flops_tensor_bf16"] == 2 * 1024**3
    assert rows["wmma_gemm_tf32"]["flops_tensor_tf32"] == 2 * 1024**3
    assert rows["wmma_gemm_fp64"]["flops_tensor_fp64"] == 2 * 1024**3
    assert rows["wmma_gemm_int8"]["ops_tensor_int8"] == 2 * 1024**3
    assert rows["wmma_gemm_int8"]["flops"] == 0  # integer operations are not FLOPs


def test_fp16_rule_counts_hfma2_as_four_flops_and_marks_it_approximate(expected, load_once):
    rows = by_name(load_once(KNOWN / "known_answer.raw-base.csv"))
    # BF16 on CUDA cores lands here too: ncu's hfma counter takes HFMA2.BF16.
    for name in ("fma_loop<__half2>", "fma_loop<__half>", "fma_loop<__nv_bfloat162>"):
        assert rows[name]["flops_fp16"] == expected[name]["flops_fp16"]
        assert rows[name]["fp16_approximate"]
    # The FP32 loop's HFMA2.MMA register moves show up as a sliver of "FP16".
    assert 0 < rows["fma_loop<float>"]["flops_fp16"] < 0.01 * rows["fma_loop<float>"]["flops_fp32"]
    assert rows["fma_loop<float>"]["pipeline"] == "fp32"


def test_copy_is_zero_ai_and_everything_else_is_not(load_once):
    rows = by_name(load_once(KNOWN / "known_answer.raw-base.csv"))
    assert rows["copy_f32"]["zero_ai"] and rows["copy_f32"]["pipeline"] == "none"
    assert [n for n, r in rows.items() if r["zero_ai"]] == ["copy_f32"]


def test_reread_kernel_moves_exactly_its_l1_bytes(expected, load_once):
    row = by_name(load_once(KNOWN / "known_answer.raw-base.csv"))["reread_l1"]
    assert row["bytes_l1"] == expected["reread_l1"]["bytes_l1"] == 537_919_488
    assert row["flops_fp32"] == 134_217_728
    # AI counts every FLOP, the 1 HFMA2.MMA register move per thread included
    assert row["ai_l1"] == pytest.approx((134_217_728 + 4 * 262_144) / 537_919_488)
    assert row["bytes_hbm"] < 0.01 * row["bytes_l1"]  # cache resident


@pytest.mark.parametrize("name", ["daxpy", "saxpy", "add_mul", "copy_f32"])
def test_streaming_kernels_move_their_bytes_through_hbm(name, expected, load_once):
    """Reads come from HBM; writes still dirty in the 60 MiB L2 at the end are not counted."""
    row = by_name(load_once(KNOWN / "known_answer.raw-base.csv"))[name]
    minimum = expected[name]["bytes_hbm_min"]
    assert minimum - L2_BYTES <= row["bytes_hbm"] <= 1.02 * minimum


def test_raw_csv_in_both_unit_modes_and_details_agree(expected, load_once):
    base = load_once(KNOWN / "known_answer.raw-base.csv").kernels.set_index("name")
    scaled = load_once(KNOWN / "known_answer.raw.csv").kernels.set_index("name")
    details = load_once(KNOWN / "known_answer.details.csv").kernels.set_index("name")
    # ncu's default units print 6 decimals of the scaled unit (1 kB of a Gbyte);
    # its details page 2 decimals, about 3 significant digits. FLOPs are printed whole.
    for column, last_digit in (("time_s", 1e-9), ("bytes_l1", 1e3), ("bytes_l2", 1e3), ("bytes_hbm", 1e3)):
        assert ((scaled[column] - base[column]).abs() <= last_digit).all(), column
        assert ((details[column] - base[column]).abs() <= 5e-3 * base[column].abs()).all(), column
    assert (scaled["flops"] == base["flops"]).all() and (details["flops"] == base["flops"]).all()


def test_bounds_name_the_roof_a_streaming_and_a_compute_kernel_hit(load_once):
    rows = by_name(load_once(KNOWN / "known_answer.raw-base.csv"))
    assert rows["daxpy"]["bound"] == "HBM"
    assert rows["fma_loop<double>"]["bound"] == "FP64"
    assert 0.9 < rows["fma_loop<double>"]["roof_fraction"] <= 1.0
    assert rows["copy_f32"]["bound"] == "HBM"  # zero-AI: the level it uses most


# ---- L2: the bytes between L1 and L2, counted once (docs/l2-bytes.md) ---------------------
# kernels/known_answer/l2/device_run.sh on the H200 (two L2 partitions); the answers come from
# how the kernels are built (kernels/known_answer/l2/expected.py), written before profiling.
L2 = KNOWN / "l2"
L2_REPORTS = ["l2", "instructions", "known_answer", "tma_bulk"]


def l2_answer(row, answers):
    """The known answer for one launch (by name and grid size); None where L2 reads are not
    fixed by construction (copy_broadcast: every warp of a block reads one sector)."""
    grid = int(row["grid"].strip("()").split(",")[0])
    found = [a for a in answers if a["name"] == row["name"] and a["grid"] in (None, grid)]
    return found[0] if found else None


@pytest.fixture(scope="module")
def l2_answers():
    return json.loads((L2 / "expected.json").read_text())["kernels"]


@pytest.mark.parametrize("report", L2_REPORTS)
def test_l2_bytes_are_what_l1_sent_and_received_once_on_the_two_partition_h200(report, l2_answers, load_once):
    checked = 0
    for row in load_once(L2 / f"{report}.raw-base.csv.xz").kernels.to_dict("records"):
        answer = l2_answer(row, l2_answers)
        if answer is None:
            continue
        read, write = 32 * answer["l2_read_sectors"], 32 * answer["l2_write_sectors"]
        assert row["bytes_l2_source"] == L2_FROM_L1_WHAT, row["name"]
        if row["name"] == "read_sum":
            # one 4-byte store per block, 8 blocks to a sector: L1 merges a few of them
            # (l1tex2xbar_write_sectors 8,187 of 8,192), so only the reads are fixed
            assert read + 0.99 * write <= row["bytes_l2"] <= read + write, row["grid"]
        elif row["name"] == "reread_cg" and answer["footprint_bytes"] < L2_BYTES:
            # re-reads of an L2-resident buffer: 0.44% of them reach L1 without a tex lookup
            assert 0.99 * (read + write) <= row["bytes_l2"] <= read + write
        else:
            assert row["bytes_l2"] == read + write, row["name"]
        checked += 1
    assert checked == {"l2": 8, "instructions": 5, "known_answer": 4, "tma_bulk": 1}[report]


def without_l1_sourced_sectors(path, tmp_path):
    """The same export without the lts__t_sectors_srcunit_tex columns: what a report of
    rooftui before this change, or of ncu's basic set, holds."""
    with lzma.open(path, "rt", encoding="utf-8", newline="") as handle:
        table = list(csv.reader(handle))
    keep = [i for i, name in enumerate(table[0]) if not name.startswith("lts__t_sectors_srcunit_tex")]
    out = tmp_path / path.name.removesuffix(".xz")
    with out.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, quoting=csv.QUOTE_ALL).writerows([[r[i] for i in keep] for r in table])
    return out


@pytest.fixture(scope="module")
def _paper_l2_read_once(tmp_path_factory):
    return load_run([without_l1_sourced_sectors(L2 / "l2.raw-base.csv.xz", tmp_path_factory.mktemp("l2"))])


@pytest.fixture
def paper_l2_run(_paper_l2_read_once):
    """The L2 report without its L1-sourced sector counts (the paper's lts__t_bytes), read
    once per module (two tests read it); a copy of its own per test."""
    return copy.deepcopy(_paper_l2_read_once)


def test_the_papers_lts_t_bytes_counts_far_partition_lookups_twice_and_says_so(paper_l2_run, l2_answers):
    run = paper_l2_run
    ratios = {}
    for row in run.kernels.to_dict("records"):
        answer = l2_answer(row, l2_answers)
        assert row["bytes_l2_source"] == "lts__t_bytes: L2 tag requests"
        ratios[(row["name"], answer["footprint_bytes"])] = row["bytes_l2"] / (
            32 * (answer["l2_read_sectors"] + answer["l2_write_sectors"])
        )
    beyond = [r for (name, size), r in ratios.items() if size > L2_BYTES]
    assert all(1.50 <= r <= 1.53 for r in beyond), ratios  # half the lines live in the far partition
    assert 1.09 <= ratios[("reread_cg", 8 * 2**20)] <= 1.10  # resident: most re-reads hit the near copy
    assert [note.kind for note in run.notes] == ["l2_partitions"]
    assert "8 launch(es)" in run.notes[0] and "lts__t_sectors_srcunit_tex" in run.notes[0]


def test_ncus_own_roofline_l2_traffic_counts_reads_only(l2_answers, load_once):
    """ncu 2025.3's hierarchical roofline plots lts__lts2xbar_cycles_active × 32 for L2
    (sample_data/known_answer/l2/ncu_2025.3_roofline_l2.txt): bytes L2 returned."""
    run = load_once(L2 / "l2_roofline.raw-base.csv.xz")
    for row in run.kernels.to_dict("records"):
        answer = l2_answer(row, l2_answers)
        read, write = 32 * answer["l2_read_sectors"], 32 * answer["l2_write_sectors"]
        source = row["bytes_l2_source"]
        assert source.startswith("derived__lts__lts2xbar_bytes") and "reads only" in source
        if answer["footprint_bytes"] > L2_BYTES and row["name"] in ("copy", "read_sum"):
            assert row["bytes_l2"] == pytest.approx(read, rel=0.03), row["name"]
        if row["name"] == "fill":
            assert row["bytes_l2"] < 0.05 * write
    assert "l2_partitions" not in [note.kind for note in run.notes]


def test_profile_asks_for_l1_sourced_l2_sectors_only_where_ncu_offers_them():
    from rooftui.model.byte_sources import L2_FROM_L1_ARCHITECTURES, TWO_L2_PARTITIONS
    from rooftui.model.metrics import ARCHITECTURES, required_metrics

    # ncu 2025.3.1's own tables (--query-metrics --chip, on the device)
    offered = {}
    for line in (L2 / "query_l2_chips.txt").read_text().splitlines():
        chip, _, names = line.removeprefix("== ").partition(":")
        offered[chip] = set(names.split())
    chips = {"Turing": ["tu102"], "Ampere": ["ga100", "ga102"], "Ada": ["ad102"], "Hopper": ["gh100"]}
    chips["Blackwell"] = ["gb100", "gb202"]
    for arch in ARCHITECTURES:
        asked = L2_FROM_L1 in required_metrics(arch)
        assert asked == (arch.name in L2_FROM_L1_ARCHITECTURES), arch.name
        if asked:
            assert all("lts__t_sectors_srcunit_tex" in offered[chip] for chip in chips[arch.name])
    assert not offered["gv100"]  # Volta left ncu 2025.3: never asked for, lts__t_bytes stays
    partitioned = {chip for chip, names in offered.items() if "lts__t_sectors_srcunit_ltcfabric" in names}
    assert partitioned == {"ga100", "gh100", "gb100"} and TWO_L2_PARTITIONS == ("8.0", "9.0")


def test_the_detail_pane_says_what_l2_bytes_count(paper_l2_run, load_once):
    from rich.console import Console

    from rooftui.views.tui.detail_text import describe

    def pane(run):
        console = Console(width=120, record=True)
        console.print(describe(run.kernels.iloc[2], run.ceilings, None, False, 120))
        return " ".join(console.export_text().split())

    once = pane(load_once(L2 / "l2.raw-base.csv.xz"))
    assert f"bytes L2 16.8 MB ({L2_FROM_L1_WHAT})" in once and "L2 counts" not in once
    twice = pane(paper_l2_run)
    assert "bytes L2 26 MB" in twice and "L2 counts L2 tag lookups (lts__t_bytes, the paper's L2)" in twice
    assert "far L2 partition is counted twice on this GPU (1.5-2x" in twice


def test_diff_says_when_a_and_bs_l2_bytes_count_different_things(load_once):
    from rooftui.analysis.compare import byte_source_notes

    paper = load_once(KNOWN / "known_answer.raw-base.csv")  # lts__t_bytes
    once = load_once(L2 / "known_answer.raw-base.csv.xz")  # lts__t_sectors_srcunit_tex
    [note] = byte_source_notes(paper, once)
    assert note.kind == "byte_sources" and str(note).startswith(
        "L2 bytes count different things: A lts__t_bytes, B lts__t_sectors_srcunit_tex × 32"
    )
    assert byte_source_notes(once, once) == []
