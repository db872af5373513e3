"""The ncu command lines rooftui builds, report names, and where ncu is looked for."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from rooftui.errors import GpuUnavailableError, RooftuiError
from rooftui.profile import gpus
from rooftui.profile.ncu import (
    NcuOptions,
    command_name,
    find_ncu,
    ncu_arguments,
    ncu_argv,
    ncu_command_line,
    report_stem,
)

TWO = ("gpu__time_duration.sum", "dram__bytes.sum")
NOON = datetime(2026, 11, 29, 12, 0, 5)


def test_plain_run_never_touches_clocks_and_follows_child_processes():
    assert ncu_arguments(NcuOptions(metrics=TWO)) == [
        "--metrics",
        "gpu__time_duration.sum,dram__bytes.sum",
        "--nvtx",
        "--clock-control",
        "none",
        "--target-processes",
        "all",
    ]


def test_every_filter_becomes_its_ncu_option_in_a_fixed_order():
    options = NcuOptions(
        metrics=TWO,
        profile_from_start=False,
        nvtx_include=("forward/", "backward/"),
        kernel_name="regex:gemm|conv",
        launch_skip=10,
        launch_count=200,
    )
    argv = ncu_argv("/opt/ncu", options, Path("out/train"), ["python", "train.py", "-v"], force=True)
    assert argv == [
        "/opt/ncu",
        "--metrics",
        "gpu__time_duration.sum,dram__bytes.sum",
        "--nvtx",
        "--clock-control",
        "none",
        "--target-processes",
        "all",
        "--profile-from-start",
        "off",
        "--nvtx-include",
        "forward/",
        "--nvtx-include",
        "backward/",
        "--kernel-name",
        "regex:gemm|conv",
        "--launch-skip",
        "10",
        "--launch-count",
        "200",
        "--log-file",
        "out/train.ncu.log",
        "-f",
        "-o",
        "out/train",
        "python",
        "train.py",
        "-v",
    ]


def test_without_force_ncu_is_not_told_to_overwrite():
    argv = ncu_argv("ncu", NcuOptions(metrics=TWO), Path("r"), ["./app"])
    assert "-f" not in argv
    assert argv[-3:] == ["-o", "r", "./app"]


def test_command_line_for_srun_quotes_the_program_and_names_one_report_per_process():
    options = NcuOptions(metrics=TWO, kernel_name="regex:a|b")
    line = ncu_command_line(options, ["python", "train.py", "--name", "my run"])
    assert line == (
        "ncu --metrics gpu__time_duration.sum,dram__bytes.sum --nvtx --clock-control none "
        "--target-processes all --kernel-name 'regex:a|b' -o rooftui.%h.%p "
        "python train.py --name 'my run'"
    )


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["python3", "sample_data/make/deepcam_step.py", "--precision", "amp"], "deepcam_step"),
        (["torchrun", "--nproc_per_node", "8", "train.py"], "train"),
        (["python", "-m", "my.trainer", "--fast"], "my.trainer"),
        (["mpirun", "-np", "4", "./lulesh2.0", "-s", "30"], "lulesh2.0"),
        (["env", "CUDA_VISIBLE_DEVICES=1", "/usr/bin/nbody", "-benchmark"], "nbody"),
        (["python"], "rooftui"),
    ],
)
def test_default_report_is_named_after_the_script_or_program(command, name):
    assert command_name(command) == name


def test_default_report_name_has_the_time_and_never_reuses_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    command = ["python", "train.py"]
    assert report_stem(None, command, force=False, now=NOON) == Path("train-20261129-120005")
    Path("train-20261129-120005.ncu-rep").write_bytes(b"x")
    Path("train-20261129-120005-2.ncu.log").write_text("old log")
    assert report_stem(None, command, force=False, now=NOON) == Path("train-20261129-120005-3")


def test_an_existing_report_is_kept_unless_forced(tmp_path):
    (tmp_path / "run.ncu-rep").write_bytes(b"x")
    with pytest.raises(RooftuiError, match="run.ncu-rep: report already exists — pass --force"):
        report_stem(str(tmp_path / "run"), ["./app"], force=False)
    assert report_stem(str(tmp_path / "run.ncu-rep"), ["./app"], force=True) == tmp_path / "run"


def test_ncu_placeholders_are_refused_for_rooftui_profile():
    with pytest.raises(RooftuiError, match="placeholders"):
        report_stem("run.%p", ["./app"], force=False)


def test_ncu_given_explicitly_must_exist(tmp_path):
    with pytest.raises(GpuUnavailableError, match="ncu not found at"):
        find_ncu(str(tmp_path / "nsight" / "ncu"))


def test_ncu_given_explicitly_is_used(tmp_path):
    ncu = tmp_path / "ncu"
    ncu.write_text("#!/bin/sh\n")
    ncu.chmod(0o755)
    assert find_ncu(str(ncu)) == str(ncu)


def test_newest_standalone_nsight_compute_is_found_when_ncu_is_not_on_path(tmp_path, monkeypatch):
    for version in ("2024.3.2", "2025.3.1", "2025.1.0"):
        ncu = tmp_path / "nsight-compute" / version / "ncu"
        ncu.parent.mkdir(parents=True)
        ncu.write_text("#!/bin/sh\n")
        ncu.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(
        "rooftui.profile.ncu.USUAL_NCU_PLACES",
        (str(tmp_path / "cuda/bin/ncu"), str(tmp_path / "nsight-compute/*/ncu")),
    )
    assert find_ncu() == str(tmp_path / "nsight-compute" / "2025.3.1" / "ncu")


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("NVIDIA H200", "9.0"),
        ("NVIDIA GH200 480GB", "9.0"),
        ("NVIDIA H20", "9.0"),
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("NVIDIA A10", "8.6"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("Tesla T4", "7.5"),
        ("NVIDIA GeForce RTX 4090", "8.9"),
        ("rtx4090", "8.9"),
        ("NVIDIA L40", "8.9"),
        ("NVIDIA L40S", "8.9"),
        ("NVIDIA RTX 6000 Ada Generation", "8.9"),
        ("Quadro RTX 6000", "7.5"),
        ("NVIDIA B200", "10.0"),
        ("NVIDIA GB300", "10.3"),
    ],
)
def test_gpu_names_as_nvidia_smi_prints_them(name, cc):
    assert gpus.compute_capability_of_gpu(name) == cc


@pytest.mark.parametrize(
    ("arch", "cc"),
    [
        ("sm_70", "7.0"),
        ("sm_86", "8.6"),
        ("sm_90a", "9.0"),
        ("sm_100", "10.0"),
        ("SM_120", "12.0"),
        ("compute_75", "7.5"),
        ("89", "8.9"),
        ("9.0", "9.0"),
    ],
)
def test_architectures_are_read_as_nvcc_and_ncu_write_them(arch, cc):
    assert gpus.compute_capability_of_arch(arch) == cc


@pytest.mark.parametrize("arch", ["hopper", "sm_9", "9"])
def test_unreadable_architecture_says_how_to_write_it(arch):
    with pytest.raises(RooftuiError, match="write it like ncu and nvcc do"):
        gpus.compute_capability_of_arch(arch)


def test_nvidia_smi_lines_with_and_without_compute_cap():
    assert gpus.compute_capability_from_nvidia_smi("NVIDIA H200, 9.0\nNVIDIA H200, 9.0\n") == "9.0"
    assert gpus.compute_capability_from_nvidia_smi("Tesla V100-SXM2-32GB\n") == "7.0"


def test_gpus_of_two_architectures_need_arch():
    with pytest.raises(GpuUnavailableError, match=r"NVIDIA A100 \(8.0\); NVIDIA L4 \(8.9\)"):
        gpus.compute_capability_from_nvidia_smi("NVIDIA A100, 8.0\nNVIDIA L4, 8.9\n")


def test_arch_and_gpu_together_are_refused():
    with pytest.raises(RooftuiError, match="--arch and --gpu both given"):
        gpus.resolve_architecture("sm_90", "H100")
