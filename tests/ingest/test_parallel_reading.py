"""Several reports read at once: the same reports in the order given, one error (the
first bad report's), progress once per report, and readers held back for memory."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

from rooftui.errors import InputError
from rooftui.ingest import read_report
from rooftui.ingest.ncu_rep import MemoryGate
from rooftui.ingest.parallel import read_paths, start_reading
from tests.conftest import KNOWN

DATA = KNOWN.parents[1] / "tests" / "ingest" / "data"
MIX = [
    KNOWN / "known_answer.ncu-rep",
    KNOWN / "known_answer.raw.csv",
    DATA / "nested_nvtx.ncu-rep.xz",
    KNOWN / "known_answer.details-base.csv",
]


def read_files(paths, **kwargs):
    """The reports of ``paths`` (files: one each), read together."""
    return [report for found in read_paths(paths, **kwargs) for report in found]


def test_reports_read_together_equal_each_read_alone_and_progress_counts_each_once():
    seen = []
    together = read_files(MIX, cache=False, workers=4, progress=lambda *call: seen.append(call))
    assert [r.path for r in together] == [str(p) for p in MIX]
    for report, path in zip(together, MIX):
        alone = read_report(path)
        pd.testing.assert_frame_equal(report.kernels, alone.kernels)
        assert report.format == alone.format
    # progress: once at the start, then once per report (its own test, 2 workers, before
    # 2026-12-02: how many read at once changes nothing of what progress is told)
    assert seen[0] == (0, 4, "")
    assert [done for done, _, _ in seen] == [0, 1, 2, 3, 4]
    assert sorted(what for _, _, what in seen[1:]) == sorted(map(str, MIX))


def test_the_first_bad_report_in_the_order_given_is_the_error(tmp_path):
    half = tmp_path / "half.ncu-rep"
    data = (KNOWN / "known_answer.ncu-rep").read_bytes()
    half.write_bytes(data[: len(data) // 2])
    empty = tmp_path / "empty.ncu-rep"
    empty.touch()  # fails at once, long before the truncated one
    with pytest.raises(InputError) as caught:
        read_files([KNOWN / "known_answer.ncu-rep", half, empty], cache=False, workers=3)
    assert str(caught.value).startswith(f"{half}: the report is truncated")


def test_ncu_rep_readers_start_before_pandas_is_imported(tmp_path):
    report = tmp_path / "a.ncu-rep"
    shutil.copy(KNOWN / "known_answer.ncu-rep", report)
    code = (
        "import sys; from rooftui.ingest.parallel import start_reading; "
        f"reading = start_reading([{str(report)!r}], cache=False); "
        "assert 'pandas' not in sys.modules, 'pandas imported'; "
        "assert reading._futures, 'no reader started'; "
        "print(len(reading.result()[0][0].kernels))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=KNOWN.parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "15"


def test_cached_reports_start_no_reader(tmp_path):
    read_files([KNOWN / "known_answer.ncu-rep"])
    reading = start_reading([KNOWN / "known_answer.ncu-rep"])
    assert not reading._futures
    assert len(reading.result()[0][0].kernels) == 15


def test_a_reader_waits_while_the_running_ones_use_the_memory():
    gate = MemoryGate(available=lambda: 1000.0)  # budget: 800 bytes
    order = []

    def reader(name: str, nbytes: int, hold_s: float) -> None:
        with gate.reserve(nbytes):
            order.append(f"{name} in")
            time.sleep(hold_s)
            order.append(f"{name} out")

    first = threading.Thread(target=reader, args=("a", 600, 0.3))
    first.start()
    while not order:
        time.sleep(0.01)
    second = threading.Thread(target=reader, args=("b", 600, 0))
    second.start()
    first.join()
    second.join()
    assert order == ["a in", "a out", "b in", "b out"]


def test_a_report_larger_than_the_memory_budget_is_still_read():
    gate = MemoryGate(available=lambda: 1000.0)
    with gate.reserve(10**12):
        pass
    small = []
    with gate.reserve(100), gate.reserve(100):  # two that fit run together
        small.append("both in")
    assert small == ["both in"]


@pytest.mark.parametrize(
    ("cores", "workers", "reports", "children"),
    [
        (8, 8, 2, 4),  # two readers at once: half the cores each
        (8, 1, 2, 8),  # one reader at a time: all of them
        (2, 8, 3, 1),  # more readers than cores: one child each
    ],
)
def test_each_reader_gets_its_share_of_the_cores(monkeypatch, tmp_path, cores, workers, reports, children):
    from rooftui.ingest import parallel

    given = []
    monkeypatch.setattr(parallel, "usable_cores", lambda: cores)
    monkeypatch.setattr(parallel, "_fetch", lambda path, at_once, store, key: given.append(at_once))
    paths = [tmp_path / f"r{i}.ncu-rep" for i in range(reports)]
    for path in paths:
        path.write_bytes(b"NVR\0")
    reading = start_reading(paths, cache=False, workers=workers)
    reading._pool.shutdown(wait=True)
    assert given == [children] * reports
