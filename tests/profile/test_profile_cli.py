"""`rooftui profile` through the real CLI, with a fake ncu: argv, report, errors, Ctrl-C."""

from __future__ import annotations

import glob
import importlib.util
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rooftui.model.metrics import architecture_for, required_metrics
from rooftui.profile.ncu import USUAL_NCU_PLACES
from rooftui.profile.run import NcuLog, readable_report
from tests.profile.conftest import (
    KNOWN_ANSWER_REPORT,
    as_from_a_terminal,
    rooftui_env,
    run_rooftui,
    run_rooftui_process,
)

# The fake ncu links the known-answer report as its output: these tests check the command
# around the report, not its reading (tests/ingest), so the run's report cache reads it once.
pytestmark = pytest.mark.usefixtures("shared_report_cache")

HOPPER = ",".join(required_metrics(architecture_for("9.0")))

# What ncu 2025.3 writes for a good run: a line per profiled kernel, then the report.
GOOD_RUN = f"""
echo '==PROF== Connected to process 4242 (/usr/bin/python3.12)' >> "$log"
echo '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes' >> "$log"
echo '==PROF== Profiling "saxpy" - 1: 0%....50%....100% - 7 passes' >> "$log"
echo '==PROF== Disconnected from process 4242' >> "$log"
ln -sf '{KNOWN_ANSWER_REPORT}' "$out.ncu-rep"
echo "==PROF== Report: $PWD/$out.ncu-rep" >> "$log"
"""
COUNTERS_NOT_PERMITTED = """
echo '==PROF== Connected to process 4242 (/usr/bin/python3.12)' >> "$log"
echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU \
Performance Counters on the target device 0. For instructions on enabling permissions and to \
get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM' >> "$log"
exit 1
"""
COMMAND_FAILS_WITH_3 = """
echo '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes' >> "$log"
echo 'traceback from the program' >&2
cp "$(dirname "$0")/../report.bin" "$out.ncu-rep"
echo '==ERROR== The application returned an error code (3).' >> "$log"
echo "==PROF== Report: $PWD/$out.ncu-rep" >> "$log"
exit 3
"""
NOTHING_PROFILED = """
echo '==WARNING== No kernels were profiled.' >> "$log"
"""
# Saves what it has on SIGINT, as ncu does.
SLOW_RUN_SAVING_ON_CTRL_C = """
trap 'cp "$(dirname "$0")/../report.bin" "$out.ncu-rep"; \
echo "==PROF== Report: $PWD/$out.ncu-rep" >> "$log"; exit 130' INT
echo '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes' >> "$log"
touch "$(dirname "$0")/started"
while :; do sleep 0.1; done
"""


def test_profile_runs_ncu_with_the_gpus_metrics_and_prints_the_summary(
    tmp_path, fake_bin, fake_ncu, fake_nvidia_smi
):
    fake_ncu(GOOD_RUN)
    fake_nvidia_smi("NVIDIA H200, 9.0")
    # a real process: ncu's progress is echoed to the real stderr
    done = run_rooftui_process(
        [
            "profile",
            "--exhaustive",
            "--profile-from-start",
            "off",
            "-o",
            "step",
            "--",
            "python3",
            "step.py",
            "--amp",
        ],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 0, done.stderr
    argv = (fake_bin / "argv.txt").read_text().splitlines()
    assert argv == [
        "--metrics",
        HOPPER,
        "--nvtx",
        "--clock-control",
        "none",
        "--target-processes",
        "all",
        "--profile-from-start",
        "off",
        "--log-file",
        "step.ncu.log",
        "-o",
        "step",
        "python3",
        "step.py",
        "--amp",
    ]
    assert '==PROF== Profiling "daxpy"' in done.stderr  # ncu's progress, echoed
    assert f"rooftui: 2 kernels profiled, 7 replay passes each, in 0 s: {tmp_path}/step.ncu-rep" in (
        done.stderr
    )
    assert "daxpy" in done.stdout and "fma_loop" in done.stdout  # rooftui summary's table
    assert (tmp_path / "step.ncu.log").read_text().count("==PROF== Profiling") == 2


def test_ncu_from_environment_variable_and_arch_option(tmp_path, fake_bin, fake_ncu):
    ncu = fake_ncu(GOOD_RUN)
    elsewhere = tmp_path / "nsight"
    elsewhere.mkdir()
    shutil.move(ncu, elsewhere / "ncu")
    done = run_rooftui(
        ["profile", "--arch", "sm_80", "-o", "r", "--launch-count", "5", "-k", "regex:axpy", "./app"],
        tmp_path,
        rooftui_env(fake_bin, ROOFTUI_NCU=str(elsewhere / "ncu")),
    )
    assert done.returncode == 0, done.stderr
    argv = (elsewhere / "argv.txt").read_text().splitlines()
    assert argv[1] == ",".join(required_metrics(architecture_for("8.0")))
    assert argv[7:] == [
        "--kernel-name",
        "regex:axpy",
        "--launch-count",
        "5",
        "--log-file",
        "r.ncu.log",
        "-o",
        "r",
        "./app",
    ]


def test_counters_not_permitted_says_the_fix_in_one_line(tmp_path, fake_bin, fake_ncu):
    fake_ncu(COUNTERS_NOT_PERMITTED)
    done = run_rooftui(
        ["profile", "--exhaustive", "--arch", "sm_90", "-o", "r", "./app"], tmp_path, rooftui_env(fake_bin)
    )
    assert done.returncode == 2
    last = done.stderr.splitlines()[-1]
    assert last.startswith("rooftui: ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM)")
    assert "run as root" in last and "NVreg_RestrictProfilingToAdminUsers=0" in last
    assert "ERR_NVGPUCTRPERM: Permission issue with Performance Counters" in last
    assert [line for line in done.stderr.splitlines() if line.startswith("rooftui:")] == [last]


def test_failing_command_passes_its_exit_code_through_and_keeps_the_report(tmp_path, fake_bin, fake_ncu):
    fake_ncu(COMMAND_FAILS_WITH_3)
    (tmp_path / "report.bin").write_bytes(b"partial report")
    done = run_rooftui(
        ["profile", "--exhaustive", "--arch", "sm_90", "-o", "r", "./app"], tmp_path, rooftui_env(fake_bin)
    )
    assert done.returncode == 3
    assert done.stderr.splitlines()[-1] == (
        "rooftui: the profiled command exited with code 3 — "
        f"ncu kept the 1 kernel it had profiled in {tmp_path}/r.ncu-rep"
    )
    assert done.stdout == ""


def test_missing_ncu_says_where_it_usually_is(tmp_path, fake_bin):
    if shutil.which("ncu", path="/usr/bin:/bin") or any(glob.glob(p) for p in USUAL_NCU_PLACES):
        pytest.skip("this machine has an ncu in a usual place")
    done = run_rooftui(["profile", "--arch", "sm_90", "./app"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 2
    assert done.stderr == (
        "rooftui: ncu (Nsight Compute) not found on PATH — it is usually /usr/local/cuda/bin/ncu "
        "or /opt/nvidia/nsight-compute/<version>/ncu; put it on PATH, or pick it with --ncu PATH "
        "or $ROOFTUI_NCU\n"
    )


def test_ncu_option_pointing_nowhere_is_one_line(tmp_path, fake_bin):
    done = run_rooftui(
        ["profile", "--ncu", str(tmp_path / "no" / "ncu"), "--arch", "sm_90", "./app"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert f"ncu not found at '{tmp_path}/no/ncu'" in done.stderr


def test_existing_report_is_not_overwritten_and_ncu_not_started(tmp_path, fake_bin, fake_ncu):
    fake_ncu(GOOD_RUN)
    (tmp_path / "r.ncu-rep").write_bytes(b"yesterday's run")
    done = run_rooftui(
        ["profile", "--exhaustive", "--arch", "sm_90", "-o", "r", "./app"], tmp_path, rooftui_env(fake_bin)
    )
    assert done.returncode == 2
    assert done.stderr == "rooftui: r.ncu-rep: report already exists — pass --force to overwrite it\n"
    assert not (fake_bin / "argv.txt").exists()
    assert (tmp_path / "r.ncu-rep").read_bytes() == b"yesterday's run"


def test_force_tells_ncu_to_overwrite(tmp_path, fake_bin, fake_ncu):
    fake_ncu(GOOD_RUN)
    (tmp_path / "r.ncu-rep").write_bytes(b"yesterday's run")
    done = run_rooftui(
        ["profile", "--exhaustive", "--arch", "sm_90", "-o", "r", "--force", "./app"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 0, done.stderr
    assert "-f" in (fake_bin / "argv.txt").read_text().splitlines()


def test_nothing_profiled_explains_profile_from_start_and_filters(tmp_path, fake_bin, fake_ncu):
    fake_ncu(NOTHING_PROFILED)
    done = run_rooftui(
        ["profile", "--arch", "sm_90", "--profile-from-start", "off", "./app"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "rooftui: ncu profiled no kernel — with --profile-from-start off the program must call "
        "cudaProfilerStart() (torch.cuda.profiler.start()); check the --nvtx-include and "
        "--kernel-name filters"
    )


def test_ctrl_c_keeps_what_ncu_wrote_and_says_where(tmp_path, fake_bin, fake_ncu):
    fake_ncu(SLOW_RUN_SAVING_ON_CTRL_C)
    (tmp_path / "report.bin").write_bytes(b"partial report")
    process = subprocess.Popen(
        [sys.executable, "-m", "rooftui", "profile", "--exhaustive", "--arch", "sm_90", "-o", "r", "./app"],
        cwd=tmp_path,
        env=rooftui_env(fake_bin),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_from_a_terminal,
    )
    watchdog = threading.Timer(60, os.killpg, (process.pid, signal.SIGKILL))
    watchdog.start()
    # rooftui echoes ncu's log from inside its wait loop: once the first line is echoed,
    # rooftui is waiting on ncu, where Ctrl-C is handled.
    while "Profiling" not in process.stderr.readline():
        assert process.poll() is None, "rooftui ended before profiling started"
    os.killpg(process.pid, signal.SIGINT)  # as the terminal does: rooftui, ncu and the program
    _, stderr = process.communicate(timeout=30)
    watchdog.cancel()
    assert process.returncode == 130
    assert stderr.splitlines()[-1] == (
        f"rooftui: interrupted — ncu kept the 1 kernel it had profiled in {tmp_path}/r.ncu-rep,"
        " marked partial by r.cut-short.txt beside it"
    )
    assert (tmp_path / "r.ncu-rep").read_bytes() == b"partial report"
    assert (tmp_path / "r.cut-short.txt").read_text().splitlines()[0] == "cut short: interrupted (Ctrl-C)"


def test_a_report_cut_short_is_noted_wherever_it_is_opened_until_profiled_again(tmp_path, fake_bin, fake_ncu):
    from rooftui.ingest.sidecars import write_cut_short_note

    (tmp_path / "r.ncu-rep").symlink_to(KNOWN_ANSWER_REPORT)
    write_cut_short_note(tmp_path / "r.ncu-rep", "cut short: interrupted (Ctrl-C)")
    env = rooftui_env(fake_bin)
    opened = run_rooftui(["summary", "r.ncu-rep"], tmp_path, env)
    assert opened.returncode == 0, opened.stderr
    assert (
        "note: r.ncu-rep is partial, cut short: interrupted (Ctrl-C) (r.cut-short.txt): it"
        " holds only the kernels profiled before the stop"
    ) in opened.stderr
    fake_ncu(
        f"ln -sf '{KNOWN_ANSWER_REPORT}' \"$out.ncu-rep\"\n"
        'echo \'==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes\' >> "$log"\n'
    )
    again = run_rooftui(
        ["profile", "--exhaustive", "--arch", "sm_90", "--force", "-o", "r", "./app"], tmp_path, env
    )
    assert again.returncode == 0, again.stderr
    assert not (tmp_path / "r.cut-short.txt").exists() and "partial" not in again.stderr


def test_profile_needs_a_command(tmp_path, fake_bin):
    done = run_rooftui(["profile", "--arch", "sm_90"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 2
    assert "Missing argument 'COMMAND...'" in done.stderr


def test_progress_lines_are_counted_with_and_without_launch_count():
    log = NcuLog()
    for line in (
        '==PROF== Profiling "probe_fma" - 0: 0%....50%....100% - 8 passes',
        '==PROF== Profiling "probe_fma" - 1 (2/300): 0%....50%....100% - 8 passes',
        '==PROF== Profiling "copy" - 2 (3/300): 0%....50%....100% - 1 pass',
        "==PROF== Report: /tmp/r.ncu-rep",
    ):
        log.read_line(line)
    assert log.kernels == ["probe_fma", "probe_fma", "copy"]
    assert log.passes == [8, 8, 1]
    assert log.report == Path("/tmp/r.ncu-rep")


def test_without_ncu_report_the_report_is_exported_to_csv_by_the_same_ncu(tmp_path, fake_ncu, monkeypatch):
    ncu = fake_ncu("""
[ "$1" = --import ] && [ "$3 $4 $5 $6 $7" = "--csv --page raw --print-units base" ] && cat "$2.csv"
""")
    report = tmp_path / "step.ncu-rep"
    report.write_bytes(b"report")
    (tmp_path / "step.ncu-rep.csv").write_text('"ID","gpu__time_duration.sum"\n')
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    said = io.StringIO()
    assert readable_report(report, str(ncu), echo=said) == tmp_path / "step.raw.csv"
    assert (tmp_path / "step.raw.csv").read_text() == '"ID","gpu__time_duration.sum"\n'
    assert said.getvalue() == (
        f"rooftui: no ncu-report package here; reading {tmp_path}/step.raw.csv, exported by ncu\n"
    )


def test_with_ncu_report_the_report_is_read_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: object())
    assert readable_report(tmp_path / "r.ncu-rep", "/no/ncu") == tmp_path / "r.ncu-rep"
