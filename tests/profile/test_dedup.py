"""Signature-deduplicated profiling: signatures, the launches each full run picks, the
merged table (twin's counters, own time) and the self-check.

``data/transformer4_probe_call1.csv``: the probe of every launch of the 4-block BF16
step (sample_data/make/transformer_step.py, 175 launches) on an H200, ncu 2025.3.1,
from benchmarks/profile_dedup_explore.sh (columns trimmed to those read here; that
first probe had no HFMA2 counter, so it is NaN here and tells nothing apart).
"""

from __future__ import annotations

import math
from pathlib import Path

from rooftui.model import metrics as m
from rooftui.profile import dedup
from rooftui.profile.run import NcuLog

DATA = Path(__file__).parent / "data"
WIDTH, BATCH_SEQ = 1024, 8 * 1024  # the step's --width and --batch x --seq
QKV_GEMM = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT"


def real_probe() -> dedup.Export:
    return dedup.read_export((DATA / "transformer4_probe_call1.csv").read_text())


def test_one_persistent_gemm_config_doing_four_products_gets_four_signatures_one_per_product():
    plan = dedup.plan(real_probe())
    gemm = [g for g in plan.signatures if g.config[0] == QKV_GEMM]
    # the same name, grid (132 CTAs: one per SM), block and shared memory for all four
    assert len({g.config for g in gemm}) == 1 and gemm[0].config[1] == "132"
    assert len(gemm) == 4 and all(len(g.members) == 4 for g in gemm)  # one launch per block
    # Tensor instructions in the ratio of the products' FLOPs, by construction of the
    # block: QKV 3w x w, output w x w, MLP up 4w x w, MLP down w x 4w
    tensor = [g.counters[dedup.SIGNATURE_COUNTERS.index(dedup.TENSOR_INSTRUCTIONS)] for g in gemm]
    assert [t / tensor[1] for t in tensor] == [3.0, 1.0, 4.0, 4.0]
    # and each is 2*M*N*K FLOPs over the same work per instruction: 2*8192*3w*w / 786,432
    assert 2 * BATCH_SEQ * 3 * WIDTH * WIDTH / tensor[0] == 2 * BATCH_SEQ * WIDTH * WIDTH / tensor[1]


def test_launches_of_a_repeated_elementwise_kernel_share_one_signature():
    plan = dedup.plan(real_probe())
    gelu = [g for g in plan.signatures if "GeluCUDAKernelImpl" in g.config[0]]
    assert len(gelu) == 1 and len(gelu[0].members) == 4  # forward GELU, once per block


def test_one_full_run_covers_every_signature_and_needs_each_invocation_number_it_asks_for():
    probe = real_probe()
    functions = [function_name(row[probe.column("Kernel Name")]) for row in probe.rows]
    plan = dedup.plan(probe, functions)
    profiled = set(plan.run.predicted(plan.launches))
    assert all(profiled & set(g.members) for g in plan.signatures)
    # ncu's one --kernel-id a run: the same numbers of all 37 functions, 118 of the 175
    # launches for the 59 signatures (the measured two runs took 37 + 81)
    assert len({launch.function for launch in plan.launches}) == 37
    assert (len(plan.signatures), len(profiled), len(plan.launches)) == (59, 118, 175)
    for n in plan.run.invocations:  # none can go: each is some signature's only one
        fewer = dedup.FullRun(tuple(k for k in plan.run.invocations if k != n))
        kept = set(fewer.predicted(plan.launches))
        assert not all(kept & set(g.members) for g in plan.signatures)
    assert plan.run.source_counters  # Tensor-pipe work: HFMA2 register moves may be there


def _launch(index: int, function: str, invocation: int, work: float) -> dedup.Launch:
    return dedup.Launch(index, function, function, (function,), (work,), invocation)


def test_invocation_numbers_are_chosen_by_launches_they_cost_not_by_how_early_they_come():
    # a GEMM kernel alternating two products over 10 launches; an elementwise kernel with
    # one signature launched 9 times. Asking for the GEMM's 2nd launch also takes the
    # elementwise kernel's 2nd: 4 launches. Its 10th costs only itself: 3, the fewest
    # that can hold three signatures.
    found = [_launch(i, "gemm", i + 1, 1000.0 if i % 2 == 0 else 3000.0) for i in range(10)]
    found += [_launch(10 + i, "relu", i + 1, 50.0) for i in range(9)]
    groups = dedup.signatures(found)
    assert len(groups) == 3
    assert dedup.choose_invocations(found, groups) == (1, 10)


def test_a_number_that_a_later_choice_covers_for_is_dropped():
    # f: 10 launches, one product (x) at its 3rd and 9th; g: 3 launches, another (y) at its
    # 3rd; h: 3 launches of one piece of work. After the 1st launches, the 9th covers x for
    # one launch, then only the 3rd holds y, and it holds x too: the 9th is no longer needed
    found = [_launch(i, "f", i + 1, 2.0 if i + 1 in (3, 9) else 1.0) for i in range(10)]
    found += [_launch(10 + i, "g", i + 1, 20.0 if i == 2 else 10.0) for i in range(3)]
    found += [_launch(13 + i, "h", i + 1, 30.0) for i in range(3)]
    groups = dedup.signatures(found)
    assert len(groups) == 5
    chosen = dedup.choose_invocations(found, groups)
    assert chosen == (1, 3)
    assert len(dedup.FullRun(chosen).predicted(found)) == 6  # not 7 with the 9th


def test_kernel_id_has_no_colon_for_ncu_to_split_on():
    assert dedup.kernel_id((1, 2, 17)) == ":::^(1|2|17)$"


def function_name(demangled: str) -> str:
    """ncu's function name (--kernel-name-base function) of a demangled name: no return
    type, namespaces, template arguments or parameters."""
    depth, kept = 0, ""
    for ch in demangled:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            break
        elif depth == 0:
            kept += ch
    return kept.strip().split(" ")[-1].split("::")[-1]


def logged(name: str) -> list[str]:
    """The kernels of an ncu log as rooftui's run reader takes them (NcuLog.kernels)."""
    log = NcuLog()
    for line in (DATA / name).read_text().splitlines():
        log.read_line(line)
    return log.kernels


def test_ncus_log_names_each_profiled_launch_so_a_radix_sort_with_changing_counts_still_finds_its_launch():
    # the measured default's second run (4-block step, H200): "1:7:DeviceRadixSortOnesweepKernel:3",
    # ...; its rows' instruction counts need not match the probe's (the sort's look-back spins),
    # which left that signature unprofiled when rows were matched by counters.
    probe = real_probe()
    functions = [function_name(row[probe.column("Kernel Name")]) for row in probe.rows]
    # ncu's own log of that probe names the same functions (cut to 29 characters and "...")
    assert all(
        f.startswith(cut.removesuffix("..."))
        for f, cut in zip(functions, logged("transformer4_probe.ncu.log"), strict=True)
    )
    plan = dedup.plan(probe, functions)
    names = logged("transformer4_full2.ncu.log")
    where = {(launch.function, launch.invocation): launch for launch in plan.launches}
    header = ["ID", "Kernel Name", *dedup.LAUNCH]
    rows = []
    for text in names:
        *_, function, invocation = text.split(":")
        launch = where[(function, int(invocation))]
        rows.append([str(len(rows)), *launch.config])
    full = dedup.Export(header, [""] * len(header), rows)
    assigned = dedup.assign_from_log(plan, names, full)
    assert len(assigned) == len(names) == 81
    onesweep = [
        launch.index for launch in plan.launches if launch.function == "DeviceRadixSortOnesweepKernel"
    ]
    assert onesweep == list(range(152, 160))
    assert {i for i in assigned if i in onesweep} == {153, 154, 155, 156}  # invocations 2-5
    sort = next(g for g in plan.signatures if 154 in g.members)
    assert sort.members == [154, 155, 156, 157, 158, 159] and set(sort.members) & set(assigned)
    # a row whose launch does not match its configuration is not taken on the log's word
    rows[0] = [rows[0][0], "another kernel", *rows[0][2:]]
    assert len(dedup.assign_from_log(plan, names, full)) == 80


def _export(header: list[str], rows: list[list[str]]) -> dedup.Export:
    return dedup.Export(header, [""] * len(header), rows)


NVTX = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"
PROBE_HEADER = ["ID", "Kernel Name", NVTX, *dedup.PROBE_METRICS]
FULL_HEADER = [
    "ID",
    "Kernel Name",
    NVTX,
    m.TIME,
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "dram__bytes.sum",
    *dedup.LAUNCH,
    *dedup.SIGNATURE_COUNTERS,
]


def _probe_row(i: int, name: str, nvtx: str, time: str, inst: str, traffic: str = "") -> list[str]:
    return [str(i), name, nvtx, time, "132", "384", "0", inst, "0", traffic]


def synthetic() -> tuple[dedup.Plan, dedup.Export]:
    # gemm: two products (1000 and 3000 instructions) twice; relu twice
    probe = _export(
        PROBE_HEADER,
        [
            _probe_row(0, "gemm", "forward", "10", "1000"),
            _probe_row(1, "gemm", "forward", "30", "3000"),
            _probe_row(2, "relu", "forward", "5", "50"),
            _probe_row(3, "gemm", "backward", "11", "1000"),
            _probe_row(4, "gemm", "backward", "31", "3000.5"),
            _probe_row(5, "relu", "backward", "6", "50"),
        ],
    )
    return dedup.plan(probe), probe


def test_a_later_launch_of_the_same_work_inherits_its_twins_counters_with_its_own_time_and_ranges():
    plan, probe = synthetic()
    assert [g.members for g in plan.signatures] == [[0, 3], [1, 4], [2, 5]]
    # gemm's 1st and 4th launch, relu's 1st: its 2nd would cost a launch more
    assert plan.run.invocations == (1, 4)
    assert plan.run.predicted(plan.launches) == [0, 2, 4]
    full = _export(
        FULL_HEADER,
        [
            ["0", "gemm", "forward", "12", "64000", "4096", "132", "384", "0", "1000", "0"],
            ["1", "relu", "forward", "7", "0", "512", "132", "384", "0", "50", "0"],
            ["2", "gemm", "backward", "33", "192000", "8192", "132", "384", "0", "3000", "0"],
        ],
    )
    sources: dedup.Sources = {
        i: (full, full.rows[r]) for i, r in dedup.assign_rows(plan, plan.run, full).items()
    }
    merged = dedup.merge(plan, probe, full, sources)
    rows = {int(row[0]): dict(zip(merged.export.header, row)) for row in merged.export.rows}
    assert len(rows) == 6 and not merged.missing
    forward_big = rows[1]
    assert forward_big["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] == "192000"  # launch 4's
    assert forward_big[m.TIME] == "30"  # its own, from the probe
    assert forward_big[NVTX] == "forward"
    assert forward_big["rooftui__counters_from"] == "4" and forward_big["rooftui__signature"] == "S2"
    assert rows[0][m.TIME] == "10" and rows[0]["rooftui__counters_from"] == "own"
    assert [s["profiled"] for s in merged.source] == [True, False, True, False, True, False]
    assert rows[5]["dram__bytes.sum"] == "512" and rows[5][NVTX] == "backward"  # relu's, own ranges


def test_rows_in_an_unexpected_order_are_matched_to_signatures_by_their_counters():
    plan, _ = synthetic()
    # ncu profiled the relu before the gemm: not the predicted order
    run1 = _export(
        FULL_HEADER,
        [
            ["0", "relu", "forward", "7", "0", "512", "132", "384", "0", "50", "0"],
            ["1", "gemm", "forward", "33", "192000", "8192", "132", "384", "0", "3000", "0"],
        ],
    )
    assert dedup.assign_rows(plan, plan.run, run1) == {2: 0, 1: 1}


def test_a_signature_no_run_profiled_is_blank_and_listed_missing_never_zero():
    plan, probe = synthetic()
    run1 = _export(
        FULL_HEADER, [["0", "gemm", "forward", "12", "64000", "4096", "132", "384", "0", "1000", "0"]]
    )
    sources = {i: (run1, run1.rows[r]) for i, r in dedup.assign_rows(plan, plan.run, run1).items()}
    merged = dedup.merge(plan, probe, run1, sources)
    relu = dict(zip(merged.export.header, merged.export.rows[2]))
    assert relu["dram__bytes.sum"] == "" and relu[m.TIME] == "5"
    assert {g.label for g in merged.missing} == {"S2", "S3"}


def twin_check(header: list[str], twin: list[str], own: list[str], counters: tuple[str, ...] | None = None):
    """The self-check of launch 3 (``own``) profiled in full beside launch 0, its
    signature's first (``twin``), in the synthetic plan."""
    plan, _ = synthetic()
    run = _export(header, [twin, own])
    sources = {0: (run, run.rows[0]), 3: (run, run.rows[1])}
    return dedup.self_check(plan, sources, dedup.checked_counters(header) if counters is None else counters)


def test_self_check_reports_how_far_a_launch_profiled_beside_its_twin_is():
    check = twin_check(
        FULL_HEADER,
        ["0", "gemm", "forward", "12", "64000", "4000", "132", "384", "0", "1000", "0"],
        ["1", "gemm", "backward", "12", "64000", "4100", "132", "384", "0", "1000", "0"],
    )
    assert check.pairs == 1
    assert check.flops == 0.0
    assert math.isclose(check.bytes, 100 / 4100)
    assert "dram__bytes.sum of launch 3 against 0" in check.worst_what


def test_self_check_compares_the_l2_bytes_the_summary_reads_not_the_tag_lookups_they_replace():
    # Twins whose L2 tag lookups differ 2x (far-partition lookups, counted twice) while the L2
    # sectors L1 requested, what the summary shows as L2 bytes, differ by 10 of 110 sectors.
    header = [*FULL_HEADER, "lts__t_bytes.sum", "lts__t_sectors_srcunit_tex.sum"]
    counters = dedup.checked_counters(header)
    assert "lts__t_sectors_srcunit_tex.sum" in counters and "lts__t_bytes.sum" not in counters
    check = twin_check(
        header,
        ["0", "gemm", "forward", "12", "64000", "4096", "132", "384", "0", "1000", "0", "8000", "100"],
        ["1", "gemm", "backward", "12", "64000", "4096", "132", "384", "0", "1000", "0", "16000", "110"],
    )
    # sectors weigh 32 bytes each beside dram__bytes: (110 - 100) x 32 / (4096 + 110 x 32)
    assert math.isclose(check.bytes, 320 / (4096 + 3520))
    assert math.isclose(check.worst, 10 / 110)
    assert "lts__t_sectors_srcunit_tex.sum of launch 3 against 0" in check.worst_what
    # a report without the L1-requested sectors keeps the tag lookups, the L2 it reads then
    assert "lts__t_bytes.sum" in dedup.checked_counters(FULL_HEADER + ["lts__t_bytes.sum"])


def test_a_self_check_above_one_percent_says_inherited_counters_may_be_off_by_as_much():
    from rooftui.profile.deduplicated import self_check_warning

    # the DeepCAM step's self-check on the H200 (benchmarks/results/2026-12-02-profile-dedup-depth.md)
    twin = ["0", "add", "forward", "12", "64000", "1795840", "132", "384", "0", "1000", "0"]
    own = ["1", "add", "backward", "12", "64000", "3565568", "132", "384", "0", "1000", "0"]
    (line,) = self_check_warning(twin_check(FULL_HEADER, twin, own, ("dram__bytes.sum",)))
    assert line.startswith("rooftui: the self-check is above 1% (bytes 49.63%): launches of one signature")
    assert line.endswith("may be off by as much; --exhaustive profiles every launch")
    # within 1% (16 transformer blocks: bytes 0.20%): nothing more is said
    own[5] = "1799432"
    assert self_check_warning(twin_check(FULL_HEADER, twin, own, ("dram__bytes.sum",))) == []


RANK_HEADER = ["ID", "Kernel Name", "Grid Size", "Block Size", m.TIME, "dram__bytes.sum"]


def test_a_rank_timed_alone_takes_the_first_ranks_counters_launch_by_launch_with_its_own_times():
    rank0 = _export(
        RANK_HEADER,
        [
            ["0", "gemm", "(132, 1, 1)", "(384, 1, 1)", "100", "4096"],
            ["1", "relu", "(64, 1, 1)", "(128, 1, 1)", "7", "512"],
        ],
    )
    rank1 = _export(
        ["ID", "Kernel Name", "Grid Size", "Block Size", m.TIME],
        [["0", "gemm", "(132, 1, 1)", "(384, 1, 1)", "120"], ["1", "relu", "(64, 1, 1)", "(128, 1, 1)", "9"]],
    )
    merged, reason = dedup.rank_from_twin(rank0, rank1, "0")
    assert reason is None
    rows = [dict(zip(merged.header, row)) for row in merged.rows]
    assert [(r[m.TIME], r["dram__bytes.sum"], r["rooftui__counters_from"]) for r in rows] == [
        ("120", "4096", "rank 0:0"),
        ("9", "512", "rank 0:1"),
    ]


def test_a_rank_that_ran_other_kernels_keeps_its_times_and_no_counters():
    rank0 = _export(RANK_HEADER, [["0", "gemm", "(132, 1, 1)", "(384, 1, 1)", "100", "4096"]])
    rank1 = _export(
        ["ID", "Kernel Name", "Grid Size", "Block Size", m.TIME],
        [["0", "gemm", "(128, 1, 1)", "(384, 1, 1)", "120"]],
    )
    merged, reason = dedup.rank_from_twin(rank0, rank1, "0")
    assert reason is not None and reason.startswith("launch 0 is 'gemm'")
    row = dict(zip(merged.header, merged.rows[0]))
    assert row[m.TIME] == "120" and row["dram__bytes.sum"] == "" and row["Grid Size"] == "(128, 1, 1)"
