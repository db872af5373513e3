"""What `rooftui profile -- torchrun --nproc_per_node 2 ddp_step.py` collected on two H200s
(sample_data/multigpu/real_run.sh; README there). Each expected number comes from a file
rooftui did not compute it from: ncu's own logs, ncu's raw CSV read with the csv module,
the NCCL time runs' CSV."""

from __future__ import annotations

import csv
import lzma

import pytest

from rooftui.analysis import load_run
from rooftui.analysis.ranks import communication_sidecar, per_rank
from rooftui.profile.run import NcuLog
from tests.profile.conftest import REPO, rooftui_env, run_rooftui

MULTIGPU = REPO / "sample_data" / "multigpu"
RANK_REPORTS = [MULTIGPU / f"ddp.rank{rank}.raw.csv.xz" for rank in (0, 1)]
TIME = "gpu__time_duration.sum"


def read_log(name: str) -> NcuLog:
    log = NcuLog()
    for line in (MULTIGPU / name).read_text().splitlines():
        log.read_line(line)
    return log


def raw_rows(path) -> tuple[dict[str, str], list[dict[str, str]]]:
    """ncu's raw CSV: the units row and the kernel rows, as ncu wrote them."""
    with lzma.open(path, "rt", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return rows[0], rows[1:]


def nccl_seconds(rank: str) -> list[float]:
    with open(MULTIGPU / "ddp.communication.csv", newline="") as handle:
        return [float(r["time_s"]) for r in csv.DictReader(handle) if r["rank"] == rank]


@pytest.fixture(scope="module")
def run():
    return load_run(RANK_REPORTS)


def test_each_rank_report_holds_every_compute_kernel_ncu_profiled_with_all_counters(run):
    for rank in ("0", "1"):
        profiled = read_log(f"ddp.rank{rank}.ncu.log")
        assert len(profiled.kernels) == 215 and set(profiled.passes) == {8}
        assert not any(name.startswith("nccl") for name in profiled.kernels)
        mine = run.kernels[run.kernels["rank"] == rank]
        assert len(mine) == 215
        assert mine[["bytes_hbm", "bytes_l2", "bytes_l1", "time_s"]].notna().all().all()
    assert run.missing_metrics == []


def test_the_two_ranks_are_two_gpus_each_against_its_own_ceilings(run):
    devices = run.kernels.groupby("rank")["device"].unique().map(list).to_dict()
    assert devices == {"0": ["NVIDIA H200 [device 0]"], "1": ["NVIDIA H200 [device 1]"]}


def test_every_nccl_launch_of_the_step_was_timed_once_per_rank():
    # ncu's log of each NCCL time run: 2 buffer broadcasts (forward) and 2 gradient
    # all-reduces (backward), one pass each; the CSV holds exactly those launches.
    for rank in ("0", "1"):
        log = read_log(f"ddp.comm.rank{rank}.ncu.log")
        broadcast, all_reduce = "ncclDevKernel_Broadcast_RING_LL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
        assert log.kernels == [broadcast, broadcast, all_reduce, all_reduce]
        assert set(log.passes) == {1}
        assert len(nccl_seconds(rank)) == 4
    # ncu's Python reader gave rank 0's first broadcast as 189760 ns (README).
    assert nccl_seconds("0")[0] == pytest.approx(189760e-9)


def test_per_rank_shares_match_ncus_own_times(run):
    sidecar = communication_sidecar([str(p) for p in RANK_REPORTS])
    table = per_rank(run.kernels, sidecar).set_index("rank")
    for rank, report in zip(("0", "1"), RANK_REPORTS):
        units, rows = raw_rows(report)
        assert units[TIME] == "ns"
        compute = sum(float(r[TIME].replace(",", "")) for r in rows) * 1e-9
        comm = sum(nccl_seconds(rank))
        assert table.loc[rank, "kernels"] == 215
        assert table.loc[rank, "communication_kernels"] == 4
        assert table.loc[rank, "time_s"] == pytest.approx(compute + comm, rel=1e-9)
        assert table.loc[rank, "communication_time_share"] == pytest.approx(comm / (compute + comm), rel=1e-9)
    # The printed shares (README): 18.7 % and 20.5 % of each rank's summed kernel time.
    assert round(100 * table.loc["0", "communication_time_share"], 1) == 18.7
    assert round(100 * table.loc["1", "communication_time_share"], 1) == 20.5


def test_summary_of_both_rank_reports_shows_both_gpus_and_the_per_rank_table(tmp_path, fake_bin):
    done = run_rooftui(["summary", "--top", "3", *map(str, RANK_REPORTS)], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 0, done.stderr
    for device in ("0", "1"):
        assert f"Ceilings NVIDIA H200 [device {device}]" in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.strip().startswith(("0 ", "1 "))]
    # NCCL kernels, NCCL time, communication share: 4 launches per rank, their times summed
    expected = [("0", "4", "336", "µs", "18.7%"), ("1", "4", "375", "µs", "20.5%")]
    assert [(r[0], *r[-4:]) for r in rows] == expected


def test_readme_numbers_are_the_runs_wall_times_and_shares():
    import re

    walls = {}
    outputs = ("real_run.console.txt", "real_run.ddp.stdout.txt", "real_run.single.stdout.txt")
    for line in "\n".join((MULTIGPU / name).read_text() for name in outputs).splitlines():
        if match := re.match(r"WALL (\d+) ms rc=(\d+): (.*)", line):
            walls[match[3]] = (int(match[1]) / 1000, int(match[2]))
    (rooftui_2,) = [v for k, v in walls.items() if "rooftui profile" in k and "torchrun" in k]
    (rooftui_1,) = [v for k, v in walls.items() if "rooftui profile" in k and "torchrun" not in k]
    (bare,) = [v for k, v in walls.items() if k.startswith("timeout -k 10 150 ncu")]
    (plain_2,) = [v for k, v in walls.items() if k.startswith("torchrun")]
    assert rooftui_2[1] == rooftui_1[1] == 0 and bare[1] == 124  # 124: timeout killed it
    readme = (REPO / "docs" / "multi-gpu.md").read_text()  # the numbers moved there from README.md
    for seconds in (rooftui_2[0], rooftui_1[0], plain_2[0]):
        assert f"{seconds:.1f} s" in readme
    assert "killed by `timeout 150`" in readme and "| 0 | 1.79 ms | 4.8% | 4, 0.336 ms | 18.7% |" in readme
    assert f"{rooftui_2[0] / rooftui_1[0]:.1f} times the single-GPU profile" in readme


def test_the_bare_ncu_run_hung_in_the_first_all_reduce_after_302_kernels():
    log = read_log("bare_ncu.ncu.log")
    assert len(log.kernels) == 302 and set(log.passes) == {8} and log.slow_warning
    assert sum(name.startswith("ncclDevKernel_Broadcast") for name in log.kernels) == 4
    started = [
        line
        for line in (MULTIGPU / "bare_ncu.ncu.log").read_text().splitlines()
        if line.startswith("==PROF== Profiling")
    ]
    assert len(started) == 303 and '"ncclDevKernel_AllReduce_Sum_f..." - 302:' in started[-1]
    assert "302 kernels profiled over both ranks" in (REPO / "docs" / "multi-gpu.md").read_text()
