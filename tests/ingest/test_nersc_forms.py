"""NERSC's roofline-on-nvidia-gpus outputs: their CSVs and reports made with their
custom hierarchical sections, held to what NERSC's postprocess.py computes."""

import json

import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.ingest import read_report
from rooftui.model.kernel_table import build_kernel_table
from tests.conftest import KNOWN
from tests.ingest.paper_layout import FP64, LAUNCHES, SASS, write_nersc_csv


def _postprocess_by_name():
    """NERSC's custom-scripts/postprocess.py per kernel name, written out by hand:
    FLOPs = add + mul + 2·fma per precision, bytes summed over launches."""
    out = {}
    for index, launch in enumerate(LAUNCHES):
        row = out.setdefault(launch["name"], {"fp64": 0, "fp32": 0, "l1": 0, "l2": 0, "hbm": 0})
        row["fp64"] += (
            FP64[SASS.format("dadd")][index]
            + FP64[SASS.format("dmul")][index]
            + 2 * FP64[SASS.format("dfma")][index]
        )
        row["fp32"] += (
            launch[SASS.format("fadd")] + launch[SASS.format("fmul")] + 2 * launch[SASS.format("ffma")]
        )
        row["l1"] += launch["l1tex__t_bytes.sum"]
        row["l2"] += launch["lts__t_bytes.sum"]
        row["hbm"] += launch["dram__bytes.sum"]
    return out


@pytest.fixture(scope="module")
def nersc_run(tmp_path_factory):
    """NERSC's output.csv (paper_layout's stand-in) loaded once for the tests that read it."""
    return load_run(
        [write_nersc_csv(tmp_path_factory.mktemp("nersc") / "output.csv")], LoadOptions(gpu="V100")
    )


@pytest.fixture(scope="module")
def roofline_report():
    """The known-answer report of ncu's roofline set, read once (a reader child each time)."""
    return read_report(KNOWN / "known_answer_roofline.ncu-rep.xz").kernels


def test_nersc_csv_gives_postprocess_flops_and_bytes(nersc_run):
    run = nersc_run
    ours = run.kernels.groupby("demangled")[
        ["flops_fp64", "flops_fp32", "bytes_l1", "bytes_l2", "bytes_hbm"]
    ].sum()
    for name, answer in _postprocess_by_name().items():
        assert list(ours.loc[name]) == [
            answer["fp64"],
            answer["fp32"],
            answer["l1"],
            answer["l2"],
            answer["hbm"],
        ], name
    for row, launch in zip(run.kernels.sort_values("ncu_id").itertuples(), LAUNCHES):
        assert row.time_s == pytest.approx(
            launch["sm__cycles_elapsed.avg"] / launch["sm__cycles_elapsed.avg.per_second"], rel=1e-12
        )


def test_counts_stored_only_as_rates_come_back_through_clock_and_duration(expected, roofline_report):
    """NERSC's custom sections store FP64 (and FP32) only as
    ``smsp__...pred_on.sum.per_cycle_elapsed``, with the SM clock and
    gpu__time_duration but no elapsed-cycle count. The known-answer report of ncu's
    roofline set has the same rates; without its cycle counts the FLOPs must come back
    from rate × clock × duration within 2% of the known answers."""
    raw = roofline_report.drop(
        columns=[
            c
            for c in roofline_report
            if c.endswith(("cycles_elapsed.avg", "cycles_elapsed.sum", "cycles_elapsed.max"))
        ]
    ).copy()
    raw["report"], raw["id"] = "roofline", raw["ncu_id"]
    table, log = build_kernel_table(raw)
    rows = table.set_index("name")
    for name, answer in expected.items():
        for column in ("flops_fp64", "flops_fp32"):
            assert rows.loc[name, column] == pytest.approx(answer[column], rel=0.02, abs=1.0), name
    assert (
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum = smsp__sass_thread_inst_executed_op_"
        "dfma_pred_on.sum.per_cycle_elapsed × clock × duration"
    ) in log.derived


def test_time_from_cycles_matches_gpu_time_duration_on_the_h200():
    """The paper's time (elapsed cycles / clock) against ncu's own duration, same launches."""
    raw = read_report(KNOWN / "known_answer.raw-base.csv").kernels
    raw["report"], raw["id"] = "known", raw["ncu_id"]
    measured, _ = build_kernel_table(raw)
    derived, log = build_kernel_table(raw.drop(columns=["gpu__time_duration.sum"]))
    assert derived["time_s"].to_numpy() == pytest.approx(measured["time_s"].to_numpy(), rel=1e-4)
    assert log.time_sources == {"derived: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second"}
    assert set(measured["time_source"]) == {"gpu__time_duration.sum"}


def test_json_says_where_time_came_from(nersc_run):
    from rooftui.views.summary import to_json

    run = nersc_run
    doc = json.loads(json.dumps(to_json(run, run.kernels)))
    assert {k["time_source"] for k in doc["kernels"]} == {
        "derived: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second"
    }
    assert any("no gpu__time_duration.sum" in note for note in doc["notes"])


def test_time_from_gpc_cycles_when_sm_cycles_are_absent_too(roofline_report):
    """ncu's own "Elapsed Cycles" (gpc__cycles_elapsed.max) over its clock: within 0.5%
    of gpu__time_duration on every known-answer launch (the GPC count is the max over GPCs)."""
    raw = roofline_report.copy()
    raw["report"], raw["id"] = "roofline", raw["ncu_id"]
    measured, _ = build_kernel_table(raw)
    derived, log = build_kernel_table(
        raw.drop(columns=["gpu__time_duration.sum", "sm__cycles_elapsed.avg", "smsp__cycles_elapsed.avg"])
    )
    assert derived["time_s"].to_numpy() == pytest.approx(measured["time_s"].to_numpy(), rel=5e-3)
    assert log.time_sources == {"derived: gpc__cycles_elapsed.max / gpc__cycles_elapsed.avg.per_second"}


def test_time_from_smsp_cycles_over_the_smsp_clock(roofline_report):
    """NERSC-variant reports carry only smsp__cycles_elapsed.avg and its rate (the SM clock
    domain): their quotient is the duration within 0.5% on every known-answer launch, and
    each launch says so in time_source."""
    raw = roofline_report.copy()
    raw["report"], raw["id"] = "roofline", raw["ncu_id"]
    assert "smsp__cycles_elapsed.avg.per_second" in raw
    measured, _ = build_kernel_table(raw)
    derived, log = build_kernel_table(raw.drop(columns=["gpu__time_duration.sum", "sm__cycles_elapsed.avg"]))
    assert derived["time_s"].to_numpy() == pytest.approx(measured["time_s"].to_numpy(), rel=5e-3)
    source = "derived: smsp__cycles_elapsed.avg / smsp__cycles_elapsed.avg.per_second"
    assert log.time_sources == {source}
    assert set(derived["time_source"]) == {source}
