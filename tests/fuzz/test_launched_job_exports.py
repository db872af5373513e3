"""Issue #25: a launched job whose ncu exports an unexpected CSV of kernel times (a fake ncu
whose `--import` prints it) is one line naming the rank report, exit 2 -- was exit 1
(KeyError, ValueError, UnicodeDecodeError in rooftui.profile.job.kernel_times)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftui.errors import RooftuiError
from rooftui.profile import dedup
from rooftui.profile.time_export import read_kernel_times
from tests.profile.conftest import FAKE_NCU_PROLOGUE, KNOWN_ANSWER_REPORT, rooftui_env, run_rooftui
from tests.profile.test_profile_job import FAKE_LAUNCHER

# ncu: a real report per profiled rank; for --import, whatever export.bin holds.
NCU = f"""
case "$1" in --import) cat "$(dirname "$0")/export.bin"; exit 0 ;; esac
echo '==PROF== Profiling "daxpy" - 0: 0%....50%....100% - 7 passes' >> "$log"
cp '{KNOWN_ANSWER_REPORT}' "$out.ncu-rep"
echo "==PROF== Report: $out.ncu-rep" >> "$log"
"""
HEADER = b'"ID","Kernel Name","gpu__time_duration.sum"\n'
UNITS = b'"","","ns"\n'

UNEXPECTED = {
    "no-ID-column": (b'"Kernel Name","gpu__time_duration.sum"\n"","ns"\n"daxpy","3"\n', "no header line"),
    "no-time-column": (b'"ID","Kernel Name"\n"",""\n"0","daxpy"\n', "no column gpu__time"),
    "no-units-row": (HEADER + b'"0","daxpy","3,000,000"\n', "no units row"),
    "not-a-time-unit": (HEADER + b'"","","byte"\n"0","daxpy","3"\n', "not a unit of time"),
    "short-row": (HEADER + UNITS + b'"0","3,000,000"\n', "row 1 has 2 fields, the header 3"),
    "text-id": (HEADER + UNITS + b'"zero","daxpy","3"\n', "are not numbers"),
    "5000-digit-id": (HEADER + UNITS + b'"' + b"9" * 5000 + b'","daxpy","3"\n', "are not numbers"),
    "negative-time": (HEADER + UNITS + b'"0","daxpy","-4.99"\n', "not a launch's time"),
    "infinite-time": (HEADER + UNITS + b'"0","daxpy","1e400"\n', "not a launch's time"),
    "binary": (bytes(range(256)) * 4, "no header line"),
    "open-quote": (HEADER + UNITS + b'"0","daxpy\n', "row 1 has 2 fields"),
}


def _job(tmp_path: Path, export: bytes) -> tuple[Path, dict[str, str]]:
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name, text in (("ncu", FAKE_NCU_PROLOGUE + NCU), ("torchrun", FAKE_LAUNCHER.replace("VAR", "RANK"))):
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    (bin_ / "export.bin").write_bytes(export)
    work = tmp_path / "work"
    work.mkdir()
    (work / "train.sh").write_text("true\n")
    return work, rooftui_env(bin_)


@pytest.mark.parametrize("export", list(UNEXPECTED))
def test_an_unexpected_kernel_time_export_in_a_launched_job_is_one_line(tmp_path, export):
    data, words = UNEXPECTED[export]
    work, env = _job(tmp_path, data)
    argv = ["profile", "--arch", "sm_90", "-o", "job", "--", "torchrun", "--nproc_per_node", "2", "train.sh"]
    done = run_rooftui(argv, work, env)
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert "Traceback" not in done.stderr
    # the NCCL time run's report comes first (job.comm.rank0), as it is read first
    assert "rank0.ncu-rep: ncu's export of its kernel times: " in lines[-1], lines[-1]
    assert words in lines[-1], lines[-1]
    assert "--ncu" in lines[-1]  # the fix: which ncu ran


def test_kernel_times_skip_ncus_log_lines_and_unmeasured_kernels_and_convert_the_unit():
    # known by construction: 3,000,000 ns = 3 ms; 2.5 usecond = 2.5e-6 s; "n/a" not measured
    text = (
        '==PROF== Connected to process 12\n==WARNING== a, b\n"ID","Kernel Name","gpu__time_duration.sum"\n'
        '"","","ns"\n"0","daxpy","3,000,000"\n"1","k1","n/a"\n"2","k2",""\n'
    )
    assert read_kernel_times(text, Path("r.ncu-rep")) == [(0, "daxpy", 0.003)]
    scaled = '"ID","Kernel Name","gpu__time_duration.sum","x"\n"","","usecond",""\n"7","k","2.5","y"\n'
    assert read_kernel_times(scaled, Path("r.ncu-rep")) == [(7, "k", 2.5e-6)]
    assert read_kernel_times('==PROF== Profiling "k" - 0: 0%\n', Path("r.ncu-rep")) == []  # no kernel
    with pytest.raises(RooftuiError, match="r.ncu-rep: ncu's export"):
        read_kernel_times('"ID","Kernel Name","gpu__time_duration.sum"\n"3","k","1"\n', Path("r.ncu-rep"))


# `profile --dedup` reads ncu's export of the probe and of the full run (dedup.read_export)
PROBE = b'"ID","Kernel Name","gpu__time_duration.sum","smsp__inst_executed.sum"\n"","","ns","inst"\n'


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        (b'"0","gemm","9,312","1,933"\n"1","relu","2,000"\n', "launch row 2 has 3 fields, the header 4"),
        (b'"0","gemm","9,312","1,933","7"\n', "launch row 1 has 5 fields"),
        (b'"0","gemm","9,312","1,933"\n"1","a, b"\n', "launch row 2 has 2 fields"),
    ],
    ids=["short", "long", "shifted-name"],
)
def test_a_dedup_export_row_of_another_field_count_is_refused_not_dropped(rows, words):
    # was: the row left out without a word (its launch's signature or counters lost)
    with pytest.raises(RooftuiError) as refused:
        dedup.read_export((PROBE + rows).decode())
    assert words in str(refused.value) and "--ncu" in str(refused.value)


def test_a_dedup_export_units_row_of_another_field_count_is_refused():
    with pytest.raises(RooftuiError, match="units row has 3 fields, the header 4"):
        dedup.read_export(PROBE.replace(b',"inst"\n', b"\n").decode() + '"0","k","1","2"\n')


def test_ncu_own_lines_in_a_dedup_export_are_skipped_not_refused():
    text = PROBE + b'"0","gemm","9,312","1,933"\n==WARNING== Found outstanding GPU clock reset\n'
    export = dedup.read_export(text.decode())
    assert export.rows == [["0", "gemm", "9,312", "1,933"]]
    assert export.number(export.rows[0], "smsp__inst_executed.sum") == 1933
