"""``ncu --print-summary per-kernel`` exports: totals from Average × Invocations, bytes
from sectors, time from a separate summary file of the same kernels."""

import json

import pytest

from rooftui.analysis import grouped_kernels, load_run
from rooftui.errors import MissingMetricsError
from tests.conftest import run_cli
from tests.ingest.summary_layout import (
    COPY,
    COUNTS,
    INVOCATIONS,
    SAXPY,
    SMALL,
    SMALL_TIME,
    TIMES,
    write_counts,
    write_times,
)

FFMA = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
FADD = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"


def _average(kernel, metric):
    return COUNTS[kernel][metric][3]


@pytest.fixture()
def files(tmp_path):
    return write_counts(tmp_path / "counts.csv"), write_times(tmp_path / "time.csv")


def test_two_kernels_of_100_launches_load_as_two_groups_of_100(files):
    run = load_run(list(files))
    groups = grouped_kernels(run).set_index("name")
    assert sorted(groups.index) == ["copy_f32", "saxpy"]
    assert (groups["count"] == INVOCATIONS).all()
    saxpy = groups.loc["saxpy"]
    assert saxpy["flops_fp32"] == INVOCATIONS * (2 * _average(SAXPY, FFMA) + _average(SAXPY, FADD))
    assert saxpy["bytes_l1"] == 32 * INVOCATIONS * _average(SAXPY, "l1tex__t_sectors.sum")
    assert saxpy["bytes_hbm"] == 32 * INVOCATIONS * (
        _average(SAXPY, "dram__sectors_read.sum") + _average(SAXPY, "dram__sectors_write.sum")
    )
    assert saxpy["time_s"] == pytest.approx(INVOCATIONS * TIMES[SAXPY][3] * 1e-9, rel=1e-12)
    assert groups.loc["copy_f32", "zero_ai"] and not saxpy["zero_ai"]
    notes = "\n".join(run.notes)
    assert "joined by kernel name" in notes and "Average × Invocations" in notes
    assert "l1tex__t_bytes.sum = 32 × l1tex__t_sectors.sum" in notes


def test_minimum_and_maximum_per_launch_are_kept(files):
    run = load_run(list(files))
    raw = run.reports[0].kernels.set_index("kernel_name")
    written = COUNTS[COPY]["dram__sectors_write.sum"]
    assert raw.loc[COPY, "dram__sectors_write.sum.max_per_launch"] == written[2]
    assert raw.loc[COPY, "gpu__time_duration.sum.min_per_launch"] == TIMES[COPY][1]


def test_table_iii_counts_launches_not_rows(files):
    result = run_cli("summary", *files, "--format", "json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["summary"]
    assert (summary["zero_ai"], summary["kernels"]) == (INVOCATIONS, 2 * INVOCATIONS)


def test_time_as_gpu_time_active(tmp_path):
    times = write_times(tmp_path / "t.csv", "gpu__time_active.avg")
    run = load_run([write_counts(tmp_path / "c.csv"), times])
    assert set(run.kernels["time_source"]) == {"derived: gpu__time_active.avg"}


def test_counts_without_a_time_file_say_what_is_missing(tmp_path):
    with pytest.raises(MissingMetricsError, match="gpu__time_duration"):
        load_run([write_counts(tmp_path / "counts.csv")])


def test_time_file_of_other_kernels_is_refused_naming_both_files(tmp_path):
    counts = write_counts(tmp_path / "counts.csv")
    other = tmp_path / "other.csv"
    other.write_text(write_times(tmp_path / "t.csv").read_text().replace("copy_f32", "memset_f32"))
    result = run_cli("summary", counts, other)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "counts.csv" in lines[0] and "other.csv" in lines[0]
    assert "different programs" in lines[0]


def test_two_launch_shapes_of_one_kernel_add_up_and_keep_the_extremes(tmp_path):
    """The time file lists kernels in another order, so the files join per kernel name:
    saxpy's two shapes become one row of 200 launches."""
    run = load_run(
        [
            write_counts(tmp_path / "c.csv", second_shape=True),
            write_times(tmp_path / "t.csv", second_shape=True),
        ]
    )
    saxpy = run.kernels.set_index("demangled").loc[SAXPY]
    assert saxpy["launches"] == 2 * INVOCATIONS
    assert saxpy["bytes_l1"] == 32 * INVOCATIONS * (
        _average(SAXPY, "l1tex__t_sectors.sum") + SMALL["l1tex__t_sectors.sum"][3]
    )
    assert saxpy["time_s"] == pytest.approx(INVOCATIONS * (TIMES[SAXPY][3] + SMALL_TIME[3]) * 1e-9)
    raw = run.reports[0].kernels.set_index("kernel_name").loc[SAXPY]
    assert raw["gpu__time_duration.sum.min_per_launch"] == SMALL_TIME[1]
    assert raw["gpu__time_duration.sum.max_per_launch"] == TIMES[SAXPY][2]
