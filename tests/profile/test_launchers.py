"""`rooftui profile -- torchrun|mpirun|srun ...`: where ncu goes, which ranks, the stall line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rooftui.errors import RooftuiError
from rooftui.profile.job import NOT_NCCL, ONLY_NCCL, KernelTime, comm_options, counter_options, rank_shares
from rooftui.profile.launchers import parse_ranks, rank_wrapper_script, split_launcher
from rooftui.profile.ncu import NcuOptions
from rooftui.profile.run import NcuLog, stall_message


def test_torchrun_gets_the_wrapper_through_no_python(tmp_path: Path):
    job = split_launcher(["torchrun", "--nproc_per_node", "2", "--standalone", "train.py", "--lr", "1"])
    assert job is not None and job.launcher == "torchrun"
    assert job.launcher_argv == ["torchrun", "--nproc_per_node", "2", "--standalone"]
    assert job.program[1:] == ["train.py", "--lr", "1"]
    assert job.wrapped(Path("/w.sh"))[4:6] == ["--no-python", "/w.sh"]
    assert job.planned_ranks({}) == ((0, 1), "--nproc_per_node 2")


def test_python_m_torch_distributed_run_with_a_module():
    job = split_launcher(["python3", "-m", "torch.distributed.run", "--nproc-per-node=4", "-m", "pkg.train"])
    assert job is not None and job.launcher == "torchrun"
    assert job.launcher_argv == ["python3", "-m", "torch.distributed.run", "--nproc-per-node=4"]
    assert job.program == ["python3", "-m", "pkg.train"]
    assert job.planned_ranks({})[0] == (0, 1, 2, 3)


def test_mpirun_puts_the_wrapper_after_its_options_including_two_valued_mca():
    job = split_launcher(["mpirun", "-np", "2", "--mca", "btl", "self", "--oversubscribe", "python", "x.py"])
    assert job is not None and job.launcher == "mpirun"
    assert job.program == ["python", "x.py"]
    assert job.wrapped(Path("/w.sh")) == [
        "mpirun",
        "-np",
        "2",
        "--mca",
        "btl",
        "self",
        "--oversubscribe",
        "/w.sh",
        "python",
        "x.py",
    ]
    assert job.planned_ranks({})[0] == (0, 1)


def test_srun_with_equals_options_and_flags():
    job = split_launcher(["srun", "--ntasks=8", "-l", "--gpus-per-task", "1", "./app", "-v"])
    assert job is not None and job.launcher == "srun"
    assert job.program == ["./app", "-v"]
    assert job.planned_ranks({}) == (tuple(range(8)), "--ntasks 8")


def _planned(command: list[str], **environ: str) -> tuple[int, ...] | None:
    job = split_launcher([*command, "train.py"])
    assert job is not None and job.program[-1] == "train.py"
    return job.planned_ranks(environ)[0]


@pytest.mark.parametrize(
    ("command", "environ", "ranks"),
    [
        # torchrun on one node of several: RANK = node rank x nproc_per_node + LOCAL_RANK
        (["torchrun", "--nnodes", "2", "--node_rank", "1", "--nproc_per_node", "4"], {}, (4, 5, 6, 7)),
        (["torchrun", "--nnodes=2:2", "--node-rank=0", "--nproc-per-node=2"], {}, (0, 1)),
        (["torchrun", "--nnodes", "2", "--nproc_per_node", "4", "--rdzv-backend", "c10d"], {}, None),
        (["torchrun", "--nnodes", "1:4", "--nproc_per_node", "4"], {}, None),  # elastic
        (["torchrun", "--nproc_per_node", "gpu"], {}, None),
        # Open MPI -N / MPICH -ppn per node, times the hosts listed
        (["mpirun", "-N", "4", "-H", "a:4,b:4"], {}, tuple(range(8))),
        (["mpiexec", "-ppn", "2", "-hosts", "n1,n2,n3"], {}, tuple(range(6))),
        (["mpirun", "--hostfile", "hosts.txt"], {}, None),
        # srun: --ntasks, --nodes x --ntasks-per-node, one-letter values attached, the allocation's count
        (["srun", "-N2", "-n8"], {}, tuple(range(8))),
        (["srun", "--nodes=2-2", "--ntasks-per-node=4"], {}, tuple(range(8))),
        (["srun", "--gpus-per-task", "1"], {"SLURM_NTASKS": "16"}, tuple(range(16))),
        (["srun", "-N", "2"], {"SLURM_NTASKS": "16"}, None),  # its own -N changes the allocation's layout
        (["srun", "--nodes", "2-4", "--ntasks-per-node", "4"], {}, None),
    ],
)
def test_the_ranks_a_launcher_starts_across_nodes(command, environ, ranks):
    assert _planned(command, **environ) == ranks


def test_a_plain_program_is_no_job_and_a_launcher_without_program_is_an_error():
    assert split_launcher(["python", "train.py"]) is None
    with pytest.raises(RooftuiError, match="no program"):
        split_launcher(["mpirun", "-np", "2"])


def test_ranks_lists_and_ranges():
    assert parse_ranks("0,2-3") == (0, 2, 3)
    assert parse_ranks(None) is None and parse_ranks("all") is None
    with pytest.raises(RooftuiError):
        parse_ranks("3-1")
    with pytest.raises(RooftuiError):
        parse_ranks("zero")


@pytest.mark.parametrize("variable", ["RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"])
def test_the_wrapper_runs_ncu_only_for_the_listed_ranks(tmp_path: Path, variable: str):
    fake_ncu = tmp_path / "ncu"
    fake_ncu.write_text('#!/bin/sh\necho "ncu $*"\n')
    fake_ncu.chmod(0o755)
    wrapper = tmp_path / "w.sh"
    wrapper.write_text(rank_wrapper_script([str(fake_ncu), "--metrics", "a,b"], tmp_path / "job", (0, 2)))
    wrapper.chmod(0o755)
    outputs = {}
    for rank in (0, 1, 2):
        env = {"PATH": "/usr/bin:/bin", variable: str(rank)}
        done = subprocess.run(
            [str(wrapper), "echo", "program"], env=env, capture_output=True, text=True, check=True
        )
        outputs[rank] = done.stdout.strip()
    assert outputs[1] == "program"  # not listed: the program alone
    for rank in (0, 2):
        assert outputs[rank] == (
            f"ncu --metrics a,b --log-file {tmp_path / 'job'}.rank{rank}.ncu.log"
            f" -o {tmp_path / 'job'}.rank{rank} echo program"
        )


def test_nccl_is_left_out_of_the_counter_run_and_alone_in_the_time_run():
    options = NcuOptions(metrics=("a", "b"), launch_count=5)
    assert counter_options(options, "time").kernel_name == NOT_NCCL
    assert counter_options(options, "replay").kernel_name is None
    timed = comm_options(options)
    assert timed.kernel_name == ONLY_NCCL and timed.metrics == ("gpu__time_duration.sum",)
    assert timed.launch_count is None  # every NCCL launch, whatever the counter run's filter


def test_the_exclusion_regex_matches_what_ncu_would_filter():
    import re

    pattern = re.compile(NOT_NCCL.removeprefix("regex:"))
    assert pattern.search("ampere_sgemm_128x64") and not pattern.search("ncclDevKernel_AllReduce_Sum_f32")


def test_the_communication_share_per_rank_by_hand():
    compute = [
        KernelTime("0", 1, "gemm", 3e-3),
        KernelTime("0", 2, "relu", 1e-3),
        KernelTime("1", 1, "gemm", 2e-3),
    ]
    comm = [
        KernelTime("0", 7, "ncclDevKernel_AllReduce", 1e-3),
        KernelTime("1", 7, "ncclDevKernel_AllReduce", 2e-3),
    ]
    shares = {s.rank: s for s in rank_shares(compute, comm)}
    assert shares["0"].comm_share == pytest.approx(1 / 5)  # 1 ms of 3 + 1 + 1 ms
    assert shares["1"].comm_share == pytest.approx(2 / 4)
    assert rank_shares(compute, None)[0].comm_share is None  # not timed: unknown, never 0


def test_the_stall_line_names_the_stuck_collective_and_the_way_out():
    line = stall_message([("", "ncclDevKernel_AllReduce_Sum_f32")], 120, True)
    assert "no kernel finished for 120 s" in line
    assert "stuck profiling ncclDevKernel_AllReduce_Sum_f32" in line
    assert "taking more time than expected" in line and "--comm time" in line
    assert "\n" not in line


def test_the_stall_line_for_ranks_profiled_together_says_one_rank_at_a_time():
    stuck = [("rank 0: ", "nhwcToFoldedNhwcKernel"), ("rank 1: ", "nhwcToFoldedNhwcKernel")]
    line = stall_message(stuck, 45, False)
    assert "rank 0: nhwcToFoldedNhwcKernel, rank 1: nhwcToFoldedNhwcKernel" in line
    assert "profile one rank at a time" in line


def test_a_kernel_line_without_an_id_counts_as_profiled():
    # ncu 2025.3 under --kernel-name, from sample_data/multigpu/ranks_together.rank0.ncu.log
    log = NcuLog()
    log.read_line('==PROF== Profiling "vectorized_elementwise_kernel": 0%....50%....100% - 8 passes')
    log.read_line('==PROF== Profiling "daxpy" - 12 (13/300): 0%....50%....100% - 7 passes')
    assert log.kernels == ["vectorized_elementwise_kernel", "daxpy"] and log.passes == [8, 7]


def test_the_saved_stalled_run_counts_its_kernels():
    from tests.profile.conftest import REPO

    log = NcuLog()
    for line in (REPO / "sample_data/multigpu/ranks_together.rank0.ncu.log").read_text().splitlines():
        log.read_line(line)
    assert len(log.kernels) == 55  # 56 started, the last never finished
