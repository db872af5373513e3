"""A cold ``.ncu-rep`` read: the reader child writes the report's cache entry, the parent
decodes it as it decodes a cached one, checks it, and only then renames it into the
cache. Nothing half-written is ever an entry; a report that fails its checks leaves
nothing behind. Stand-in readers (Python run with the reader's arguments) write entries
from documents made here, so each answer is known by construction."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pandas as pd
import pytest

from rooftui.errors import InputError
from rooftui.ingest import cache as report_cache
from rooftui.ingest import cache_entry, ncu_rep
from rooftui.ingest.cache import SUFFIX, WRITING, ReportCache
from rooftui.ingest.ncu_rep import fetch_ncu_rep, read_ncu_rep, to_raw_report
from rooftui.ingest.parallel import read_paths
from rooftui.ingest.report import failed_launch_notes
from rooftui.model.metrics import REGISTER_MOVES
from tests.conftest import KNOWN

REPORT = KNOWN / "known_answer.ncu-rep"
TIME = "gpu__time_duration.sum"
DRAM = "dram__bytes_read.sum"
PEAK = "dram__bytes_read.sum.peak_sustained"
# A stand-in reader: writes the entry of DOCUMENT (a dict literal) for the key it is given.
WRITE_DOCUMENT = """
import os, sys
from array import array
from rooftui.ingest.ncu_rep_entry import entry_of_document
fd = int(sys.argv[sys.argv.index("--entry-fd") + 1])
key = sys.argv[sys.argv.index("--key") + 1]
document = {document}
document["values"] = array("d", document["values"]).tobytes()
with os.fdopen(fd, "wb") as out:
    entry_of_document(document, key).write(out)
"""
NAN = float("nan")


def document(names, device_index, metrics, units, values):
    launches = len(names)
    return {
        "launches": launches,
        "identity": {
            "kernel_name": names,
            "device_index": device_index,
            "stream": [7] * launches,
            "grid": ["(1, 1, 1)"] * launches,
            "block": ["(32, 1, 1)"] * launches,
            "device": ["NVIDIA H200"] * launches,
            "cc": ["9.0"] * launches,
            "nvtx": [""] * launches,
            "register_moves": [None] * launches,
        },
        "metrics": metrics,
        "units": units,
        "values": values,
    }


def read_with_stand_in(tmp_path, monkeypatch, doc, store=None):
    report = tmp_path / "r.ncu-rep"
    # ncu's signature, an empty file header and a record of no layout the record check knows:
    # it counts no results to hold the stand-in's launches against
    report.write_bytes(b"NVR\0" + bytes(4) + (1).to_bytes(4, "little") + b"\x07")
    code = WRITE_DOCUMENT.replace("{document}", repr(doc).replace("nan", "float('nan')"))
    monkeypatch.setattr(ncu_rep, "WORKER", [sys.executable, "-c", code])
    return read_ncu_rep(report, store=store)


def names_under(folder):
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_the_entry_holds_values_in_base_units_and_nullable_devices(tmp_path, monkeypatch):
    doc = document(
        ["a", "b"],
        [0, None],
        [TIME, DRAM, "rooftui_test__odd"],
        ["msecond", "Kbyte", "furlong"],
        [1.5, 0.25, 3.0, 4.0, 5.0, 6.0],  # one metric after another
    )
    report = read_with_stand_in(tmp_path, monkeypatch, doc)
    kernels = report.kernels
    assert kernels[TIME].tolist() == [1_500_000.0, 250_000.0]  # ms -> ns
    assert kernels[DRAM].tolist() == [3000.0, 4000.0]  # Kbyte -> byte
    assert kernels["rooftui_test__odd"].tolist() == [5.0, 6.0]  # kept as stored, and said so
    assert report.notes == ["rooftui_test__odd: unknown unit 'furlong', values taken as stored"]
    assert str(kernels["device_index"].dtype) == "Int64" and kernels["device_index"].isna().tolist() == [
        False,
        True,
    ]
    assert kernels["stream"].dtype == "int64" and kernels["ncu_id"].tolist() == [0, 1]
    assert kernels["process_id"].isna().all() and kernels[REGISTER_MOVES].isna().all()
    assert (report.format, report.exact) == ("ncu-rep", True)


def test_launches_ncu_failed_to_replay_get_the_note_every_reader_gives(tmp_path, monkeypatch):
    doc = document(["a", "b", "c"], [0, 0, 0], [TIME, PEAK], ["ns", "byte"], [NAN, 10.0, NAN, 9.0, 9.0, 9.0])
    report = read_with_stand_in(tmp_path, monkeypatch, doc)
    # the note the child wrote (no pandas) is the one the CSV readers' pandas code gives
    assert report.notes == failed_launch_notes(report.kernels, report.path)
    assert (
        report.notes[0].startswith("2 launch(es) with every metric blank") and "ID 2 (c)" in report.notes[0]
    )


def test_a_report_whose_every_launch_failed_is_refused(tmp_path, monkeypatch):
    doc = document(["a", "b"], [0, 0], [TIME, PEAK], ["ns", "byte"], [NAN, NAN, 9.0, 9.0])
    with pytest.raises(InputError, match=r"every launch \(2\) has every metric blank.*ID 0, a"):
        read_with_stand_in(tmp_path, monkeypatch, doc)


def test_a_result_ncu_report_could_not_parse_is_refused(tmp_path, monkeypatch):
    doc = document(["a", None], [0, 0], [TIME], ["ns"], [5.0, NAN])
    with pytest.raises(InputError, match=r"record of kernel ID 1 \(1 of 2 results\) cannot be read"):
        read_with_stand_in(tmp_path, monkeypatch, doc)


def test_a_cold_read_installs_the_childs_entry_and_encodes_nothing(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the parent encoded a .ncu-rep entry itself")

    monkeypatch.setattr(report_cache, "entry_of_report", refuse)
    store = ReportCache(tmp_path / "reports")
    (cold,) = [r for (r,) in read_paths([REPORT], cache=store)]
    (entry,) = store.directory.glob("*" + SUFFIX)
    assert names_under(store.directory) == [entry.name]  # no temporary file left
    header = cache_entry.decode(entry.read_bytes(), store.key(REPORT))
    assert not any(c.dtype for c in header.columns)  # written without pandas: no pandas types
    warm = store.get(REPORT)
    pd.testing.assert_frame_equal(warm.kernels, cold.kernels, check_exact=True)
    assert (warm.path, warm.notes) == (cold.path, cold.notes) == (str(REPORT), [])


# Writes part of an entry, checks from inside the reader that nothing in the cache folder
# is named as an entry while it writes, then dies as a crashing reader would.
HALF_AND_CRASH = """
import os, signal, sys
fd = int(sys.argv[sys.argv.index("--entry-fd") + 1])
os.write(fd, b"rooftui-report-cache/2\\n" + bytes(100))
folder = os.path.dirname(os.readlink(f"/proc/self/fd/{fd}"))
assert not any(name.endswith(".report") for name in os.listdir(folder)), os.listdir(folder)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc")
def test_a_reader_that_dies_mid_entry_leaves_nothing_in_the_cache(tmp_path, monkeypatch):
    store = ReportCache(tmp_path / "reports")
    report = tmp_path / "r.ncu-rep"
    shutil.copy(REPORT, report)
    monkeypatch.setattr(ncu_rep, "WORKER", [sys.executable, "-c", HALF_AND_CRASH])
    with pytest.raises(InputError, match=r"crashed with SIGKILL"):  # not the assertion's exit 1
        read_ncu_rep(report, store=store)
    assert names_under(store.directory) == []


def test_a_report_its_checks_refuse_leaves_no_entry(tmp_path):
    store = ReportCache(tmp_path / "reports")
    header_only = tmp_path / "header.ncu-rep"
    header_only.write_bytes(REPORT.read_bytes()[:149])  # the child reads it: no kernels
    with pytest.raises(InputError, match="holds no profiled kernels"):
        read_ncu_rep(header_only, store=store)
    assert names_under(store.directory) == []


def test_a_report_changed_while_it_was_read_is_not_cached(tmp_path):
    store = ReportCache(tmp_path / "reports")
    report = tmp_path / "r.ncu-rep"
    shutil.copy(REPORT, report)
    fetched = fetch_ncu_rep(report, store=store, key=store.key(report))
    os.utime(report, ns=(1, 1))  # rewritten meanwhile, as far as its key can tell
    assert len(to_raw_report(fetched).kernels) == 15
    assert names_under(store.directory) == []


def test_an_unwritable_cache_still_reads_the_report(tmp_path, monkeypatch):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    (report,) = [r for (r,) in read_paths([REPORT])]
    assert len(report.kernels) == 15


def test_entries_left_by_a_killed_writer_go_after_a_day(tmp_path):
    store = ReportCache(tmp_path / "reports")
    store.directory.mkdir(parents=True)
    old, recent = store.directory / (WRITING + "old"), store.directory / (WRITING + "recent")
    old.write_bytes(b"x")
    recent.write_bytes(b"x")
    two_days_ago = time.time() - 2 * 86400
    os.utime(old, (two_days_ago, two_days_ago))
    store.evict()
    assert names_under(store.directory) == [recent.name]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_cache_disk_costs_a_second_read_not_an_error(tmp_path, monkeypatch):
    def cache_on_a_full_disk(dir, prefix):  # noqa: A002 - mkstemp's own names
        return os.open("/dev/full", os.O_RDWR), str(dir / (prefix + "full"))

    monkeypatch.setattr(report_cache.tempfile, "mkstemp", cache_on_a_full_disk)
    store = ReportCache(tmp_path / "reports")
    report = read_ncu_rep(REPORT, store=store)
    assert len(report.kernels) == 15
    assert names_under(store.directory) == []


def test_no_room_for_the_entry_anywhere_is_one_line(tmp_path, monkeypatch):
    code = "import sys; sys.stderr.write('OSError: [Errno 28] No space left on device'); sys.exit(4)"
    monkeypatch.setattr(ncu_rep, "WORKER", [sys.executable, "-c", code])
    with pytest.raises(InputError, match=r"no room to write the report as read \(OSError: \[Errno 28\]"):
        read_ncu_rep(REPORT, store=ReportCache(tmp_path / "reports"))


def test_the_reader_child_writes_its_entry_without_pandas_or_numpy():
    code = (
        "import sys, rooftui.ingest._ncu_rep_worker; "
        "print(sorted(m for m in ('pandas', 'numpy') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=ncu_rep._worker_env()
    )
    assert done.stdout.strip() == "[]", done.stderr
