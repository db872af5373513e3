"""The paper's own V100 DeepCAM data: one-metric-per-run directories, joined into one report.

Files laid out like the published ones (tests/ingest/paper_layout.py says why they are
stand-ins); every expected number is arithmetic on the values written there.
"""

import copy
import importlib.util
import json

import pandas as pd
import pytest

from rooftui.analysis import load_run
from rooftui.analysis.grouping import group_by_name
from rooftui.analysis.load_options import LoadOptions
from rooftui.analysis.summary import zero_ai_table
from rooftui.notes import kind_of
from tests.conftest import ROOT, run_cli
from tests.ingest.paper_layout import (
    BATCHNORM,
    CONV,
    COPY,
    LAUNCHES,
    PER_LAUNCH_ZERO_AI,
    PER_NAME_ZERO_AI,
    RELU,
    SASS,
    by_name,
    write_clone,
)


def _reproduce_module():
    spec = importlib.util.spec_from_file_location(
        "reproduce_table3", ROOT / "sample_data/paper/reproduce_table3.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    return write_clone(tmp_path_factory.mktemp("DeepLearningProfiling"))


@pytest.fixture(scope="module")
def pytorch_dir(clone):
    return clone / "mlperf-deepcam" / "PT-fp32-O1-Adam-fw-1"


@pytest.fixture(scope="module")
def tensorflow_dir(clone):
    return clone / "climate-seg-benchmark" / "TF-fp16-batch2-fwbw-amp-2"


@pytest.fixture(scope="module")
def load_clone():
    """``load_clone(paths, options)`` is ``load_run(paths, options)``, loaded once per module
    for each paths and options (each load of a clone's directory costs ~0.5 s of CPU; the
    tests and the reproduction script load the same ones), a copy of its own per caller."""
    loaded = {}

    def load(paths, options=None):
        options = options or LoadOptions()
        key = (tuple(map(str, paths)), options)
        if key not in loaded:
            loaded[key] = load_run(list(paths), options)
        return copy.deepcopy(loaded[key])

    return load


@pytest.fixture
def reproduce(load_clone, monkeypatch):
    """sample_data/paper/reproduce_table3.py, its loads through ``load_clone``: the
    script's own arithmetic is what these tests check, on the runs the other tests load."""
    module = _reproduce_module()
    monkeypatch.setattr(module, "load_run", load_clone)
    return module


@pytest.fixture
def cli_loads_once(load_clone, monkeypatch):
    """``summary`` through the real command, its load served by ``load_clone`` (the same
    ``load_run`` with the options its flags made, loaded once per module: for a command
    whose options other tests load too). The command's own load of a directory, reading
    and progress included, stays in test_summary_of_the_directory_through_the_cli."""
    import rooftui.analysis

    def load_run(paths, options, progress=None, reading=None):
        return load_clone(paths, options)

    monkeypatch.setattr(rooftui.analysis, "load_run", load_run)


# Loaded once for the tests that only read them.
@pytest.fixture(scope="module")
def pytorch_on_v100(pytorch_dir, load_clone):
    return load_clone([pytorch_dir], LoadOptions(gpu="V100"))


@pytest.fixture(scope="module")
def pytorch_on_no_gpu_named(pytorch_dir, load_clone):
    return load_clone([pytorch_dir])


def test_pytorch_runs_join_by_launch_id_with_time_from_cycles_and_volta_tensor_rule(pytorch_on_v100):
    run = pytorch_on_v100
    kernels = run.kernels.sort_values("ncu_id")
    assert list(kernels["demangled"]) == [launch["name"] for launch in LAUNCHES]
    assert (kernels["launches"] == 1).all()
    for (_, row), launch in zip(kernels.iterrows(), LAUNCHES):
        # The paper's time: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second
        assert row["time_s"] == pytest.approx(
            launch["sm__cycles_elapsed.avg"] / launch["sm__cycles_elapsed.avg.per_second"], rel=1e-12
        )
        assert row["flops_tensor_fp16"] == 512 * launch["sm__inst_executed_pipe_tensor.sum"]
        assert row["flops_fp32"] == (
            launch[SASS.format("fadd")] + launch[SASS.format("fmul")] + 2 * launch[SASS.format("ffma")]
        )
        assert row["bytes_hbm"] == launch["dram__bytes.sum"]
    assert set(kernels["time_source"]) == {
        "derived: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second"
    }
    assert set(kernels["device"]) == {"V100"} and set(kernels["cc"]) == {"7.0"}
    notes = "\n".join(run.notes)
    assert "joined by ID (kernel names agree at every ID)" in notes
    assert "other file(s) in the directory passed over" in notes
    assert "time derived: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second" in notes


def test_zero_ai_per_launch_and_per_kernel_name_as_the_authors_counted(pytorch_on_v100):
    run = pytorch_on_v100
    per_launch = zero_ai_table(run.kernels).iloc[-1]
    per_name = zero_ai_table(run.kernels, group_by_name(run.kernels)).iloc[-1]
    assert (per_launch["zero_ai"], per_launch["kernels"]) == (PER_LAUNCH_ZERO_AI, len(LAUNCHES))
    assert (per_name["zero_ai"], per_name["kernels"]) == (PER_NAME_ZERO_AI, len(LAUNCHES))


def test_fp16_rule_paper_counts_hfma_as_two_packed_as_four(pytorch_dir, pytorch_on_v100, load_clone):
    relu = next(launch for launch in LAUNCHES if launch["name"] == RELU)
    hadd, hmul, hfma = (relu[SASS.format(op)] for op in ("hadd", "hmul", "hfma"))
    packed = pytorch_on_v100.kernels.set_index("demangled")
    paper = load_clone([pytorch_dir], LoadOptions(gpu="V100", fp16_rule="paper"))
    assert packed.loc[RELU, "flops_fp16"] == 2 * hadd + 2 * hmul + 4 * hfma
    assert paper.kernels.set_index("demangled").loc[RELU, "flops_fp16"] == hadd + hmul + 2 * hfma
    assert [kind_of(note) for note in paper.notes].count("fp16_approximate") == 1
    assert any("--fp16-rule paper" in note for note in paper.notes)


def test_without_gpu_or_arch_tensor_flops_are_blank_and_the_note_names_the_options(pytorch_on_no_gpu_named):
    run = pytorch_on_no_gpu_named
    rows = run.kernels.set_index("demangled")
    assert rows.loc[CONV, "flops_tensor_fp16"].isna().all()  # Tensor instructions, FLOPs each unknown
    assert rows.loc[BATCHNORM, "flops_fp32"].iloc[0] == 50 + 100 + 2 * 3000  # CUDA cores: any GPU
    # A launch without CUDA-core FLOPs may have done Tensor work: not zero-AI, not "none".
    assert rows.loc[CONV, "zero_ai"].isna().all() and (rows.loc[CONV, "pipeline"] == "unknown").all()
    # No instruction issued to the Tensor pipe: no Tensor work on any GPU, so zero-AI is known.
    assert rows.loc[COPY, "zero_ai"].all() and (rows.loc[COPY, "flops_tensor"] == 0).all()
    unknown_arch = [note for note in run.notes if kind_of(note) == "unknown_arch"]
    assert len(unknown_arch) == 1 and unknown_arch[0].fix == "--gpu NAME or --arch sm_XY"
    assert set(run.kernels["cc"]) == {""}  # no architecture assumed


def test_arch_option_gives_the_same_numbers_as_gpu(pytorch_dir, pytorch_on_v100, load_clone):
    by_gpu = pytorch_on_v100.kernels
    by_arch = load_clone([pytorch_dir], LoadOptions(arch="sm_70")).kernels
    pd.testing.assert_series_equal(by_gpu["flops"], by_arch["flops"])


def test_tensorflow_runs_in_different_orders_join_per_kernel_name(tensorflow_dir, load_clone):
    run = load_clone([tensorflow_dir], LoadOptions(gpu="V100", fp16_rule="paper"))
    rows = run.kernels.set_index("demangled")
    expected = by_name()
    assert set(rows.index) == set(expected)
    for name, sums in expected.items():
        assert rows.loc[name, "launches"] == sums["Count"]
        assert rows.loc[name, "flops_tensor_fp16"] == 512 * sums["sm__inst_executed_pipe_tensor.sum"]
        assert rows.loc[name, "bytes_l1"] == sums["l1tex__t_bytes.sum"]
        # The authors' per-name time: summed cycles over the mean clock
        assert rows.loc[name, "time_s"] == pytest.approx(
            sums["sm__cycles_elapsed.avg"] / (sums["sm__cycles_elapsed.avg.per_second"] / sums["Count"])
        )
    assert any("per-launch rows are not available" in note for note in run.notes)
    table = zero_ai_table(run.kernels).iloc[-1]
    assert (table["zero_ai"], table["kernels"]) == (PER_NAME_ZERO_AI, len(LAUNCHES))
    assert rows.loc[COPY, "zero_ai"]


def test_reproduction_script_agrees_with_the_authors_csvs(clone, pytorch_dir, tensorflow_dir, reproduce):
    pytorch_csv = clone / "mlperf-deepcam/CSVs/fp32-O1-Adam-fw.csv"
    assert reproduce.compare_with_authors(pytorch_dir, pytorch_csv) == []
    assert (
        reproduce.compare_with_authors(
            tensorflow_dir, clone / "climate-seg-benchmark/CSVs/fp16-batch2-fwbw-amp.csv"
        )
        == []
    )
    by_name_row, by_launch_row = reproduce.table_iii([pytorch_dir])
    assert (by_name_row["zero_ai"], by_launch_row["zero_ai"]) == (PER_NAME_ZERO_AI, PER_LAUNCH_ZERO_AI)
    assert reproduce.table_iii([tensorflow_dir])[1] is None


def test_reproduction_script_reports_a_kernel_that_differs(clone, pytorch_dir, tmp_path, reproduce):
    csv = clone / "mlperf-deepcam/CSVs/fp32-O1-Adam-fw.csv"
    table = pd.read_csv(csv)
    table.loc[table["Kernel Name"] == CONV, "dram__bytes.sum"] += 32
    altered = tmp_path / "altered.csv"
    table.to_csv(altered, index=False)
    problems = reproduce.compare_with_authors(pytorch_dir, altered)
    assert len(problems) == 1 and "bytes_hbm" in problems[0]


def test_summary_of_the_directory_through_the_cli(pytorch_dir):
    result = run_cli(
        "summary", pytorch_dir, "--gpu", "V100", "--group", "--zero-ai-by", "name", "--format", "json"
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert (doc["summary"]["zero_ai"], doc["summary"]["kernels"]) == (PER_NAME_ZERO_AI, len(LAUNCHES))
    assert {k["time_source"] for k in doc["kernels"]} == {
        "derived: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second"
    }


def test_group_alone_counts_zero_ai_per_launch_and_says_so(pytorch_dir, cli_loads_once):
    # One zero-AI definition by default (per launch); per kernel name only when asked.
    result = run_cli("summary", pytorch_dir, "--gpu", "V100", "--group", "--format", "json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["summary"]
    assert (summary["zero_ai"], summary["zero_ai_counted"]) == (PER_LAUNCH_ZERO_AI, "per launch")
    by_name = run_cli("summary", pytorch_dir, "--gpu", "V100", "--zero-ai-by", "name")
    assert "Table III, zero-AI per kernel name" in by_name.stdout


def test_detail_pane_says_the_time_was_derived_and_from_what(pytorch_on_no_gpu_named):
    from rich.console import Console

    from rooftui.views.tui.detail_text import describe

    run = pytorch_on_no_gpu_named  # no --gpu: Tensor FLOPs and some zero-AI unknown
    console = Console(width=200, record=True)
    for _, row in run.kernels.iterrows():
        console.print(describe(row, run.ceilings))
    text = console.export_text()
    assert "(derived: sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second)" in text
    assert "unknown" in text


def test_json_says_which_fp16_rule_was_used(pytorch_dir):
    result = run_cli("summary", pytorch_dir, "--arch", "sm_70", "--fp16-rule", "paper", "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["fp16_rule"] == "paper"
    relu = next(k for k in doc["kernels"] if k["demangled"] == RELU)
    launch = next(launch for launch in LAUNCHES if launch["name"] == RELU)
    assert relu["flops"]["fp16"] == (
        launch[SASS.format("hadd")] + launch[SASS.format("hmul")] + 2 * launch[SASS.format("hfma")]
    )


def test_rows_that_stand_for_several_launches_say_how_many(tensorflow_dir):
    result = run_cli("summary", tensorflow_dir, "--gpu", "V100", "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    launches = {k["demangled"]: k["launches"] for k in doc["kernels"]}
    assert launches == {name: sums["Count"] for name, sums in by_name().items()}
    assert doc["summary"]["kernels"] == len(LAUNCHES)
