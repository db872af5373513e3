"""`rooftui profile -- LAUNCHER ...` through the real CLI, with a fake ncu and a fake launcher."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.profile.conftest import KNOWN_ANSWER_REPORT, rooftui_env, run_rooftui, run_rooftui_process

# ncu: records each profiling run (rank, kernel filter, metrics); writes the log and a real
# report (a link to the known-answer report: the run's shared report cache then reads it once,
# not once per rank and test); for --import prints ncu's raw CSV as ncu 2025.3 does under
# --print-units base (a units row, nanoseconds with thousands separators): one 3 ms compute
# kernel, or one 2 ms all-reduce.
JOB_NCU = f"""
case "$1" in --import)
  case "$2" in
    *.comm.*) k=ncclDevKernel_AllReduce_Sum_f32_RING_LL; t=2,000,000 ;;
    *) k=daxpy; t=3,000,000 ;;
  esac
  printf '"ID","Kernel Name","gpu__time_duration.sum"\\n"","","ns"\\n"0","%s","%s"\\n' "$k" "$t"
  exit 0 ;;
esac
kname=""; metrics=""; prev=""
for a in "$@"; do
  case "$prev" in --kernel-name) kname=$a ;; --metrics) metrics=$a ;; esac
  prev=$a
done
rank=$RANK$OMPI_COMM_WORLD_RANK$SLURM_PROCID
echo "rank=$rank filter=$kname metrics=${{metrics%%,*}}" >> "$(dirname "$0")/calls.txt"
echo '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes' >> "$log"
ln -sf '{KNOWN_ANSWER_REPORT}' "$out.ncu-rep"
echo "==PROF== Report: $out.ncu-rep" >> "$log"
"""

# A launcher: starts its program once per rank, one after the other, with the rank in VAR.
FAKE_LAUNCHER = """#!/bin/sh
n=1
while [ $# -gt 0 ]; do
  case "$1" in
    --nproc_per_node|-np|-n) n=$2; shift 2 ;;
    --no-python|--standalone) shift ;;
    -*) shift 2 ;;
    *) break ;;
  esac
done
n=${FAKE_RANKS:-$n}  # a job whose rank count its options do not give (nodes, hosts, allocation)
i=0
while [ $i -lt $n ]; do
  env VAR=$i "$@" || exit $?
  i=$((i + 1))
done
"""

# What these tests check is the job around the reports, not their reading (tests/ingest).
pytestmark = pytest.mark.usefixtures("shared_report_cache")

LAUNCHERS = {
    "torchrun": ("torchrun", "--nproc_per_node", "RANK"),
    "mpirun": ("mpirun", "-np", "OMPI_COMM_WORLD_RANK"),
    "srun": ("srun", "-n", "SLURM_PROCID"),
}


def _setup(tmp_path: Path, fake_bin: Path, fake_ncu, launcher: str) -> tuple[Path, dict[str, str]]:
    fake_ncu(JOB_NCU)
    name, _, variable = LAUNCHERS[launcher]
    path = fake_bin / name
    path.write_text(FAKE_LAUNCHER.replace("VAR", variable))
    path.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    (work / "train.sh").write_text(f'echo "plain rank ${variable}" >> plain.txt\n')
    return work, rooftui_env(fake_bin)


def _program(launcher: str) -> list[str]:
    # torchrun starts `python PROGRAM`; its Python is torchrun's own (here the fake's /bin/sh).
    return ["train.sh"] if launcher == "torchrun" else ["sh", "train.sh"]


@pytest.mark.parametrize("launcher", list(LAUNCHERS))
def test_every_rank_is_profiled_alone_then_timed_for_nccl_and_loaded_together(
    tmp_path, fake_bin, fake_ncu, launcher
):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, launcher)
    name, count, _ = LAUNCHERS[launcher]
    command = [name, count, "2", *_program(launcher)]
    done = run_rooftui(["profile", "--arch", "sm_90", "-o", "job", "--", *command], work, env)
    assert done.returncode == 0, done.stderr
    said = {"torchrun": "--nproc_per_node 2", "mpirun": "-np 2", "srun": "--ntasks 2"}[launcher]
    chose = f"ncu on one rank per run of the job (ranks 0-1 from {said}, 4 runs of the job)"
    assert f"rooftui: {launcher} job: {chose}" in done.stderr
    calls = (fake_bin / "calls.txt").read_text().splitlines()
    assert calls == [
        "rank=0 filter=regex:^(?!nccl) metrics=gpu__time_duration.sum",
        "rank=0 filter=regex:^nccl metrics=gpu__time_duration.sum",
        "rank=1 filter=regex:^(?!nccl) metrics=gpu__time_duration.sum",
        "rank=1 filter=regex:^nccl metrics=gpu__time_duration.sum",
    ]
    # While one rank is under ncu the other runs plainly: rank 1 in runs 1-2, rank 0 in 3-4.
    assert (work / "plain.txt").read_text().splitlines() == ["plain rank 1"] * 2 + ["plain rank 0"] * 2
    with open(work / "job.communication.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["rank"], r["name"], float(r["time_s"]), r["communication"]) for r in rows] == [
        ("0", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0.002, "true"),
        ("1", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0.002, "true"),
    ]
    # 2 ms of NCCL against 3 ms of compute: 2 / (3 + 2) = 40 %.
    assert "rank 0: 1 kernels 3.000 ms; 1 NCCL launches 2.000 ms, communication share 40.0%" in done.stderr
    assert "rank 1: 1 kernels 3.000 ms; 1 NCCL launches 2.000 ms, communication share 40.0%" in done.stderr
    assert (work / "job.rank0.ncu-rep").exists() and (work / "job.rank1.ncu-rep").exists()
    assert not list(work.glob("*.started"))  # the wrapper's marks go once the ranks are known
    assert "daxpy" in done.stdout  # the summary of both reports


def _counter_calls(fake_bin: Path) -> list[str]:
    return [c.split()[0] for c in (fake_bin / "calls.txt").read_text().splitlines() if "(?!nccl)" in c]


def test_srun_over_two_nodes_profiles_every_rank_of_both(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "srun")
    env["FAKE_RANKS"] = "4"  # what srun -N 2 --ntasks-per-node 2 starts
    done = run_rooftui(
        [
            "profile",
            "--arch",
            "sm_90",
            "--comm",
            "skip",
            "-o",
            "job",
            "--",
            "srun",
            "-N",
            "2",
            "--ntasks-per-node",
            "2",
            "sh",
            "train.sh",
        ],
        work,
        env,
    )
    assert done.returncode == 0, done.stderr
    assert "ranks 0-3 from --nodes 2 --ntasks-per-node 2, 4 runs of the job" in done.stderr
    assert _counter_calls(fake_bin) == ["rank=0", "rank=1", "rank=2", "rank=3"]
    assert "the job started" not in done.stderr  # the plan was right


def test_mpirun_with_no_rank_count_learns_the_ranks_from_its_first_run(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "mpirun")
    env["FAKE_RANKS"] = "3"  # a hostfile's slots, say: nothing on the command line tells
    done = run_rooftui(
        [
            "profile",
            "--arch",
            "sm_90",
            "--comm",
            "skip",
            "-o",
            "job",
            "--",
            "mpirun",
            "--hostfile",
            "hosts.txt",
            "sh",
            "train.sh",
        ],
        work,
        env,
    )
    assert done.returncode == 0, done.stderr
    assert "ranks not known from the options (mpirun's options name no -np" in done.stderr
    assert "the job started ranks 0-2 (mpirun's options name no -np" in done.stderr
    assert _counter_calls(fake_bin) == ["rank=0", "rank=1", "rank=2"]
    reports = sorted(p.name for p in work.glob("job.rank*.ncu-rep"))
    assert reports == [f"job.rank{r}.ncu-rep" for r in range(3)]


def test_a_job_starting_more_ranks_than_its_options_say_has_every_rank_profiled(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "srun")
    env["FAKE_RANKS"] = "3"
    done = run_rooftui(
        [
            "profile",
            "--arch",
            "sm_90",
            "--comm",
            "skip",
            "-o",
            "job",
            "--",
            "srun",
            "-n",
            "2",
            "sh",
            "train.sh",
        ],
        work,
        env,
    )
    assert done.returncode == 0, done.stderr
    assert "the job started ranks 0-2 (the options said 0-1): profiling each, 3 runs" in done.stderr
    assert _counter_calls(fake_bin) == ["rank=0", "rank=1", "rank=2"]


def test_ranks_the_job_never_starts_are_one_line_and_exit_2(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "torchrun")
    done = run_rooftui(
        [
            "profile",
            "--arch",
            "sm_90",
            "--ranks",
            "5",
            "-o",
            "job",
            "--",
            "torchrun",
            "--nproc_per_node",
            "2",
            "train.sh",
        ],
        work,
        env,
    )
    assert done.returncode == 2
    assert "--ranks 5: the job started no such rank (it started ranks 0-1)" in done.stderr
    assert "Traceback" not in done.stderr


def test_ranks_profiles_only_the_listed_rank(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "mpirun")
    done = run_rooftui(
        [
            "profile",
            "--arch",
            "sm_90",
            "--ranks",
            "1",
            "--comm",
            "skip",
            "-o",
            "job",
            "--",
            "mpirun",
            "-np",
            "3",
            "sh",
            "train.sh",
        ],
        work,
        env,
    )
    assert done.returncode == 0, done.stderr
    calls = (fake_bin / "calls.txt").read_text().splitlines()
    assert calls == ["rank=1 filter=regex:^(?!nccl) metrics=gpu__time_duration.sum"]
    assert (work / "plain.txt").read_text().splitlines() == ["plain rank 0", "plain rank 2"]
    assert "NCCL not timed (--comm skip)" in done.stderr
    assert not (work / "job.communication.csv").exists()


def test_ranks_without_a_launcher_is_one_line_and_exit_2(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "torchrun")
    done = run_rooftui(["profile", "--arch", "sm_90", "--ranks", "0", "--", "python", "x.py"], work, env)
    assert done.returncode == 2
    assert "--ranks needs a launcher" in done.stderr and "Traceback" not in done.stderr


def test_a_stuck_kernel_is_named_and_the_run_cut_short_leaves_a_report_that_opens(
    tmp_path, fake_bin, fake_ncu
):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "torchrun")
    fake_ncu(f"""
ln -sf '{KNOWN_ANSWER_REPORT}' "$out.ncu-rep"
echo '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes' >> "$log"
printf '==PROF== Profiling "ncclDevKernel_AllReduce_Sum_f32" - 1: 0%%....' >> "$log"
exec sleep 60
""")
    done = run_rooftui_process(
        [
            "profile",
            "--arch",
            "sm_90",
            "--stall-timeout",
            "1",
            "--stop-on-stall",
            "-o",
            "job",
            "--",
            "torchrun",
            "--nproc_per_node",
            "1",
            "train.sh",
        ],
        work,
        env,
        timeout=50,
    )
    assert done.returncode == 130, done.stderr
    stuck = "no kernel finished for 1 s, stuck profiling rank 0: ncclDevKernel_AllReduce_Sum_f32"
    assert stuck in done.stderr
    assert "leave NCCL kernels out of replay" in done.stderr
    note = (work / "job.rank0.cut-short.txt").read_text()
    assert note.startswith("counter run cut short: rooftui: no kernel finished")
    opened = run_rooftui(["summary", "job.rank0.ncu-rep"], work, env)
    assert opened.returncode == 0 and "daxpy" in opened.stdout
    assert "job.rank0.ncu-rep is partial, counter run cut short: rooftui: no kernel finished" in opened.stderr


def test_a_program_busy_before_any_kernel_is_not_called_stuck(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "torchrun")
    # busy three times the stall timeout before its first kernel; rooftui's export of the
    # report (ncu --import, this same fake) is not slowed down
    fake_ncu(f"""
case " $* " in *" --import "*) ;; *) sleep 1.5 ;; esac
echo '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes' >> "$log"
ln -sf '{KNOWN_ANSWER_REPORT}' "$out.ncu-rep"
""")
    done = run_rooftui(
        [
            "profile",
            "--arch",
            "sm_90",
            "--stall-timeout",
            "0.5",
            "--stop-on-stall",
            "--comm",
            "skip",
            "-o",
            "job",
            "--",
            "torchrun",
            "--nproc_per_node",
            "1",
            "train.sh",
        ],
        work,
        env,
    )
    assert done.returncode == 0, done.stderr
    assert "no kernel finished" not in done.stderr


# --dedup: rank 0's export has a counter, rank 1's only its time (its own, 4 ms).
RANK0 = (
    r"""printf '"ID","Kernel Name","Grid Size","Block Size","gpu__time_duration.sum","""
    r""""dram__bytes.sum"\n"""
    r""""","","","","ns","byte"\n"0","daxpy","(8, 1, 1)","(256, 1, 1)","3,000,000","4,096"\n'"""
)
RANK1 = (
    r"""printf '"ID","Kernel Name","Grid Size","Block Size","gpu__time_duration.sum"\n"""
    r""""","","","","ns"\n"0","daxpy","(8, 1, 1)","(256, 1, 1)","4,000,000"\n'"""
)
DEDUP_NCU = JOB_NCU.replace(
    "    *) k=daxpy; t=3,000,000 ;;", f"    *rank0*) {RANK0}; exit 0 ;;\n    *) {RANK1}; exit 0 ;;"
).replace(
    'echo "rank=$rank filter=$kname metrics=${metrics%%,*}"',
    'echo "rank=$rank filter=$kname metrics=$metrics"',
)
assert DEDUP_NCU.count("exit 0 ;;") == 3 and "metrics=$metrics" in DEDUP_NCU


def test_dedup_profiles_one_rank_with_the_whole_list_and_times_the_others(tmp_path, fake_bin, fake_ncu):
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "torchrun")
    fake_ncu(DEDUP_NCU)
    done = run_rooftui(
        [
            "profile",
            "--dedup",
            "--arch",
            "sm_90",
            "-o",
            "job",
            "--",
            "torchrun",
            "--nproc_per_node",
            "2",
            "train.sh",
        ],
        work,
        env,
    )
    assert done.returncode == 0, done.stderr
    counter_runs = [c for c in (fake_bin / "calls.txt").read_text().splitlines() if "(?!nccl)" in c]
    assert counter_runs[0].startswith("rank=0") and len(counter_runs[0].split("metrics=")[1].split(",")) > 20
    assert counter_runs[1] == "rank=1 filter=regex:^(?!nccl) metrics=gpu__time_duration.sum"
    with open(work / "job.rank1.raw.csv", newline="") as handle:
        rank1 = list(csv.DictReader(handle))[1:]
    assert [
        (r["gpu__time_duration.sum"], r["dram__bytes.sum"], r["rooftui__counters_from"]) for r in rank1
    ] == [("4,000,000", "4,096", "rank 0:0")]
    assert "rank 1: its own times, rank 0's counters launch by launch" in done.stderr


def test_a_failed_launched_job_leaves_no_scratch_file_in_the_users_folder(tmp_path, fake_bin, fake_ncu):
    # issue #25: the rank wrapper and the REPORT.rankN.started marks live in a temporary
    # folder beside the reports, removed however the run ends (here: ncu fails on every rank)
    work, env = _setup(tmp_path, fake_bin, fake_ncu, "torchrun")
    fake_ncu("echo '==ERROR== something went wrong' >> \"$log\"\nexit 3\n")
    done = run_rooftui(
        [
            "profile",
            "--arch",
            "sm_90",
            "-o",
            "job",
            "--",
            "torchrun",
            "--nproc_per_node",
            "2",
            *_program("torchrun"),
        ],
        work,
        env,
    )
    assert done.returncode == 2, done.stderr
    left = sorted(
        p.name
        for p in work.iterdir()
        if p.name.endswith((".started", ".sh")) or p.name.startswith(".rooftui-")
    )
    assert left == ["train.sh"], left
