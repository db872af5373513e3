"""Several per-rank reports open as one run: rank column, communication, per-rank shares."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rooftui.analysis.ranks import communication_sidecar, is_communication, per_rank, rank_of_report
from tests.profile.conftest import KNOWN_ANSWER_REPORT, rooftui_env, run_rooftui


def test_rank_comes_from_the_report_name():
    assert rank_of_report("/x/job.rank12.ncu-rep") == "12"
    assert rank_of_report("job.rank0.raw.csv") == "0"
    assert rank_of_report("job_rank3.ncu-rep") == "3"
    assert rank_of_report("frankly.ncu-rep") == "" and rank_of_report("job.ncu-rep") == ""


def test_nccl_kernels_are_communication():
    names = pd.Series(["ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclKernel_Broadcast", "gemm", "my_nccl"])
    assert is_communication(names).tolist() == [True, True, False, False]


def test_per_rank_shares_by_hand(tmp_path):
    table = pd.DataFrame(
        {
            "rank": ["0", "0", "0", "1"],
            "device": ["NVIDIA H200"] * 4,
            "time_s": [3e-3, 1e-3, 1e-3, 4e-3],
            "zero_ai": pd.array([False, True, pd.NA, False], dtype="boolean"),
            "communication": [False, False, True, False],
        }
    )
    sidecar = pd.DataFrame(
        {"rank": ["1"], "ncu_id": [9], "name": ["ncclDevKernel_AllReduce"], "time_s": [1e-3]}
    )
    rows = {r["rank"]: r for r in per_rank(table, sidecar).to_dict("records")}
    # rank 0: 5 ms in all; zero-AI 1 ms (the NA launch is unknown, not counted); NCCL 1 ms
    assert rows["0"]["time_s"] == pytest.approx(5e-3)
    assert rows["0"]["zero_ai_time_share"] == pytest.approx(0.2)
    assert rows["0"]["communication_time_share"] == pytest.approx(0.2)
    assert rows["0"]["communication_time_s"] == pytest.approx(1e-3)
    # rank 1: 4 ms of compute + 1 ms of NCCL timed apart
    assert rows["1"]["communication_kernels"] == 1
    assert rows["1"]["communication_time_share"] == pytest.approx(0.2)
    # no NCCL seen at all: unknown, never 0 %
    only = per_rank(table[table["rank"] == "1"])
    assert only["communication_time_share"].isna().all() and only["communication_time_s"].isna().all()


def test_summary_of_two_rank_reports_has_a_rank_column_and_a_per_rank_section(
    tmp_path, fake_bin, shared_report_cache
):
    for rank in (0, 1):  # links: what is checked is the ranks' table, not the reading (tests/ingest)
        (tmp_path / f"job.rank{rank}.ncu-rep").symlink_to(KNOWN_ANSWER_REPORT)
    (tmp_path / "job.communication.csv").write_text(
        "rank,ncu_id,name,time_s,communication,time_source\n"
        "1,0,ncclDevKernel_AllReduce_Sum_f32,0.002,true,measured (gpu__time_duration.sum)\n"
    )
    assert len(communication_sidecar([str(tmp_path / "job.rank0.ncu-rep")])) == 1
    done = run_rooftui(
        ["summary", "--format", "json", "job.rank0.ncu-rep", "job.rank1.ncu-rep"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert {k["rank"] for k in doc["kernels"]} == {"0", "1"}
    assert not any(k["communication"] for k in doc["kernels"])
    ranks = {r["rank"]: r for r in doc["ranks"]}
    assert ranks["0"]["time_s"] == pytest.approx(doc["summary"]["time_s"] / 2)
    assert ranks["1"]["time_s"] == pytest.approx(doc["summary"]["time_s"] / 2 + 0.002)
    assert ranks["1"]["communication_time_share"] == pytest.approx(0.002 / ranks["1"]["time_s"])
    assert ranks["1"]["communication_time_s"] == pytest.approx(0.002)
    assert ranks["0"]["communication_time_share"] is None  # no NCCL kernel seen: unknown
    assert ranks["0"]["communication_time_s"] is None
