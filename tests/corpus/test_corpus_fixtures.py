"""What rooftui makes of the layouts found in public ncu exports (docs/corpus.md).

Each fixture (tests/corpus/fixtures.py) reproduces one public file's layout with numbers
known by construction; a file either loads with its known answers or is refused with one
line that says what to do.
"""

from __future__ import annotations

import math

import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.notes import kind_of
from tests.conftest import run_cli
from tests.corpus import fixtures


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return fixtures.write_all(tmp_path_factory.mktemp("corpus"))


def refusal(path) -> str:
    result = run_cli("summary", path)
    assert result.returncode == 2, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_sgemm_details_export_gives_ncu_roofline_fp32_flops_to_the_unit(corpus):
    kernel = load_run([corpus["sgemm_details"]], LoadOptions(no_cache=True)).kernels.iloc[0]
    # 2·FFMA + FMUL + FADD (ncu's roofline section), with FFMA = n³ for the n = 1024 loop
    assert kernel["flops_fp32"] == fixtures.SGEMM_FP32_FLOPS == 2 * 1024**3 + 1024**2
    assert kernel["time_s"] == pytest.approx(fixtures.SGEMM["time_ns"] * 1e-9, rel=1e-12)
    assert kernel["bytes_hbm"] == fixtures.SGEMM["dram_bytes"]
    assert kernel["cc"] == "8.6"


def test_a_failed_replay_is_kept_and_named_with_no_total_flops_nor_pipeline_and_the_other_launches_load(
    corpus,
):
    run = load_run([corpus["failed_launch"]], LoadOptions(no_cache=True))
    rows = run.kernels.set_index("ncu_id")
    assert list(rows.index) == [0, 1, 2]
    assert rows.loc[0, "flops_fp64"] == 1 << 21 and rows.loc[2, "flops_fp64"] == 1 << 23
    assert rows.loc[2, "bytes_hbm"] == 24 * (1 << 22)
    assert math.isnan(rows.loc[1, "time_s"]) and math.isnan(rows.loc[1, "bytes_hbm"])
    note = next(n for n in run.notes if "every metric blank" in n)
    assert "ID 1 (nodeByPoint5" in note and "not collected" in note
    # the failed launch has no total FLOPs nor pipeline (its own test before 2026-12-02)
    failed = rows.loc[1]
    assert math.isnan(failed["flops"]) and failed["pipeline"] != "none"


def test_a_failed_replay_keeps_its_kernel_in_the_grouped_table_the_explorer_and_advise(corpus):
    """A kernel whose every launch failed has no time to pick its heaviest launch by: it
    stays a row of its own (one launch, nothing known), in `summary --group`, the
    explorer's tables and `advise`, which crashed on it under pandas 3."""
    import json

    from rooftui.views.tui.view_state import LoadedRun

    result = run_cli("summary", corpus["failed_launch"], "--group", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)["kernels"]}
    assert set(rows) == {"daxpy", "nodeByPoint5"}
    assert rows["daxpy"]["count"] == 2 and rows["daxpy"]["time_s"] == pytest.approx(200e-6)
    assert rows["nodeByPoint5"]["count"] == 1 and rows["nodeByPoint5"]["time_s"] is None
    loaded = LoadedRun.from_run(load_run([corpus["failed_launch"]], LoadOptions(no_cache=True)))
    assert sorted(loaded.grouped["name"]) == ["daxpy", "nodeByPoint5"]
    advice = run_cli("advise", corpus["failed_launch"])
    assert advice.returncode == 0 and "1 launch: no duration" in advice.stdout, advice.stderr


def test_a_report_whose_every_launch_failed_is_refused_naming_the_launch(corpus):
    line = refusal(corpus["every_launch_failed"])
    assert "every metric blank" in line and "ID 0, nodeByPoint5" in line and "==ERROR==" in line


def test_ncu_failed_to_profile_line_is_quoted_and_the_profiled_launches_load(corpus):
    run = load_run([corpus["failed_to_profile"]], LoadOptions(no_cache=True))
    assert len(run.kernels) == 1
    note = next(n for n in run.notes if "Failed to profile" in n)
    assert fixtures.FAILED_TO_PROFILE in note and "not in the table" in note
    assert any("==WARNING== Found outstanding GPU clock reset" in n for n in run.notes)


def test_permission_error_is_quoted_with_nvidias_fix(corpus):
    line = refusal(corpus["permission_error"])
    assert "ERR_NVGPUCTRPERM - The user does not have permission" in line
    assert "NVreg_RestrictProfilingToAdminUsers=0" in line and "administrator" in line
    assert "ncu --import" not in line


def test_nothing_profiled_quotes_ncus_warning(corpus):
    assert "==WARNING== No kernels were profiled." in refusal(corpus["nothing_profiled"])


@pytest.mark.parametrize("name", ["nvprof_metrics", "nvprof_headers_only"])
def test_nvprof_exports_are_recognised_and_told_to_reprofile_with_ncu(corpus, name):
    line = refusal(corpus[name])
    assert "nvprof" in line and "cannot be read, nor converted by `ncu --import`" in line
    assert "rooftui profile" in line


def test_ncu_text_output_is_told_to_rerun_with_csv(corpus):
    line = refusal(corpus["ncu_text_output"])
    assert "ncu's text output" in line and "--csv" in line


def test_an_unknown_gpu_loads_with_counts_and_no_invented_roof(corpus):
    run = load_run([corpus["unknown_gpu"]], LoadOptions(no_cache=True))
    kernel = run.kernels.iloc[0]
    assert kernel["device"] == "NVIDIA Imaginary X1 96GB" and kernel["cc"] == "12.7"
    assert kernel["flops_fp64"] == 1 << 21 and kernel["bytes_hbm"] == 24 * (1 << 20)
    assert kernel["bound"] == ""
    assert any(n.startswith("no FP64 roof") for n in run.notes)


def test_an_int4_tensor_core_kernel_seen_only_as_imma_busy_is_never_zero_ai(corpus):
    run = load_run([corpus["int4_imma_busy"]], LoadOptions(no_cache=True))
    kernel = run.kernels.iloc[0]
    assert kernel["flops_fp32"] == 0 and kernel["flops_fp64"] == 0  # counted: no FP32/FP64 work
    assert kernel["pipeline"] == "tensor_uncounted" and not kernel["zero_ai"]
    assert math.isnan(kernel["flops_tensor"]) and kernel["flops_partial"]
    assert kernel["bound"] == ""
    [partial] = [note for note in run.notes if kind_of(note) == "flops_partial"]
    assert "Tensor work seen in 1 launch(es)" in partial and "blank, not 0" in partial


def test_odd_kernel_names_are_read_back_exactly(corpus):
    run = load_run([corpus["odd_names"]], LoadOptions(no_cache=True))
    assert list(run.kernels.sort_values("ncu_id")["demangled"]) == fixtures.ODD_NAMES


def test_program_output_and_prof_lines_around_the_table_are_skipped_and_warnings_kept(corpus):
    run = load_run([corpus["prof_noise"]], LoadOptions(no_cache=True))
    assert list(run.kernels["flops_fp64"]) == [2 << 20, 2 << 21]  # 2 FLOPs per DFMA
    assert any("==WARNING== Backing up device memory" in n for n in run.notes)


def test_a_details_export_without_a_column_is_refused_naming_it(corpus):
    assert "without the Metric Unit column" in refusal(corpus["details_without_unit"])


def test_a_details_export_of_section_labels_reads_duration_and_says_what_is_not_there(corpus):
    run = load_run([corpus["labelled_details"]], LoadOptions(no_cache=True))
    times_ns = sorted(t * 1e9 for t in run.kernels["time_s"])
    assert times_ns == pytest.approx(fixtures.LABELLED_DURATIONS_NS, rel=1e-12)
    note = next(n for n in run.notes if "section labels" in n)
    assert "Duration as gpu__time_duration.sum" in note and "--page raw" in note
    assert run.kernels["flops_fp32"].isna().all() and run.kernels["bytes_hbm"].isna().all()


def test_section_labels_without_duration_take_the_time_from_elapsed_cycles_and_sm_frequency(corpus):
    run = load_run([corpus["labelled_details_without_duration_row"]], LoadOptions(no_cache=True))
    row = run.kernels.iloc[0]
    assert row["time_s"] * 1e9 == pytest.approx(fixtures.LABELLED_CYCLES_TIME_NS, rel=1e-12)
    assert row["time_source"] == "derived: gpc__cycles_elapsed.max / gpc__cycles_elapsed.avg.per_second"
    note = next(n for n in run.notes if "section labels" in n)
    assert "Elapsed Cycles as gpc__cycles_elapsed.max" in note
    assert "SM Frequency as gpc__cycles_elapsed.avg.per_second" in note


def test_a_details_export_of_section_labels_without_duration_is_refused_with_how_to_reexport(corpus):
    line = refusal(corpus["labelled_details_without_duration"])
    assert "section labels" in line and "--page raw" in line


def _events_run(path, kernels):
    """An --events-style print-summary run: counters rooftui does not read, same kernels."""
    from tests.ingest import summary_layout as layout

    section = "Command line profiler metrics"
    return layout._write(
        path,
        [[*layout._identity(k), section, "smsp__warps_launched.sum", "warp", 10, 10, 10] for k in kernels],
    )


def test_print_summary_metrics_events_and_timing_runs_join_into_one_row_per_kernel(tmp_path):
    from tests.ingest import summary_layout as layout

    files = [
        layout.write_counts(tmp_path / "metrics.csv"),
        _events_run(tmp_path / "events.csv", layout.TIMES),
        layout.write_times(tmp_path / "timing.csv"),
    ]
    rows = load_run(files, LoadOptions(no_cache=True)).kernels.set_index("name")
    assert sorted(rows.index) == ["copy_f32", "saxpy"] and rows["launches"].sum() == 200
    saxpy_time_ns = layout.TIMES[layout.SAXPY][3] * layout.INVOCATIONS
    assert rows.loc["saxpy", "time_s"] == pytest.approx(saxpy_time_ns * 1e-9, rel=1e-12)
    assert rows.loc["saxpy", "bytes_hbm"] == (2097156.5 + 1048576) * 32 * layout.INVOCATIONS


def test_a_run_without_rooftui_metrics_of_another_program_stays_apart(tmp_path):
    from tests.ingest import summary_layout as layout

    files = [
        layout.write_counts(tmp_path / "metrics.csv"),
        layout.write_times(tmp_path / "timing.csv"),
        _events_run(tmp_path / "other.csv", ["other_kernel(int)"]),
    ]
    run = load_run(files, LoadOptions(no_cache=True))
    assert sorted(run.kernels["name"]) == ["copy_f32", "copy_f32", "other_kernel", "saxpy", "saxpy"]
