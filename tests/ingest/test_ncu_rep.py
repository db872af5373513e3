"""Reading .ncu-rep reports: the same launches and numbers as ncu's own CSV export.

Each report is checked against ``ncu --import REPORT --csv --page raw --print-units
base`` of the same file (sample_data/make/make_samples.sh,
tests/ingest/data/make_nested_nvtx.sh). Bad reports must give one InputError line
and never take the process down.
"""

from __future__ import annotations

import lzma
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rooftui.errors import InputError
from rooftui.ingest import cache_entry, ncu_rep
from rooftui.ingest.cache import EntryFile
from rooftui.ingest.ncu_rep import read_ncu_rep
from rooftui.ingest.report import IDENTITY_COLUMNS, is_relevant_metric
from rooftui.ingest.units import factor, to_base
from rooftui.model.metrics import REGISTER_MOVES
from tests.conftest import assert_one_line_error, run_cli

ROOT = Path(__file__).resolve().parents[2]
KNOWN = ROOT / "sample_data" / "known_answer"
DEEPCAM = ROOT / "sample_data" / "deepcam"
DATA = Path(__file__).resolve().parent / "data"
DISPLAY_NAME = "device__attribute_display_name"
NVTX_COLUMN = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"


def read_csv_export(path: Path) -> tuple[pd.DataFrame, pd.Series]:
    """ncu's raw CSV (base units) and its units row."""
    frame = pd.read_csv(path, skiprows=[1], thousands=",", dtype={"CC": str})
    units_row = pd.read_csv(path, nrows=1).iloc[0].fillna("")
    return frame, units_row


def csv_nvtx(cell: object) -> str:
    """ncu's push/pop cell (`1567  "<default domain>:forward:none:..."  ...`) -> "forward"."""
    if not isinstance(cell, str):
        return ""
    return " > ".join(entry.split(":")[1] for entry in re.findall(r'"([^"]+)"', cell))


def assert_same_launches(ours: pd.DataFrame, csv: pd.DataFrame, *, names: bool = True) -> None:
    assert list(ours["ncu_id"]) == list(csv["ID"])
    if names:
        assert list(ours["kernel_name"]) == list(csv["Kernel Name"])
    assert list(ours["device_index"]) == list(csv["Device"])
    assert list(ours["cc"]) == list(csv["CC"])
    assert list(ours["grid"]) == list(csv["Grid Size"])
    assert list(ours["block"]) == list(csv["Block Size"])
    assert list(ours["stream"]) == list(csv["Stream"])
    assert list(ours["device"]) == list(csv[DISPLAY_NAME])
    expected_nvtx = csv[NVTX_COLUMN].map(csv_nvtx) if NVTX_COLUMN in csv else ""
    assert list(ours["nvtx"]) == list(pd.Series(expected_nvtx, index=csv.index))


def assert_same_metrics(ours: pd.DataFrame, csv: pd.DataFrame, units_row: pd.Series) -> None:
    """Every kept metric equals the CSV's, to the digits the CSV prints.

    The CSV prints whole numbers (counts, bytes, ns, cycles) exactly and other
    values with 2 decimals: whole-number columns must match exactly, the others
    within half a unit of the last printed digit.
    """
    kept = [c for c in csv.columns if is_relevant_metric(c) and c != DISPLAY_NAME]
    # REGISTER_MOVES is rooftui's own count from the SASS (NaN here), not an ncu metric.
    assert sorted(kept) == sorted(
        c for c in ours.columns if c not in IDENTITY_COLUMNS and c != REGISTER_MOVES
    )
    whole_columns = 0
    for name in kept:
        unit = units_row[name]
        assert factor(unit) == 1.0, (name, unit)  # a base-unit export
        expected = np.array([to_base(float(v), unit) for v in csv[name]])
        got = ours[name].to_numpy()
        if np.all(expected == np.round(expected)):
            whole_columns += 1
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=0.005 + 1e-9, err_msg=name)
    assert whole_columns >= len(kept) // 2  # the exact comparison is the common case


def as_read(load_once, path: Path):
    """The report at ``path`` as the .ncu-rep reader gave it to ``load_run`` (``Run.reports``:
    ``read_ncu_rep``'s fetch and decoding, before any table is made of it), from
    ``load_once``: the DeepCAM report's reader child costs ~2 s of CPU, and the tests of
    zero-AI and of every form load the same reports."""
    (report,) = load_once(path).reports
    return report


@pytest.fixture(scope="module")
def known_answer(load_once):
    return as_read(load_once, KNOWN / "known_answer.ncu-rep")


@pytest.fixture(scope="module")
def deepcam_amp(load_once):
    return as_read(load_once, DEEPCAM / "deepcam_amp.ncu-rep.xz")


def test_known_answer_report_lists_the_same_launches_as_ncus_csv(known_answer):
    report = known_answer
    csv, _ = read_csv_export(KNOWN / "known_answer.raw-base.csv")
    assert report.format == "ncu-rep" and report.exact
    assert list(report.kernels.columns[: len(IDENTITY_COLUMNS)]) == list(IDENTITY_COLUMNS)
    assert len(report.kernels) == len(csv) == 15
    assert_same_launches(report.kernels, csv)
    assert report.kernels["cc"].iloc[0] == "9.0"
    assert report.kernels["process_id"].isna().all()  # ncu_report does not expose it


def test_known_answer_report_metrics_equal_the_base_unit_csv(known_answer):
    csv, units_row = read_csv_export(KNOWN / "known_answer.raw-base.csv")
    assert_same_metrics(known_answer.kernels, csv, units_row)


def test_wmma_gemm_fp16_tensor_ops_are_exactly_2mnk(known_answer):
    kernels = known_answer.kernels
    gemm = kernels[kernels["kernel_name"].str.startswith("wmma_gemm(")].iloc[0]
    assert gemm["kernel_name"].startswith("wmma_gemm(")
    assert gemm["sm__ops_path_tensor_src_fp16.sum"] == 2 * 4096**3 == 137438953472


def test_times_stay_in_nanoseconds_and_rates_per_second(known_answer):
    kernels = known_answer.kernels
    daxpy = kernels.iloc[0]
    csv, _ = read_csv_export(KNOWN / "known_answer.raw-base.csv")
    # ns, as ncu stores it and prints it with --print-units base
    assert daxpy["gpu__time_duration.sum"] == csv["gpu__time_duration.sum"].iloc[0]
    assert 10_000 < daxpy["gpu__time_duration.sum"] < 1_000_000
    clock = daxpy["sm__cycles_elapsed.avg.per_second"]  # hz
    assert 1e8 < clock < 3e9


def test_deepcam_amp_xz_report_loads_with_its_nvtx_phases(deepcam_amp):
    kernels = deepcam_amp.kernels
    with lzma.open(DEEPCAM / "deepcam_amp.raw-base.csv.xz", "rt") as handle:
        csv = pd.read_csv(handle, skiprows=[1], thousands=",", dtype={"CC": str})
    assert len(kernels) == len(csv) == 179
    expected_counts = csv[NVTX_COLUMN].map(csv_nvtx).value_counts().to_dict()
    assert expected_counts == {"": 88, "forward": 76, "optimizer": 13, "backward": 2}
    assert kernels["nvtx"].value_counts().to_dict() == expected_counts
    assert_same_launches(kernels, csv, names=False)
    with lzma.open(DEEPCAM / "deepcam_amp.raw-base.csv.xz", "rt") as handle:
        units_row = pd.read_csv(handle, nrows=1).iloc[0].fillna("")
    assert_same_metrics(kernels, csv, units_row)


def test_deepcam_kernel_names_differ_from_the_csv_only_by_ncus_shortening(deepcam_amp):
    """ncu's CSV drops namespaces and literal casts from deep C++ names.

    ``void at::native::k<(int)8, ...>`` in the report reads ``void at::k<8, ...>``
    in the CSV; removing every namespace qualifier and cast makes them equal.
    """
    kernels = deepcam_amp.kernels
    with lzma.open(DEEPCAM / "deepcam_amp.raw-base.csv.xz", "rt") as handle:
        csv = pd.read_csv(handle, skiprows=[1], usecols=["ID", "Kernel Name"])

    def bare(name: str) -> str:
        name = re.sub(r"\((?:unsigned |signed )?[\w:]+\)(?=-?\d)", "", name)
        return re.sub(r"(?:\w+|<unnamed>)::", "", name)

    ours, theirs = list(kernels["kernel_name"]), list(csv["Kernel Name"])
    assert [bare(n) for n in ours] == [bare(n) for n in theirs]
    assert sum(a == b for a, b in zip(ours, theirs)) == 38  # the rest are shortened by ncu


def test_nested_nvtx_ranges_read_outermost_first_across_domains_and_the_copy_is_deleted(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    report = read_ncu_rep(DATA / "nested_nvtx.ncu-rep.xz")
    assert list(tmp_path.iterdir()) == []  # the decompressed copy is deleted after reading
    with lzma.open(DATA / "nested_nvtx.raw-base.csv.xz", "rt") as handle:
        csv = pd.read_csv(handle, skiprows=[1], thousands=",", dtype={"CC": str})
    kernels = report.kernels
    assert list(kernels["nvtx"]) == [
        "",
        "outer",
        "outer > inner",
        "outer > inner > dr",
        "outer > inner > third > dr",
    ]
    assert list(kernels["stream"]) == [7, 7, 13, 7, 7]
    assert kernels["grid"].iloc[1] == "(2, 3, 4)" and kernels["block"].iloc[1] == "(32, 2, 1)"
    assert_same_launches(kernels, csv)


def test_decompressed_copy_is_deleted_when_the_report_is_bad(tmp_path, monkeypatch):
    half = tmp_path / "half.ncu-rep.xz"
    data = (KNOWN / "known_answer.ncu-rep").read_bytes()
    half.write_bytes(lzma.compress(data[: len(data) // 2]))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with pytest.raises(InputError, match="truncated"):
        read_ncu_rep(half)
    assert list(scratch.iterdir()) == []


def test_truncated_report_is_refused_not_half_read(tmp_path):
    # ncu_report itself loads this half without complaint, with 5 of the 14 kernels.
    half = tmp_path / "half.ncu-rep"
    data = (KNOWN / "known_answer.ncu-rep").read_bytes()
    half.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError) as caught:
        read_ncu_rep(half)
    message = str(caught.value)
    assert message.startswith(f"{half}: the report is truncated")
    assert "re-run ncu" in message and "\n" not in message


def test_truncated_xz_stream_is_an_input_error(tmp_path):
    cut = tmp_path / "cut.ncu-rep.xz"
    data = (DATA / "nested_nvtx.ncu-rep.xz").read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="the .xz file is truncated"):
        read_ncu_rep(cut)


def test_random_bytes_are_not_a_report(tmp_path):
    noise = tmp_path / "noise.ncu-rep"
    noise.write_bytes(np.random.default_rng(7).integers(0, 256, 1 << 20, dtype=np.uint8).tobytes())
    with pytest.raises(InputError, match="not an Nsight Compute report"):
        read_ncu_rep(noise)


def test_empty_report_is_an_input_error(tmp_path):
    empty = tmp_path / "empty.ncu-rep"
    empty.touch()
    with pytest.raises(InputError, match="empty"):
        read_ncu_rep(empty)


def test_report_with_only_a_header_holds_no_kernels(tmp_path):
    header_only = tmp_path / "header.ncu-rep"
    header_only.write_bytes((KNOWN / "known_answer.ncu-rep").read_bytes()[:149])  # 2 records
    with pytest.raises(InputError, match="holds no profiled kernels"):
        read_ncu_rep(header_only)


# A stand-in for the reader child: Python code run with the reader's arguments
# (--children N --entry-fd FD --key KEY REPORT); ENTRY_FD takes out the descriptor.
ENTRY_FD = "import os, sys; fd = int(sys.argv[sys.argv.index('--entry-fd') + 1]); "


def _run_fake_worker(tmp_path: Path, code: str, monkeypatch, timeout_s: float = 60):
    report = tmp_path / "r.ncu-rep"
    report.write_bytes(b"NVR\0")
    monkeypatch.setattr(ncu_rep, "WORKER", [sys.executable, "-c", code])
    return read_ncu_rep(report, timeout_s=timeout_s)


def test_parent_survives_a_reader_that_segfaults(tmp_path, monkeypatch):
    crash = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    with pytest.raises(InputError, match=r"crashed with SIGSEGV\) — re-copy"):
        _run_fake_worker(tmp_path, crash, monkeypatch)


def test_reader_that_hangs_is_stopped(tmp_path, monkeypatch):
    with pytest.raises(InputError, match="took more than 1 s"):
        _run_fake_worker(tmp_path, "import time; time.sleep(30)", monkeypatch, timeout_s=1)


def test_reader_garbage_output_is_an_input_error(tmp_path, monkeypatch):
    with pytest.raises(InputError, match="unreadable output"):
        _run_fake_worker(tmp_path, ENTRY_FD + "os.write(fd, b'{\"columns\": [')", monkeypatch)


def test_reader_skipping_a_damaged_record_is_an_input_error(tmp_path, monkeypatch):
    code = (
        "import sys; "
        "sys.stderr.write('[libprotobuf ERROR] Can\\'t parse message of type "
        '"NV.Profiler.Messages.ProfileResult" because it is missing required fields\')'
    )
    with pytest.raises(InputError, match="the report is corrupt"):
        _run_fake_worker(tmp_path, code, monkeypatch)


def test_reader_exception_becomes_one_line(tmp_path):
    missing = tmp_path / "gone.ncu-rep"
    with EntryFile(None, "k") as entry, pytest.raises(InputError) as caught:
        command = [*ncu_rep.WORKER, "--entry-fd", str(entry.fileno()), "--key", "k"]
        ncu_rep._run_worker(command, missing, missing, entry, 60)
    assert "the ncu_report reader failed on it (FileNotFoundError" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_worker_writes_only_the_metrics_rooftui_uses_as_columns():
    with EntryFile(None, "k") as entry:
        command = [*ncu_rep.WORKER, "--entry-fd", str(entry.fileno()), "--key", "k"]
        ncu_rep._run_worker(command, KNOWN / "known_answer.ncu-rep", KNOWN, entry, 60)
        data = entry.read()
    written = cache_entry.decode(data, "k")
    metrics = [c for c in written.columns if c.name not in IDENTITY_COLUMNS and c.name != REGISTER_MOVES]
    assert written.rows == 15 and written.format == "ncu-rep"
    assert metrics and all(is_relevant_metric(c.name) for c in metrics)
    # one float64 per launch and metric, not a Python object per value
    assert all(c.kind == "float64" and len(c.data) == 8 * 15 for c in metrics)
    assert len(data) < 40_000  # 15 kernels x ~30 metrics, not 530 metrics each


def test_reader_entry_made_for_another_report_is_refused(tmp_path, monkeypatch):
    """An entry is only trusted for the key it was made for: a reader that wrote
    another report's entry (a well-formed one) gives an error, not that report."""
    code = (
        ENTRY_FD
        + "from rooftui.ingest.cache_entry import Column, Entry; "
        + "entry = Entry('another', 'ncu-rep', True, 1, [Column('ncu_id', 'int64', bytes(8))]); "
        + "entry.write(os.fdopen(fd, 'wb'))"
    )
    with pytest.raises(InputError, match="unreadable output .*another report's entry"):
        _run_fake_worker(tmp_path, code, monkeypatch)


def test_a_reader_interpreter_that_cannot_start_is_named_and_the_report_is_not_blamed(tmp_path, monkeypatch):
    """A virtual environment the user running rooftui cannot read: the reader's Python
    cannot be run (a file without the execute permission stands in for it; root too is
    refused). The message names that interpreter and says the report was not read,
    where it used to say the report could not be read."""
    interpreter = tmp_path / "venv" / "bin" / "python"
    interpreter.parent.mkdir(parents=True)
    interpreter.write_text("#!/bin/sh\n")
    interpreter.chmod(0o644)
    monkeypatch.setattr(ncu_rep, "WORKER", [str(interpreter), "-m", "rooftui.ingest._ncu_rep_worker"])
    report = KNOWN / "known_answer.ncu-rep"
    with pytest.raises(ncu_rep.ReaderDidNotStart) as caught:
        read_ncu_rep(report)
    assert str(caught.value).startswith(
        f"{report}: rooftui's .ncu-rep reader could not start ({interpreter}: Permission denied);"
        " the report itself was not read — let the user running rooftui run "
        f"{interpreter} and read its environment"
    )
    assert "cannot read it" not in str(caught.value)
    done = run_cli("summary", report)
    assert_one_line_error(done, f"{report}: rooftui's .ncu-rep reader could not start ({interpreter}:")


def test_a_compressed_report_whose_reader_cannot_start_names_the_report_given(tmp_path, monkeypatch):
    monkeypatch.setattr(ncu_rep, "WORKER", [str(tmp_path / "gone" / "python"), "-m", "x"])
    report = KNOWN / "known_answer_basic.ncu-rep.xz"
    with pytest.raises(ncu_rep.ReaderDidNotStart) as caught:
        read_ncu_rep(report)
    gone = tmp_path / "gone" / "python"
    # the report given, not its decompressed copy
    start = f"{report}: rooftui's .ncu-rep reader could not start ({gone}: No such file"
    assert str(caught.value).startswith(start)


def test_a_reader_that_cannot_import_rooftui_did_not_start(monkeypatch):
    """The interpreter runs but finds no rooftui (-I -S: no site-packages, no PYTHONPATH,
    as when the environment's packages cannot be read): the reader never ran."""
    isolated = [sys.executable, "-I", "-S", "-m", "rooftui.ingest._ncu_rep_worker"]
    monkeypatch.setattr(ncu_rep, "WORKER", isolated)
    with pytest.raises(ncu_rep.ReaderDidNotStart) as caught:
        read_ncu_rep(KNOWN / "known_answer.ncu-rep")
    assert f"reader could not start ({sys.executable}: " in str(caught.value)
    assert "No module named 'rooftui'" in str(caught.value) and "\n" not in str(caught.value)


def test_summary_cli_exits_2_with_one_line_on_a_truncated_report(tmp_path):
    pytest.importorskip("rooftui.cli.summary")
    half = tmp_path / "half.ncu-rep"
    data = (KNOWN / "known_answer.ncu-rep").read_bytes()
    half.write_bytes(data[: len(data) // 2])
    done = run_cli("summary", half)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "truncated" in done.stderr


def test_ncu_report_missing_is_explained(tmp_path, monkeypatch):
    report = tmp_path / "a.ncu-rep"
    report.write_bytes(b"NVR\0")
    real_find_spec = ncu_rep.importlib.util.find_spec
    monkeypatch.setattr(
        ncu_rep.importlib.util,
        "find_spec",
        lambda name: None if name == "ncu_report" else real_find_spec(name),
    )
    with pytest.raises(InputError, match="pip install ncu-report"):
        read_ncu_rep(report)
