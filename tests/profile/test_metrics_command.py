"""`rooftui metrics`: the right counters for each architecture, as ncu wants them."""

from __future__ import annotations

import re

import pytest

from rooftui.model import metrics as m
from rooftui.model.metrics import architecture_for, required_metrics
from tests.profile.conftest import REPO, rooftui_env, run_rooftui

METRIC_NAME = re.compile(r"[a-z0-9]+__[a-z0-9_]+(\.[a-z_]+)*")
VOLTA_TENSOR = "sm__inst_executed_pipe_tensor.sum"
OPS_PATH = "sm__ops_path_tensor_src_"


def metrics_for(arch: str, tmp_path, fake_bin) -> list[str]:
    done = run_rooftui(["metrics", "--arch", arch], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout.strip().split(",")


@pytest.mark.parametrize("arch", ["sm_70", "sm_72", "sm_75"])
def test_volta_and_turing_count_tensor_work_by_instructions(arch, tmp_path, fake_bin):
    names = metrics_for(arch, tmp_path, fake_bin)
    assert VOLTA_TENSOR in names
    assert not [n for n in names if n.startswith(OPS_PATH)]


@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_87"])
def test_ampere_counts_tensor_operations_per_source_type_without_fp8(arch, tmp_path, fake_bin):
    names = metrics_for(arch, tmp_path, fake_bin)
    for src in ("fp16", "bf16_dst_fp32", "tf32_dst_fp32", "fp64", "int8"):
        assert f"{OPS_PATH}{src}.sum" in names
    assert f"{OPS_PATH}fp8.sum" not in names
    assert VOLTA_TENSOR not in names


@pytest.mark.parametrize("arch", ["sm_89", "sm_90", "sm_90a", "sm_100", "sm_120"])
def test_ada_hopper_and_blackwell_add_fp8(arch, tmp_path, fake_bin):
    names = metrics_for(arch, tmp_path, fake_bin)
    assert "sm__ops_path_tensor_src_fp16.sum" in names
    assert f"{OPS_PATH}fp8.sum" in names
    assert VOLTA_TENSOR not in names


@pytest.mark.parametrize("cc", [cc for arch in m.ARCHITECTURES for cc in arch.cc])
def test_every_list_has_time_flops_and_bytes_and_only_metric_names(cc):
    names = required_metrics(architecture_for(cc))
    assert len(names) == len(set(names))
    assert all(METRIC_NAME.fullmatch(n) for n in names), names
    assert m.TIME in names
    assert set(m.BYTES.values()) <= set(names)
    assert {metric for terms in m.CUDA_CORE_TERMS.values() for metric, _ in terms} <= set(names)


def test_metrics_prints_the_model_table_comma_separated(tmp_path, fake_bin):
    assert metrics_for("sm_90", tmp_path, fake_bin) == required_metrics(architecture_for("9.0"))


@pytest.mark.parametrize(
    ("gpu", "arch"),
    [
        ("H100", "sm_90"),
        ("H200", "sm_90"),
        ("A100", "sm_80"),
        ("V100", "sm_70"),
        ("B200", "sm_100"),
        ("L40S", "sm_89"),
        ("RTX 4090", "sm_89"),
        ("T4", "sm_75"),
        ("A10", "sm_86"),
    ],
)
def test_gpu_name_gives_the_list_of_its_architecture(gpu, arch, tmp_path, fake_bin):
    env = rooftui_env(fake_bin)
    by_name = run_rooftui(["metrics", "--gpu", gpu], tmp_path, env)
    assert by_name.returncode == 0, by_name.stderr
    assert by_name.stdout.strip().split(",") == metrics_for(arch, tmp_path, fake_bin)


def test_without_a_gpu_or_arch_says_to_pass_arch(tmp_path, fake_bin):
    done = run_rooftui(["metrics"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "--arch" in done.stderr


def test_default_is_the_local_gpu_from_nvidia_smi(tmp_path, fake_bin, fake_nvidia_smi):
    fake_nvidia_smi("NVIDIA A100-SXM4-80GB, 8.0\nNVIDIA A100-SXM4-80GB, 8.0")
    done = run_rooftui(["metrics"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split(",") == required_metrics(architecture_for("8.0"))


def test_an_architecture_newer_than_the_table_warns_and_uses_the_nearest(tmp_path, fake_bin):
    done = run_rooftui(["metrics", "--arch", "sm_130"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 0
    nearest = architecture_for("13.0")
    assert done.stderr.strip() == (
        f"rooftui: compute capability 13.0 is not in rooftui's table; using {nearest.name}'s metrics"
    )
    assert done.stdout.strip().split(",") == required_metrics(nearest)


def test_unknown_gpu_name_is_one_line_listing_the_known_ones(tmp_path, fake_bin):
    done = run_rooftui(["metrics", "--gpu", "Voodoo2"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "unknown GPU name 'Voodoo2'" in done.stderr and "H100" in done.stderr


def test_ncu_command_is_a_whole_command_line_with_the_program(tmp_path, fake_bin):
    done = run_rooftui(
        ["metrics", "--arch", "sm_90", "--ncu-command", "--", "python", "train.py", "--lr", "0.1"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 0, done.stderr
    names = ",".join(required_metrics(architecture_for("9.0")))
    assert done.stdout == (
        f"ncu --metrics {names} --nvtx --clock-control none --target-processes all "
        "-o rooftui.%h.%p python train.py --lr 0.1\n"
    )


def test_metrics_runs_from_the_repository_without_textual(tmp_path, fake_bin):
    probe = (
        "import sys; from rooftui.cli import main\n"
        "try:\n    main(['metrics', '--arch', 'sm_80'])\nexcept SystemExit:\n    pass\n"
        "import rooftui.cli.profile\n"
        "sys.stderr.write(str(sorted(k for k in sys.modules if k.startswith('textual'))))"
    )
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env=rooftui_env(fake_bin),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr == "[]"
