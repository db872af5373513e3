"""The instruction known-answer kernels (kernels/known_answer/instructions), profiled on an
H200, pin the instruction roofline's counts. The expected counts were derived before the
profile (expected.py: instructions from the SASS, transactions from the access patterns).

Exact: warp, thread and predicated-on thread instructions; global requests and sectors;
shared instructions. Bounded, with the reason: shared wavefronts (ncu counts the ideal
ones plus those lost to L1 traffic on the same data banks) and L2 sectors (the H200's L2
is two partitions; a sector homed in the far one is counted in both).
"""

import json
import math

import pytest

from rooftui.analysis import instruction_roofline, load_run
from rooftui.sample import sample_paths
from rooftui.views.summary import to_json
from tests.conftest import KNOWN

INSTRUCTIONS = KNOWN / "instructions"
FORMS = ["instructions.raw-base.csv", "instructions.summary.csv"]


@pytest.fixture(scope="module")
def expected():
    with open(INSTRUCTIONS / "expected.json", encoding="utf-8") as handle:
        return {row["name"]: row for row in json.load(handle)["kernels"]}


@pytest.fixture(scope="module")
def run():
    return load_run([INSTRUCTIONS / "instructions.raw-base.csv"])


def rows_of(run):
    return {row["name"]: row for row in run.kernels.to_dict("records")}


@pytest.mark.parametrize("form", FORMS)
def test_instructions_and_global_transactions_are_exact_in_every_export(form, expected, load_once):
    rows = rows_of(load_once(INSTRUCTIONS / form))
    assert set(rows) == set(expected)
    for name, answer in expected.items():
        row = rows[name]
        assert row["warp_instructions"] == answer["warp_instructions"], name
        assert row["thread_instructions"] == answer["thread_instructions"], name
        assert row["thread_instructions_pred_on"] == answer["thread_instructions_pred_on"], name
        assert row["global_requests"] == answer["global_ld_requests"] + answer["global_st_requests"], name
        assert row["global_sectors"] == answer["global_ld_sectors"] + answer["global_st_sectors"], name
        assert row["shared_requests"] == answer["shared_ld_requests"] + answer["shared_st_requests"], name


def test_every_lane_ran_every_instruction_so_warp_efficiency_is_one(run):
    assert (run.kernels["warp_efficiency"] == 1.0).all()
    assert (run.kernels["warp_efficiency_pred_on"] == 1.0).all()


def test_the_global_walls_come_out_at_one_four_and_thirty_two_sectors_per_load(run):
    raw = run.reports[0].kernels.set_index("kernel_name")
    per_load = {
        name.split("(")[0]: row["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
        / row["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        for name, row in raw.iterrows()
        if row["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] > 0
    }
    assert per_load["copy_broadcast"] == 1.0  # stride 0
    assert per_load["copy_unit"] == 4.0  # unit stride of 4-byte words
    assert per_load["copy_stride32"] == 32.0  # one sector per lane
    rows = rows_of(run)
    # Loads and stores together: the unit-stride store keeps 4 sectors per request.
    assert rows["copy_stride32"]["sectors_per_request"] == (32 + 4) / 2
    assert rows["copy_broadcast"]["sectors_per_request"] == (1 + 4) / 2


def test_shared_wavefronts_are_the_ideal_count_plus_at_most_ten_percent(run, expected):
    rows = rows_of(run)
    for name in ("shared_unit", "shared_conflict32"):
        ideal = expected[name]["shared_ld_wavefronts"] + expected[name]["shared_st_wavefronts"]
        assert ideal <= rows[name]["shared_wavefronts"] <= 1.1 * ideal, name
    assert rows["shared_unit"]["wavefronts_per_request"] == pytest.approx(1, rel=0.1)
    assert rows["shared_conflict32"]["wavefronts_per_request"] == pytest.approx(32, rel=0.01)
    verdicts = {name: instruction_roofline.wall_verdicts(rows[name]) for name in rows}
    assert "nearest wall no bank conflict" in verdicts["shared_unit"][1]
    assert "nearest wall 32-way bank conflict" in verdicts["shared_conflict32"][1]
    assert "nearest wall one sector per lane" in verdicts["copy_stride32"][0]


def test_l2_sectors_are_at_least_what_the_l1_sent_and_writes_exactly_what_was_stored(run, expected):
    rows = rows_of(run)
    raw = run.reports[0].kernels.set_index("kernel_name")
    for name, answer in expected.items():
        row = raw[raw.index.str.startswith(name + "(")].iloc[0]
        assert row["lts__t_sectors_op_write.sum"] >= answer["l2_write_sectors"], name
        if answer["l2_read_sectors"] is not None:
            assert row["lts__t_sectors_op_read.sum"] >= answer["l2_read_sectors"], name
        assert row["lts__t_sectors_op_atom.sum"] == row["lts__t_sectors_op_red.sum"] == 0, name
        transactions = rows[name]["transactions_l2"]
        assert transactions == sum(
            row[f"lts__t_sectors_op_{op}.sum"] for op in ("read", "write", "atom", "red")
        ), name


def test_instruction_intensity_is_warp_instructions_per_transaction(run, expected):
    row = rows_of(run)["copy_unit"]
    # L1: 4 sectors for the load and 4 for the store of each warp's 13 instructions.
    assert row["transactions_l1"] == 2 * 2_097_152
    assert row["instruction_intensity_l1"] == expected["copy_unit"]["warp_instructions"] / (2 * 2_097_152)
    assert row["instruction_intensity_l1"] == 13 / 8


def test_every_kernel_is_zero_ai_yet_on_the_instruction_roofline(run):
    kernels = instruction_roofline.with_bounds(run, run.kernels)
    assert kernels["zero_ai"].all()
    assert (kernels["warp_instruction_rate"] > 0).all()
    assert set(kernels["instruction_bound"]) <= {"issue", "l1", "l2", "hbm"}
    assert (kernels["instruction_bound"] != "").all()


def test_the_issue_roof_is_the_reports_peak_of_528_per_cycle_the_h200s_132_sms_times_4(load_once):
    # without measured ceilings: the bundled H200 file saves a measured issue rate since 2026-12-02
    run = load_once(INSTRUCTIONS / "instructions.raw-base.csv", find_measured=False)
    roofs = instruction_roofline.ceilings_for(run, "NVIDIA H200")
    clock = float(run.kernels["sm_clock_hz"].median())
    assert roofs.issue is not None
    assert roofs.issue.value == pytest.approx(132 * 4 * clock, rel=1e-12)
    assert "report peak" in roofs.issue.source


def test_json_adds_instruction_keys_and_keeps_the_old_ones(run):
    doc = to_json(run, run.kernels)
    entry = next(k for k in doc["kernels"] if k["name"] == "int_chain")
    assert entry["instructions"]["state"] == "measured"
    assert entry["instructions"]["warp_instructions"] == 106_430_464  # 203 SASS × 2^19 warps
    assert entry["instructions"]["bound"] in ("Warp issue", "L1", "L2", "HBM")
    assert {"flops", "bytes", "ai", "bound", "provenance"} <= set(entry)
    roofs = doc["instruction_ceilings_by_device"]["NVIDIA H200"]["roofs"]
    assert [roof["name"] for roof in roofs] == ["issue", "l1", "l2", "hbm", "smem"]


def test_a_report_without_the_counters_says_not_collected_never_zero(load_once):
    run = load_once(KNOWN / "known_answer.raw-base.csv")
    assert run.kernels["warp_instructions"].isna().all()
    entry = to_json(run, run.kernels)["kernels"][0]["instructions"]
    assert entry["state"] == "not_collected"
    assert entry["warp_instructions"] is None
    assert entry["transactions_state"] == {
        "l1": "not_collected",
        "l2": "not_collected",
        "hbm": "not_collected",
    }
    assert not any("smsp__inst_executed" in name for name in run.missing_metrics)


def test_the_bundled_deepcam_sample_places_every_zero_ai_launch(load_once):
    run = load_once(sample_paths()[0])
    kernels = run.kernels
    zero = kernels[kernels["zero_ai"].fillna(False).astype(bool)]
    assert len(zero) > 0
    assert (zero["warp_instruction_rate"] > 0).all()
    assert zero["instruction_intensity_l1"].map(math.isfinite).all()


def test_l2_transactions_are_the_sectors_l1_requested_once_on_the_two_partition_h200(load_once):
    # The instruction kernels profiled with every L2 counter (sample_data/known_answer/l2):
    # L2 transactions = the sectors each kernel moves by construction (expected.json, derived
    # before profiling), not the 1.5-2x of lts__t_sectors_op_*, which counts a request to the
    # far L2 partition twice (docs/l2-bytes.md).
    l2 = KNOWN / "l2"
    answers = json.loads((l2 / "expected.json").read_text())["kernels"]
    checked = 0
    for row in load_once(l2 / "instructions.raw-base.csv.xz").kernels.to_dict("records"):
        grid = int(row["grid"].strip("()").split(",")[0])
        found = [a for a in answers if a["name"] == row["name"] and a["grid"] in (None, grid)]
        if not found:  # copy_broadcast: every warp of a block reads one sector, not fixed
            continue
        assert row["transactions_l2"] == found[0]["l2_read_sectors"] + found[0]["l2_write_sectors"], row[
            "name"
        ]
        checked += 1
    assert checked == 5
