"""`rooftui profile --dedup` through the real CLI with a fake ncu: the probe run, the one
full run with the --kernel-id that picks the launches covering every signature, the
merged table and the sidecar that says which launch got whose counters."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from rooftui.profile import dedup
from tests.profile.conftest import rooftui_env, run_rooftui
from tests.profile.test_dedup import FULL_HEADER, PROBE_HEADER, _probe_row

# Every run of the fake ncu appends its argv (one line, words joined by a tab); a run
# writes one ==PROF== line per row of the export named after its report, --import prints
# that export (STEM.probe.function.csv for --print-kernel-base function).
FAKE = r"""
# `--list-sections` (does this ncu take rooftui's own section?): yes, unless told not to
case " $* " in *" --list-sections "*)
  [ -e "$(dirname "$0")/rejects_sections" ] && { echo "==ERROR== Failed to parse section file" >&2; exit 1; }
  printf 'Identifier  Display Name\nRooftuiRegisterMoves  rooftui: HFMA2 register moves\n'; exit 0 ;;
esac
# one write per run: rooftui runs two exports at once
line=$(printf '%s\t' "$@"); printf '%s\n' "$line" >> "$(dirname "$0")/runs.txt"
base=demangled; report=""; prev=""
for a in "$@"; do
  case "$prev" in --import) report=$a ;; --print-kernel-base) base=$a ;; esac
  prev=$a
done
if [ -n "$report" ]; then
  case "$report" in *.probe.ncu-rep)  # the probe's two exports must run at once: each waits for the other
    touch "$report.$base.started"; other=demangled; [ "$base" = demangled ] && other=function
    n=0; while [ ! -e "$report.$other.started" ]; do
      n=$((n + 1)); [ $n -gt 200 ] && { echo "==ERROR== the $other export never started" >&2; exit 1; }
      sleep 0.05
    done ;;
  esac
  cat "${report%.ncu-rep}.$base.csv"; exit 0
fi
tail -n +3 "$out.demangled.csv" | while IFS= read -r line; do
  echo "==PROF== Profiling \"k\" - 0: 0%....50%....100% - 8 passes" >> "$log"
done
echo fake > "$out.ncu-rep"
echo "==PROF== Report: $PWD/$out.ncu-rep" >> "$log"
"""


def _write(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerow([""] * len(header))
        writer.writerows(rows)


@pytest.mark.parametrize("flag", [["--dedup"], []], ids=["dedup", "default"])
def test_dedup_profile_probes_every_launch_then_profiles_launches_covering_every_signature_in_one_run(
    tmp_path, fake_bin, fake_ncu, fake_nvidia_smi, flag
):
    fake_ncu(FAKE)
    fake_nvidia_smi("NVIDIA H200, 9.0")
    probe = [
        _probe_row(0, "gemm", "forward", "10", "1000"),
        _probe_row(1, "gemm", "forward", "30", "3000"),
        _probe_row(2, "relu", "forward", "5", "50"),
        _probe_row(3, "gemm", "backward", "11", "1000"),
        _probe_row(4, "gemm", "backward", "31", "3000"),
        _probe_row(5, "relu", "backward", "6", "50"),
    ]
    _write(tmp_path / "step.probe.demangled.csv", PROBE_HEADER, probe)
    _write(tmp_path / "step.probe.function.csv", PROBE_HEADER, probe)
    _write(
        tmp_path / "step.demangled.csv",
        FULL_HEADER,
        [
            ["0", "gemm", "forward", "12", "64000", "4096", "132", "384", "0", "1000", "0"],
            ["1", "relu", "forward", "7", "0", "512", "132", "384", "0", "50", "0"],
            ["2", "gemm", "backward", "33", "192000", "8192", "132", "384", "0", "3000", "0"],
        ],
    )
    done = run_rooftui(
        ["profile", *flag, "--profile-from-start", "off", "-o", "step", "--", "python3", "step.py"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert done.returncode == 0, done.stderr
    runs = [line.rstrip("\t").split("\t") for line in (fake_bin / "runs.txt").read_text().splitlines()]
    profiled = [argv for argv in runs if "--import" not in argv]
    assert len(profiled) == 2  # the program runs twice: the probe, then one full run
    probe_argv, full = profiled
    assert probe_argv[probe_argv.index("--metrics") + 1].split(",")[0] == "gpu__time_duration.sum"
    assert "--kernel-id" not in probe_argv and probe_argv[-4:] == ["-o", "step.probe", "python3", "step.py"]
    # gemm's 1st and 4th launch and relu's 1st (its 4th does not exist)
    assert full[full.index("--kernel-id") + 1] == ":::^(1|4)$" and "--kernel-name" not in full
    assert full[-4:] == ["-o", "step", "python3", "step.py"]
    assert "--section" not in full  # the probe saw no Tensor-pipe instruction: no HFMA2
    with open(tmp_path / "step.raw.csv") as handle:
        table = list(csv.DictReader(handle))[1:]
    assert [row["ID"] for row in table] == ["0", "1", "2", "3", "4", "5"]
    assert [row["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] for row in table] == [
        "64000",
        "192000",
        "0",
        "64000",
        "192000",
        "0",
    ]
    assert [row["gpu__time_duration.sum"] for row in table] == ["10", "30", "5", "11", "31", "6"]
    assert [row["rooftui__hfma2_register_moves"] for row in table] == ["0"] * 6  # no HFMA2: none
    sidecar = json.loads((tmp_path / "step.signatures.json").read_text())
    assert [(s["id"], s["profiled"], s["counters_from"]) for s in sidecar["launches"]] == [
        (0, True, 0),
        (1, False, 4),
        (2, True, 2),
        (3, False, 0),
        (4, True, 4),
        (5, False, 2),
    ]
    assert sidecar["full_run"]["launches"] == sidecar["full_run"]["predicted"] == 3
    assert "3 launches profiled in full, 3 given their twin's counters" in done.stderr
    # said before the program's second run starts
    announced = "rooftui: probe: 3 signatures in 6 launches; the full run profiles 3 of them"
    assert done.stderr.index(announced) < done.stderr.index("rooftui: full run: 3 launches")
    assert "self-check: no launch was profiled beside its twin" in done.stderr
    # 6 launches: the run says what a program this small would rather use, and what it costs
    assert "6 launches: for a program this small --exhaustive" in done.stderr
    # which file to open: the .ncu-rep holds only the launches profiled in full
    assert "rooftui: every launch is in step.raw.csv: open that (step.ncu-rep holds only" in done.stderr


def test_launch_filters_profile_every_matching_launch_as_before(
    tmp_path, fake_bin, fake_ncu, fake_nvidia_smi
):
    fake_ncu(FAKE)
    fake_nvidia_smi("NVIDIA H200, 9.0")
    done = run_rooftui(
        ["profile", "--dedup", "-k", "gemm", "-o", "step", "--", "python3", "step.py"],
        tmp_path,
        rooftui_env(fake_bin),
    )
    assert "every matching launch is profiled in full (as --exhaustive)" in done.stderr
    runs = (fake_bin / "runs.txt").read_text().splitlines()
    assert "--kernel-id" not in runs[0] and "step.probe" not in runs[0]


def test_exhaustive_profiles_every_launch_in_one_run_as_before(tmp_path, fake_bin, fake_ncu, fake_nvidia_smi):
    fake_ncu(FAKE)
    fake_nvidia_smi("NVIDIA H200, 9.0")
    run_rooftui(
        ["profile", "--exhaustive", "-o", "step", "--", "python3", "step.py"], tmp_path, rooftui_env(fake_bin)
    )
    runs = (fake_bin / "runs.txt").read_text().splitlines()
    assert "--kernel-id" not in runs[0] and "step.probe" not in runs[0]
    # the whole list
    assert runs[0].split("\t")[1].startswith("gpu__time_duration.sum,sm__cycles_elapsed.avg")


def _tensor_probe_row(i: int, name: str, nvtx: str, time: str, inst: str, tensor: str) -> list[str]:
    row = _probe_row(i, name, nvtx, time, inst)
    row[PROBE_HEADER.index(dedup.TENSOR_INSTRUCTIONS)] = tensor
    return row


def _tensor_step(tmp_path) -> None:
    """A step whose layer norm's probe shows Tensor-pipe instructions (where HFMA2 goes)."""
    probe = [
        _tensor_probe_row(0, "layer_norm", "forward", "10", "1000", "32"),
        _tensor_probe_row(1, "relu", "forward", "5", "50", "0"),
        _tensor_probe_row(2, "layer_norm", "backward", "11", "1000", "32"),
    ]
    for base in ("demangled", "function"):
        _write(tmp_path / f"step.probe.{base}.csv", PROBE_HEADER, probe)
    _write(
        tmp_path / "step.demangled.csv",
        FULL_HEADER,
        [
            ["0", "layer_norm", "forward", "12", "6400", "4096", "132", "384", "0", "1000", "32"],
            ["1", "relu", "forward", "7", "0", "512", "132", "384", "0", "50", "0"],
        ],
    )


DEDUP = ["profile", "--dedup", "--profile-from-start", "off", "-o", "step", "--force"]


def _full_run_argv(fake_bin) -> list[str]:
    runs = [line.rstrip("\t").split("\t") for line in (fake_bin / "runs.txt").read_text().splitlines()]
    probe_argv, full = [argv for argv in runs if "--import" not in argv]
    assert "--section" not in probe_argv and "--section-folder" not in probe_argv
    return full


def test_work_on_the_tensor_pipe_adds_rooftuis_own_section_to_the_one_full_run_unless_told_not_to(
    tmp_path, fake_bin, fake_ncu, fake_nvidia_smi
):
    # the full run asks for rooftui's lean section, from the package's folder; the fake
    # report cannot be read, so the layer norm's moves stay blank
    fake_ncu(FAKE)
    fake_nvidia_smi("NVIDIA H200, 9.0")
    _tensor_step(tmp_path)
    command = DEDUP
    done = run_rooftui([*command, "--", "python3", "step.py"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 0, done.stderr
    full = _full_run_argv(fake_bin)
    assert full[full.index("--section") + 1] == "RooftuiRegisterMoves"
    folder = Path(full[full.index("--section-folder") + 1])
    assert (folder / "RooftuiRegisterMoves.section").is_file()
    assert "with the RooftuiRegisterMoves section (HFMA2 register moves)" in done.stderr
    assert "cannot be used" not in done.stderr
    assert full[full.index("--kernel-id") + 1] == ":::^(1)$"
    with open(tmp_path / "step.raw.csv") as handle:
        table = list(csv.DictReader(handle))[1:]
    # the relu has no Tensor-pipe instruction, so no HFMA2: 0; the layer norm's: not collected
    assert [row["rooftui__hfma2_register_moves"] for row in table] == ["", "0", ""]
    assert "HFMA2 register moves not read for 2 launches" in done.stderr

    (fake_bin / "runs.txt").unlink()
    done = run_rooftui(
        [*command, "--no-register-moves", "--", "python3", "step.py"], tmp_path, rooftui_env(fake_bin)
    )
    assert done.returncode == 0, done.stderr
    runs = [line.rstrip("\t").split("\t") for line in (fake_bin / "runs.txt").read_text().splitlines()]
    assert not any("--section" in argv for argv in runs)
    assert "HFMA2 register moves not collected for 2 launches (--no-register-moves)" in done.stderr


def test_an_ncu_that_rejects_rooftuis_section_gets_source_counters_and_the_run_says_why_in_one_line(
    tmp_path, fake_bin, fake_ncu, fake_nvidia_smi
):
    fake_ncu(FAKE)
    (fake_bin / "rejects_sections").touch()
    fake_nvidia_smi("NVIDIA H200, 9.0")
    _tensor_step(tmp_path)
    done = run_rooftui([*DEDUP, "--", "python3", "step.py"], tmp_path, rooftui_env(fake_bin))
    assert done.returncode == 0, done.stderr
    full = _full_run_argv(fake_bin)
    assert full[full.index("--section") + 1] == "SourceCounters"
    assert "--section-folder" not in full
    said = [
        line for line in done.stderr.splitlines() if "RooftuiRegisterMoves section cannot be used" in line
    ]
    assert said == [
        "rooftui: its own RooftuiRegisterMoves section cannot be used (ncu did not list it (==ERROR== "
        "Failed to parse section file)): the full run takes HFMA2 register moves from ncu's "
        "SourceCounters section instead (one replay pass more on an H200)"
    ]
    sidecar = json.loads((tmp_path / "step.signatures.json").read_text())
    assert sidecar["full_run"]["instruction_section"] == "SourceCounters"
