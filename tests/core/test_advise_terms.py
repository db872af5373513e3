"""advise's bound beyond bytes and FLOPs, and what its verdicts name.

- Shared memory is a term as wavefronts (one data-pipe pass each) at the shared-memory roof
  ÷ 128 B; warp instructions at the issue rate and transactions at each level's rate join
  the max where the report has the counters (Ding & Williams' instruction roofline).
- A group's verdict names the term that binds most of its achievable time, the launch
  floor included, never the roof of its heaviest launch.

Each answer comes from how a kernel was built (kernels/known_answer) or is recomputed here
from the report's columns and the ceilings file's numbers, never from advise's output.
"""

from __future__ import annotations

import json
import runpy
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from rooftui.analysis.advise import (
    FLOOR_LIMIT,
    ISSUE_LIMIT,
    NO_FLOOR,
    SHARED_LIMIT,
    LaunchFloor,
    achievable_times,
    with_advice,
)
from rooftui.analysis.advise_findings import findings, verdict
from rooftui.model.ceilings import Ceiling, CeilingSet
from rooftui.model.columns import LEVEL_LABELS, PIPELINE_LABELS, flop_column
from rooftui.model.instructions import InstructionRoof
from tests.conftest import KNOWN, ROOT
from tests.core.test_advise import FLOOR, frame, launch, roofs

SHARED = KNOWN / "shared_memory"
INSTRUCTIONS = KNOWN / "instructions"
B_SMEM = 32_942_077_330_680.004  # the bundled H200 ceilings' measured shared-memory (LDS) roof
ISSUE_RATE = 1_042.7e9  # warp inst/s: rooftui measure's FP32 FMA launches on the H200 (3.99/cycle/SM)


def with_smem_and_issue(issue: float | None = ISSUE_RATE) -> CeilingSet:
    """The test roofs, plus a shared-memory roof and (``issue``) a saved issue rate."""
    base = roofs()
    smem = Ceiling("Shared memory", "bandwidth", B_SMEM, "empirical", level="smem")
    saved = (
        (InstructionRoof("issue", "Warp issue", issue, "warp inst/s", "measured (by hand)"),) if issue else ()
    )
    return CeilingSet(base.device, (*base.ceilings, smem), instruction_roofs=saved)


def loaded(load_once, path, ceilings: CeilingSet, floor: LaunchFloor = NO_FLOOR) -> pd.DataFrame:
    run = load_once(path, find_measured=False)
    return run.kernels.join(achievable_times(run.kernels, ceilings, floor)).set_index("name")


# --- shared memory: wavefronts at the shared-memory roof -----------------------------------

shared_expected = SimpleNamespace(
    **runpy.run_path(str(ROOT / "kernels/known_answer/shared_memory/expected.py"))
)


def test_bank_conflicts_bind_a_kernel_at_the_shared_memory_roof_by_its_wavefronts(load_once):
    params = json.loads((SHARED / "params.json").read_text())
    lsu = shared_expected.known_answer_bytes(params)["smem_conflict"]
    moved = lsu["lsu_load"] + lsu["lsu_store"]  # 2 x 8,650,752 B, by construction
    # each 16-byte access of a warp hits one bank group: 32 wavefronts where smem_vec4 takes 4
    # (kernels/known_answer/shared_memory/shared_memory.cu), so 8 x the conflict-free passes
    wavefronts = 8 * moved // 128
    table = loaded(load_once, SHARED / "shared_memory.raw-base.csv", with_smem_and_issue(), FLOOR)
    row = table.loc["smem_conflict"]
    assert row["shared_wavefronts"] == wavefronts == 1_081_344
    assert row["limit"] == SHARED_LIMIT
    assert row["achievable_s"] == pytest.approx(wavefronts * 128 / B_SMEM, rel=1e-12)  # 4.20 us
    assert 0.5 < row["sol_fraction"] < 1  # ran at 71% of it: a bound, not a forecast
    words = table.loc["smem_words"]  # the same bytes without conflicts: 0.53 us, under the floor
    assert words["shared_wavefronts"] * 128 == moved and words["limit"] == FLOOR_LIMIT


def test_shared_memory_bytes_would_bound_a_gemm_above_its_own_time_so_wavefronts_are_the_term(load_once):
    # wgmma operand reads and TMA copies ran past the LDS roof (docs/shared-memory.md); LSU
    # wavefronts are one data-pipe pass each and never did, on any launch committed
    for name in ("gpt_step.raw-base.csv.xz", "gemm_attention.raw-base.csv", "shared_memory.raw-base.csv"):
        run = load_once(SHARED / name, find_measured=False)
        kernels = run.kernels
        if name.startswith("gpt"):
            assert (kernels["bytes_smem"] / B_SMEM > kernels["time_s"]).any()
        out = achievable_times(kernels, with_smem_and_issue(None), NO_FLOOR)
        assert (out["achievable_s"] <= kernels["time_s"]).all(), name


# --- the issue rate and transactions ------------------------------------------------------


def test_an_integer_only_kernel_with_no_flop_gets_a_compute_side_bound_at_the_issue_rate(load_once):
    expected = json.loads((INSTRUCTIONS / "expected.json").read_text())
    instructions = next(k for k in expected["kernels"] if k["name"] == "int_chain")["warp_instructions"]
    table = loaded(load_once, INSTRUCTIONS / "instructions.raw-base.csv", with_smem_and_issue(), FLOOR)
    row = table.loc["int_chain"]
    assert row["zero_ai"] and instructions == 203 * 2**19  # SASS per warp x warps
    assert row["limit"] == ISSUE_LIMIT and row["limit_source"] == "measured (by hand)"
    assert row["achievable_s"] == pytest.approx(instructions / ISSUE_RATE, rel=1e-12)  # 102 us
    # round 6 measured it at 716 G warp inst/s (docs/instruction-roofline.md): 68.7% of the roof
    assert row["sol_fraction"] == pytest.approx(716e9 / ISSUE_RATE, rel=1e-3)
    assert "issue-bound" in verdict(row["limit"], row["sol_fraction"])


def test_without_the_instruction_counters_the_bound_is_the_flop_rooflines_as_before(load_once):
    table = loaded(load_once, KNOWN / "known_answer.raw-base.csv", with_smem_and_issue(), FLOOR)
    plain = loaded(load_once, KNOWN / "known_answer.raw-base.csv", roofs(), FLOOR)
    assert table["warp_instructions"].isna().all() and table["achievable_s"].notna().all()
    assert table["achievable_s"].equals(plain["achievable_s"]) and table["limit"].equals(plain["limit"])


def test_a_transaction_term_equal_to_its_byte_term_leaves_the_bytes_named():
    # 32-byte sectors: 1e6 L2 sectors are exactly 32e6 bytes at the same roof
    ceilings = with_smem_and_issue()
    table = frame(launch(time_s=1e-3, bytes_l2=32e6, transactions_l2=1e6, warp_instructions=1.0))
    row = achievable_times(table, ceilings, NO_FLOOR).iloc[0]
    assert row["limit"] == "L2" and row["achievable_s"] == pytest.approx(32e6 / 1e14)


def test_shared_wavefronts_beyond_the_l1_sectors_make_l1_transactions_bind():
    # Ding's L1 transactions: sectors plus shared wavefronts, at the L1 bandwidth / 32 B
    table = frame(launch(time_s=1e-3, bytes_l1=32e6, transactions_l1=5e6))
    row = achievable_times(table, with_smem_and_issue(), NO_FLOOR).iloc[0]
    assert row["limit"] == "L1 transactions" and row["achievable_s"] == pytest.approx(5e6 / (1e15 / 32))


# --- what a group's verdict names ---------------------------------------------------------


def grouped_verdict(*rows: dict[str, object]) -> tuple[str, str]:
    table = with_advice(frame(*rows), {"NVIDIA H200": roofs()}, {"NVIDIA H200": FLOOR})
    [finding] = [f for f in findings(table, roofs(), FLOOR) if f.kind == "kernel"]
    return finding.title, finding.evidence


def test_a_group_mostly_at_its_launch_floors_is_bound_by_the_floor_not_by_its_heaviest_launchs_roof():
    # 7 short launches at the 2 us floor, 2 long ones at 3 us each of L1 (3e9 B at 1e15 B/s)
    rows = [launch(name="bn", time_s=7e-6, bytes_hbm=1e3) for _ in range(7)]
    rows += [launch(name="bn", time_s=14e-6, bytes_l1=3e9) for _ in range(2)]
    title, evidence = grouped_verdict(*rows)
    floors, l1 = 7 * 2e-6, 2 * 3e-6
    assert title == verdict(FLOOR_LIMIT, (floors + l1) / (7 * 7e-6 + 2 * 14e-6))  # 26%: 20 of 77 us
    assert title.startswith("at 26% of its speed of light, the launch floor")
    assert "binding: launch floor, 7 of 9 launches, 70% of the achievable time" in evidence


def test_a_group_mostly_at_a_roof_names_that_roof_with_its_share():
    rows = [launch(name="bn", time_s=7e-6, bytes_hbm=1e3) for _ in range(7)]
    rows += [launch(name="bn", time_s=14e-6, bytes_l1=6e9) for _ in range(3)]  # 6 us of L1 each
    title, evidence = grouped_verdict(*rows)
    assert title == verdict("L1", (7 * 2e-6 + 3 * 6e-6) / (7 * 7e-6 + 3 * 14e-6))
    assert "binding: L1, 3 of 10 launches, 56% of the achievable time" in evidence


def by_hand(kernels: pd.DataFrame, ceilings_doc: dict, floor_s: float) -> pd.DataFrame:
    """Each launch's achievable time and binding term, from its columns and the ceilings
    file's numbers alone: bytes / bandwidth, FLOPs / peak, warp instructions / issue rate,
    shared wavefronts × 128 B / shared roof, transactions × 32 B / bandwidth; the floor."""
    bandwidth = {c["level"]: c["value"] for c in ceilings_doc["ceilings"] if c["kind"] == "bandwidth"}
    peak = {c["precision"]: c["value"] for c in ceilings_doc["ceilings"] if c["kind"] == "compute"}
    saved = [r["value"] for r in ceilings_doc.get("instruction_ceilings", []) if r["name"] == "issue"]
    # else one warp instruction per scheduler per cycle: SMs x 4 x the launches' median clock
    issue = saved[0] if saved else ceilings_doc["device"]["sm_count"] * 4 * kernels["sm_clock_hz"].median()
    terms = {LEVEL_LABELS[lv]: kernels[f"bytes_{lv}"] / bandwidth[lv] for lv in ("l1", "l2", "hbm")}
    for precision, label in PIPELINE_LABELS.items():
        column = flop_column(precision)
        if column in kernels and precision in peak:
            terms[label] = kernels[column].fillna(0) / peak[precision]
    terms[ISSUE_LIMIT] = kernels["warp_instructions"] / issue
    terms[SHARED_LIMIT] = kernels["shared_wavefronts"] * 128 / bandwidth["smem"]
    for level in ("l1", "l2", "hbm"):
        sectors = kernels[f"transactions_{level}"]
        terms[f"{LEVEL_LABELS[level]} transactions"] = sectors * 32 / bandwidth[level]
    table = pd.DataFrame(terms).fillna(0.0)
    longest = table.max(axis=1)
    return pd.DataFrame(
        {
            "name": kernels["name"],
            "achievable_s": np.maximum(longest, floor_s),
            "limit": np.where(longest < floor_s, FLOOR_LIMIT, table.idxmax(axis=1)),
            "time_s": kernels["time_s"],
        }
    )


@pytest.fixture(scope="module")
def sample(load_once):
    from rooftui.sample import sample_ceilings
    from tests.conftest import the_sample

    return load_once(the_sample(), ceilings=sample_ceilings()), json.loads(sample_ceilings().read_text())


def test_every_kernels_verdict_on_the_bundled_sample_is_the_term_binding_most_of_its_time(sample):
    from rooftui.analysis import grouped_kernels
    from rooftui.views.advise import with_opportunity

    run, doc = sample
    hand = by_hand(run.kernels, doc, doc["launch_floor"]["empty_kernel_s"])
    per_term = hand.groupby(["name", "limit"])["achievable_s"].sum()
    expected_limit = per_term.groupby(level="name").idxmax().map(lambda key: key[1])
    sol = hand.groupby("name")["achievable_s"].sum() / hand.groupby("name")["time_s"].sum()
    _, grouped = with_opportunity(run, run.kernels, grouped_kernels(run))
    grouped = grouped.set_index("name")
    assert grouped["limit"].to_dict() == expected_limit.to_dict()
    expected_verdicts = {name: verdict(expected_limit[name], sol[name]) for name in sol.index}
    assert grouped["verdict"].to_dict() == expected_verdicts
    assert grouped["sol_fraction"].to_numpy() == pytest.approx(
        sol.reindex(grouped.index).to_numpy(), rel=1e-9
    )
    bn = next(name for name in sol.index if name.startswith("batchnorm_fwtr"))
    assert (hand["name"] == bn).sum() == 9 and grouped.loc[bn, "limit"] == expected_limit[bn]


def test_a_launch_bound_by_bytes_or_flops_names_the_roof_the_kernel_table_binds_it_at(sample):
    from rooftui.analysis.advise import launch_floor_of

    run, _ = sample
    out = achievable_times(run.kernels, run.ceilings, launch_floor_of(run.ceilings))
    roofline = out["limit"].isin([*LEVEL_LABELS.values(), *PIPELINE_LABELS.values()])
    assert roofline.sum() >= 10
    assert (out.loc[roofline, "limit"] == run.kernels.loc[roofline, "bound"]).all()


def test_an_issue_bound_launch_below_the_clock_the_issue_rate_was_measured_at_is_a_clocks_finding():
    base = with_smem_and_issue()
    issue = InstructionRoof("issue", "Warp issue", ISSUE_RATE, "warp inst/s", "measured", {"clock_hz": 2e9})
    ceilings = CeilingSet(base.device, base.ceilings, instruction_roofs=(issue,))
    table = with_advice(
        frame(launch(time_s=2e-3, warp_instructions=1e9, sm_clock_hz=1.5e9)),
        {"NVIDIA H200": ceilings},
        {"NVIDIA H200": NO_FLOOR},
    )
    assert table["limit"].iloc[0] == ISSUE_LIMIT
    [clocks] = [f for f in findings(table, ceilings, NO_FLOOR) if f.kind == "clocks"]
    # the roof time at 2 GHz, 1e9 / ISSUE_RATE, takes 2 / 1.5 times as long at 1.5 GHz
    assert clocks.gain_s == pytest.approx(1e9 / ISSUE_RATE * (2e9 / 1.5e9 - 1))


def test_a_launch_below_its_bandwidth_roofs_clock_is_a_clocks_finding_not_a_crash():
    # main at 53fa460 raised TypeError here: the binding roof's clock came out as a category
    l2 = Ceiling("L2", "bandwidth", 1e14, "empirical", level="l2", extra={"clock_hz": 2e9})
    base = roofs()
    ceilings = CeilingSet(base.device, tuple(c if c.level != "l2" else l2 for c in base.ceilings))
    table = with_advice(
        frame(launch(time_s=2e-3, bytes_l2=1e11, sm_clock_hz=1.5e9)),
        {"NVIDIA H200": ceilings},
        {"NVIDIA H200": NO_FLOOR},
    )
    [clocks] = [f for f in findings(table, ceilings, NO_FLOOR) if f.kind == "clocks"]
    assert clocks.gain_s == pytest.approx(1e11 / 1e14 * (2e9 / 1.5e9 - 1))


# --- the issue roof measured on the H200, and the kernels it was measured with -------------

ISSUE_LAUNCHES = KNOWN / "issue_rate"  # benchmarks/issue_rate_bundled_h200.sh, 2026-12-02


def bundled_issue_roof() -> dict:
    doc = json.loads((ROOT / "rooftui" / "data" / "ceilings" / "nvidia-h200_cc9.0.json").read_text())
    return next(roof for roof in doc["instruction_ceilings"] if roof["name"] == "issue")


def test_the_issue_rate_kernels_are_bound_by_their_sass_count_at_the_bundled_issue_roof(load_once):
    from rooftui.analysis.advise import launch_floor_of
    from rooftui.analysis.advise_run import advise

    roof = bundled_issue_roof()
    expected = json.loads((ISSUE_LAUNCHES / "issue_launches.expected.json").read_text())["launches"]
    run = load_once(ISSUE_LAUNCHES / "issue_launches.raw.csv")  # finds the bundled H200 ceilings
    launches = advise(run).launches.sort_values("id")
    assert launch_floor_of(run.ceilings).per_launch_s == pytest.approx(1.536e-6)
    assert [e["warp_instructions"] for e in expected][
        0
    ] == 33_153_120  # 4,224 x (34 + 195 x 40 + 13) + 528 x 14
    assert launches["warp_instructions"].tolist() == [e["warp_instructions"] for e in expected]  # ncu = SASS
    bound = np.array([e["warp_instructions"] for e in expected]) / roof["value"]
    mix = launches["name"] == "issue_mix"
    assert (launches.loc[mix, "limit"] == ISSUE_LIMIT).all()
    assert launches.loc[mix, "achievable_s"].to_numpy() == pytest.approx(bound[mix.to_numpy()], rel=1e-12)
    sources = launches.loc[mix, "limit_source"]
    assert sources.str.startswith("measured by rooftui measure: fma_fp32").all()
    assert sources.str.endswith("(bundled with rooftui: nvidia-h200_cc9.0.json)").all()  # the file, by name
    # the long issue_mix launch runs at issue_mix's own measured share of the roof (3.53 of 3.99/cycle/SM)
    share = roof["variants_per_cycle_per_sm"]["issue_mix"] / roof["per_cycle_per_sm"]
    assert launches["sol_fraction"].iloc[1] == pytest.approx(share, abs=0.01)
    # the FP32 FMA kernel the roof was measured with: at its issue bound within 0.3% of its time
    fma = launches.iloc[2]
    assert fma["time_s"] == pytest.approx(bound[2], rel=3e-3) and fma["sol_fraction"] >= 0.997


def test_a_launch_bound_by_instruction_issue_is_issue_bound_on_the_instruction_roofline_too(sample):
    from rooftui.analysis import instruction_roofline
    from rooftui.analysis.advise import launch_floor_of

    run, _ = sample
    out = achievable_times(run.kernels, run.ceilings, launch_floor_of(run.ceilings))
    chart = instruction_roofline.with_bounds(run, run.kernels)
    issue = out["limit"] == ISSUE_LIMIT
    assert issue.sum() >= 10 and (chart.loc[issue, "instruction_bound"] == "issue").all()
