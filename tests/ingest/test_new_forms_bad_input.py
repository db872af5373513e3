"""Malformed versions of the newly read forms: one line naming the file(s), exit code 2."""

import pytest

from tests.conftest import assert_one_line_error, run_cli
from tests.ingest.paper_layout import write_clone
from tests.ingest.summary_layout import write_counts, write_times


@pytest.fixture()
def runs(tmp_path):
    return write_clone(tmp_path / "clone") / "mlperf-deepcam" / "PT-fp32-O1-Adam-fw-1"


def test_directory_without_any_export(tmp_path):
    (tmp_path / "train.py").write_text("print('hello')\n")
    assert_one_line_error(run_cli("summary", tmp_path), str(tmp_path), "no Nsight Compute export")


def test_runs_of_different_programs_name_both_files(runs):
    other = runs / "out.dram__bytes.sum"
    other.write_text(other.read_text().replace("volta_fp16_s884cudnn", "turing_fp16_s1688cudnn"))
    result = run_cli("summary", runs, "--gpu", "V100")
    assert_one_line_error(result, "different programs", "out.dram__bytes.sum")


def test_runs_that_disagree_on_a_metric_name_both_files(runs):
    # One run with two metrics (l2 and l1 bytes, rows per launch together as ncu writes
    # them) next to the run of l1 bytes alone, one launch's l1 bytes different.
    l1 = (runs / "out.l1tex__t_bytes.sum").read_text().splitlines()
    l2 = (runs / "out.lts__t_bytes.sum").read_text().splitlines()
    header = next(i for i, line in enumerate(l1) if line.startswith('"ID"'))
    rows = [line for pair in zip(l2[header + 1 :], l1[header + 1 :]) for line in pair]
    rows[1] = rows[1].replace('"4096"', '"4097"')
    (runs / "out.lts__t_bytes.sum").unlink()
    (runs / "out.both").write_text("\n".join(l1[: header + 1] + rows) + "\n")
    result = run_cli("summary", runs, "--gpu", "V100")
    assert_one_line_error(result, "disagree", "l1tex__t_bytes.sum", "out.l1tex__t_bytes.sum", "out.both")


def test_truncated_run_in_a_directory(runs):
    path = runs / "out.dram__bytes.sum"
    path.write_bytes(path.read_bytes()[:-20])
    assert_one_line_error(run_cli("summary", runs, "--gpu", "V100"), "out.dram__bytes.sum", "truncated")


def test_summary_export_without_minimum_column(tmp_path):
    path = write_counts(tmp_path / "counts.csv")
    path.write_text(path.read_text().replace('"Minimum",', ""))
    assert_one_line_error(
        run_cli("summary", path, write_times(tmp_path / "t.csv")), "counts.csv", "no Minimum column"
    )


def test_summary_export_with_bad_invocations(tmp_path):
    path = write_counts(tmp_path / "counts.csv")
    path.write_text(path.read_text().replace('"100"', '"many"'))
    assert_one_line_error(run_cli("summary", path), "counts.csv", "Invocations")


def test_unknown_gpu_name(runs):
    assert_one_line_error(run_cli("summary", runs, "--gpu", "Voodoo5"), "Voodoo5", "--arch")


def test_unreadable_arch(runs):
    assert_one_line_error(run_cli("summary", runs, "--arch", "volta"), "volta", "sm_70")


def test_gpu_and_arch_that_disagree(runs):
    assert_one_line_error(run_cli("summary", runs, "--gpu", "V100", "--arch", "sm_90"), "V100", "sm_90")


def test_unknown_fp16_rule(runs):
    assert_one_line_error(run_cli("summary", runs, "--fp16-rule", "exact"), "--fp16-rule")


def test_a_launch_whose_clock_reads_zero(runs):
    path = runs / "out.sm__cycles_elapsed.avg.per_second"
    lines = path.read_text().splitlines(keepends=True)
    lines[-1] = lines[-1].rsplit(",", 1)[0] + ',"0"\n'
    path.write_text("".join(lines))
    assert_one_line_error(run_cli("summary", runs, "--gpu", "V100"), "duration", "--skip-invalid")
    assert run_cli("summary", runs, "--gpu", "V100", "--skip-invalid").returncode == 0
