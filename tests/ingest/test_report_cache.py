"""The report cache: a re-opened report comes back exactly as read, never stale, and a
damaged cache costs a re-read, never an error. XDG_CACHE_HOME points into pytest's
temporary folders (tests/conftest.py)."""

from __future__ import annotations

import os
import shutil

import pandas as pd
import pytest

from rooftui import ingest
from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.ingest import cache as report_cache
from rooftui.ingest import ncu_rep
from rooftui.ingest.cache import ReportCache, cache_dir
from rooftui.ingest.parallel import read_paths
from tests.conftest import DEEPCAM, KNOWN

DATA = KNOWN.parents[1] / "tests" / "ingest" / "data"
FORMS = [
    KNOWN / "known_answer.ncu-rep",
    DATA / "nested_nvtx.ncu-rep.xz",  # nullable stream/device columns absent, NVTX present
    KNOWN / "known_answer.raw.csv",
    KNOWN / "known_answer.details-base.csv",
    DEEPCAM / "deepcam_amp.raw-base.csv.xz",
    KNOWN / "instructions" / "instructions.summary.csv",  # no stream, grid or block column
]


def read_files(paths, **kwargs):
    """The reports of ``paths`` (files: one each), read together."""
    return [report for found in read_paths(paths, **kwargs) for report in found]


@pytest.fixture
def no_reading(monkeypatch):
    """Make any actual read of a report fail the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("the report was read again")

    monkeypatch.setattr(ncu_rep, "fetch_ncu_rep", refuse)
    monkeypatch.setattr(ingest, "read_report", refuse)


def entries():
    return sorted(cache_dir().glob("*.report"))


@pytest.mark.parametrize("report", FORMS, ids=lambda p: p.name)
def test_reopened_report_comes_back_exactly_as_read(report, tmp_path, request):
    (first,) = read_files([report])
    assert len(entries()) == 1
    request.getfixturevalue("no_reading")
    (again,) = read_files([report])
    pd.testing.assert_frame_equal(again.kernels, first.kernels, check_exact=True)
    assert (again.path, again.format, again.exact, again.notes) == (
        first.path,
        first.format,
        first.exact,
        first.notes,
    )


def test_options_act_on_the_cached_report_anew(tmp_path):
    report = DEEPCAM / "deepcam_amp.raw-base.csv.xz"
    inferred = load_run([report])
    assert inferred.kernels["phase_inferred"].sum() == 88
    plain = load_run([report], LoadOptions(infer_phases=False))  # from the cache
    assert not plain.kernels["phase_inferred"].any()
    assert (plain.kernels["phase"] == "").sum() == 88


def test_a_changed_report_is_read_again(tmp_path):
    report = tmp_path / "run.raw.csv"
    shutil.copy(KNOWN / "known_answer.raw.csv", report)
    (first,) = read_files([report])
    lines = report.read_text().splitlines(keepends=True)
    report.write_text("".join(lines[:-1]))  # one launch fewer, written just now
    (second,) = read_files([report])
    assert len(second.kernels) == len(first.kernels) - 1


def test_a_report_with_the_same_size_and_mtime_elsewhere_is_its_own_entry(tmp_path):
    a, b = tmp_path / "a.ncu-rep", tmp_path / "b.ncu-rep"
    shutil.copy(KNOWN / "known_answer.ncu-rep", a)
    shutil.copy(KNOWN / "known_answer.ncu-rep", b)
    os.utime(b, ns=(os.stat(a).st_atime_ns, os.stat(a).st_mtime_ns))
    read_files([a, b])
    assert len(entries()) == 2


def test_entries_of_another_rooftui_version_are_not_used(tmp_path, monkeypatch):
    read_files([KNOWN / "known_answer.raw.csv"])
    monkeypatch.setattr(report_cache, "__version__", "99.0")
    assert ReportCache().get(KNOWN / "known_answer.raw.csv") is None


@pytest.fixture(scope="module")
def known_answer_entry(tmp_path_factory):
    """known_answer.ncu-rep read once into a cache of the module's own: the report as read,
    and its entry's name and bytes (each damage below starts from a copy of them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        (first,) = read_files([KNOWN / "known_answer.ncu-rep"])
        (entry,) = entries()
        return first, entry.name, entry.read_bytes()


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_a_damaged_entry_is_read_again_and_replaced(damage, known_answer_entry):
    report = KNOWN / "known_answer.ncu-rep"
    first, name, data = known_answer_entry
    cache_dir().mkdir(parents=True)
    entry = cache_dir() / name
    entry.write_bytes(data)
    assert ReportCache().get(report) is not None  # the entry as the reader wrote it is good
    damaged = {
        "truncate": data[: len(data) // 2],
        "flip": data[:-100] + bytes([data[-100] ^ 0x10]) + data[-99:],  # one bit of a number
        "garbage": b"\x80\x04not an entry at all",
        "empty": b"",
    }[damage]
    entry.write_bytes(damaged)
    assert ReportCache().get(report) is None
    assert not entry.exists()  # dropped, not left to fail again
    (again,) = read_files([report])
    pd.testing.assert_frame_equal(again.kernels, first.kernels)
    assert entries() == [entry] and entry.read_bytes() == data


def test_an_unwritable_cache_is_no_error(tmp_path, monkeypatch):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    (report,) = read_files([KNOWN / "known_answer.raw.csv"])
    assert len(report.kernels) == 15


def test_no_cache_neither_reads_nor_writes_the_cache(tmp_path, monkeypatch):
    read_files([KNOWN / "known_answer.raw.csv"], cache=False)
    assert not cache_dir().exists()
    monkeypatch.setenv("ROOFTUI_NO_CACHE", "1")
    load_run([KNOWN / "known_answer.raw.csv"])
    assert not cache_dir().exists()


def test_the_cache_keeps_under_its_cap_dropping_the_least_recently_used(tmp_path):
    reports = []
    for name in "abc":
        path = tmp_path / f"{name}.raw.csv"
        shutil.copy(KNOWN / "known_answer.raw.csv", path)
        reports.append(path)
    store = ReportCache()
    read_files(reports[:2], cache=store)
    one_entry = max(entry.stat().st_size for entry in entries())
    store.max_bytes = 2 * one_entry + one_entry // 2  # room for two
    a_entry = store.directory / (store.key(reports[0]) + ".report")
    os.utime(a_entry, ns=(1, 1))  # a was used longest ago...
    assert store.get(reports[0]) is not None  # ...until now: b is the oldest
    read_files(reports[2:], cache=store)
    kept = {entry.name for entry in entries()}
    assert kept == {store.key(p) + ".report" for p in (reports[0], reports[2])}


def test_cache_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "rooftui" / "reports"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG spec says: ignore it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "rooftui" / "reports"
