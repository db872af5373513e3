"""Issue #25: the files rooftui writes itself and reads back -- the communication sidecar,
the cut-short note, report cache entries -- are read like any input: regular files only,
bounded, checked; a damaged one is one line (exit 2) or, where optional, a note."""

from __future__ import annotations

import dataclasses
import json
import lzma
import os
import zlib
from pathlib import Path

import pytest

from rooftui.analysis.ranks import communication_sidecar
from rooftui.errors import InputError
from rooftui.ingest.cache import MAGIC, ReportCache
from rooftui.ingest.parallel import read_paths
from rooftui.ingest.sidecars import cut_short_reason
from tests.fuzz.generators import Case
from tests.fuzz.helpers import BASE, REPORT, assert_clean, assert_one_line_error, rooftui
from tests.fuzz.runner import run_in_process

MULTIGPU = BASE.parents[1] / "multigpu"
GOOD_SIDECAR = (MULTIGPU / "ddp.communication.csv").read_bytes()


def _ddp(folder: Path, sidecar: bytes | None) -> list[Path]:
    reports = []
    for rank in (0, 1):
        path = folder / f"ddp.rank{rank}.raw.csv"
        path.write_bytes(lzma.decompress((MULTIGPU / f"ddp.rank{rank}.raw.csv.xz").read_bytes()))
        reports.append(path)
    if sidecar is not None:
        (folder / "ddp.communication.csv").write_bytes(sidecar)
    return reports


def test_the_real_communication_sidecar_still_adds_its_nccl_times(tmp_path):
    result = rooftui(
        tmp_path, "summary", "--format", "json", *_ddp(tmp_path, GOOD_SIDECAR), exact_stdout=True
    )
    assert result.code == 0, result.err
    ranks = {row["rank"]: row for row in json.loads(result.out)["ranks"]}
    sidecar_rows = GOOD_SIDECAR.decode().splitlines()[1:]
    rank0 = [line for line in sidecar_rows if line.startswith("0,")]
    # every sidecar launch of rank 0 counted (the reports hold no NCCL kernel themselves)
    assert ranks["0"]["communication_kernels"] == len(rank0)


DAMAGED_SIDECARS = {
    "negative": (b"rank,ncu_id,name,time_s\n0,1,nccl,-4.99\n", ("line 2", "time_s")),
    "inf": (b"rank,ncu_id,name,time_s\n0,1,nccl,inf\n", ("line 2", "time_s")),
    "text": (b"rank,ncu_id,name,time_s\n0,1,nccl,fast\n", ("line 2", "time_s")),
    "rank": (b"rank,ncu_id,name,time_s\nx,1,nccl,1e-5\n", ("line 2", "rank")),
    "column": (b"rank,ncu_id\n0,1\n", ("no name, time_s column",)),
    "empty": (b"", ("empty",)),
    "quote": (b'rank,ncu_id,name,time_s\n0,1,"nccl,1e-5\n', ("line 2",)),
    "fields": (GOOD_SIDECAR.replace(b",true,", b",true,x,", 1), ("line 2", "fields")),
}


def test_a_damaged_communication_sidecar_is_one_line_not_a_crash_or_a_wrong_share(tmp_path):
    # One through the whole command (exit 2, one line, nothing left behind: the fuzz
    # runner's checks); every kind of damage through what the summary calls to find and
    # read the sidecar, whose InputError is that line (the two ranks are not read again).
    content, words = DAMAGED_SIDECARS["negative"]
    reports = _ddp(tmp_path, content)
    assert_one_line_error(rooftui(tmp_path, "summary", *reports), "ddp.communication.csv", *words)
    for kind, (content, words) in DAMAGED_SIDECARS.items():
        (tmp_path / "ddp.communication.csv").write_bytes(content)
        try:
            communication_sidecar([str(path) for path in reports])
        except InputError as refused:
            line = str(refused)
            assert refused.exit_code == 2 and "\n" not in line, (kind, line)
        else:
            pytest.fail(f"{kind}: the damaged sidecar was read")
        for word in ("ddp.communication.csv", *words):
            assert word in line, (kind, line)


def test_a_latin1_byte_in_a_sidecar_name_is_read(tmp_path):
    content = GOOD_SIDECAR.replace(b"ncclDevKernel_Broadcast", b"nccl\xe9Broadcast", 1)
    result = rooftui(tmp_path, "summary", *_ddp(tmp_path, content))
    assert result.code == 0, result.err
    assert_clean(result)


def test_a_fifo_in_place_of_the_sidecar_is_refused_without_waiting(tmp_path):
    # through what the summary calls to find and read the sidecar (opening the FIFO would
    # wait for a writer forever); how the command turns that InputError into one line and
    # exit 2 is the damaged-sidecar test's run of the whole command
    reports = _ddp(tmp_path, None)
    os.mkfifo(tmp_path / "ddp.communication.csv")
    with pytest.raises(InputError) as refused:
        communication_sidecar([str(path) for path in reports])
    line = str(refused.value)
    assert refused.value.exit_code == 2 and "\n" not in line, line
    assert "ddp.communication.csv" in line and "not a regular file" in line, line


def test_a_csv_report_whose_cache_entry_has_no_columns_is_summarised_as_read(tmp_path):
    # the long fuzz run's case (seeds 5016, 5018): `summary known_answer.raw.csv --format
    # json` with the case's XDG_CACHE_HOME, its entry rewritten with a valid CRC and no
    # columns; it was exit 1 (KeyError: 'ncu_id'), a good report refused
    name = "known_answer.raw.csv"

    def damage(folder: Path) -> None:  # after the report is written: the entry must match it
        store = ReportCache(folder / "cache" / "rooftui" / "reports")
        read_paths([folder / name], cache=store)
        (entry,) = store.directory.glob("*.report")
        _rewrite_header(entry, lambda h: {**h, "columns": []})

    argv = ["summary", "{dir}/" + name, "--format", "json"]
    case = Case("cache", "no-columns", {name: (BASE.parent / name).read_bytes()}, argv, True)
    outcome = run_in_process(dataclasses.replace(case, setup=damage), tmp_path)
    assert outcome.returncode == 0, outcome.stderr
    assert not outcome.problems, outcome.problems
    alone = run_in_process(dataclasses.replace(case, env={"ROOFTUI_NO_CACHE": "1"}), tmp_path / "alone")
    assert json.loads(outcome.stdout)["summary"] == json.loads(alone.stdout)["summary"]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_cut_short_note_that_is_no_file_still_marks_the_report_partial(tmp_path, kind):
    report = tmp_path / "run.raw.csv"
    report.write_bytes(BASE.read_bytes())
    note = tmp_path / "run.cut-short.txt"
    os.mkfifo(note) if kind == "fifo" else note.symlink_to("/dev/zero")
    reason = cut_short_reason(report)
    assert reason is not None and "not a regular file" in reason


def test_a_200_mb_cut_short_note_is_not_read_whole(tmp_path, monkeypatch):
    report = tmp_path / "run.raw.csv"
    note = tmp_path / "run.cut-short.txt"
    with open(note, "wb") as handle:  # sparse: 200 MB on paper, nothing on disk
        handle.truncate(200 << 20)
    read = []
    original = os.read

    def counting(fd, size):
        data = original(fd, size)
        read.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting)
    reason = cut_short_reason(report)
    assert reason is not None and len(reason) <= 500
    assert sum(read) <= 2 << 20  # a buffer or two, not 200 MB


# ---------------------------------------------------------------- the report cache


@pytest.fixture(scope="module")
def read_once(tmp_path_factory) -> tuple[Path, Path]:
    """The known-answer ``.ncu-rep`` read once by its real reader process into a cache:
    the report and the entry that reader wrote. Tests damage copies of the entry, in
    caches of their own, for this same (unchanged) report file."""
    folder = tmp_path_factory.mktemp("read-once")
    report = folder / "known.ncu-rep"
    report.write_bytes(REPORT.read_bytes())
    store = ReportCache(folder / "cache")
    read_paths([report], cache=store)
    (entry,) = sorted(store.directory.glob("*.report"))
    return report, entry


@pytest.fixture
def cached(tmp_path, read_once) -> tuple[ReportCache, Path, Path]:
    report, entry = read_once
    store = ReportCache(tmp_path / "cache")
    store.directory.mkdir(parents=True)
    copy = store.directory / entry.name
    copy.write_bytes(entry.read_bytes())
    assert store.get(report) is not None  # the copy is the report's entry, as read
    return store, report, copy


def _rewrite_header(entry: Path, edit) -> None:
    blob = entry.read_bytes()
    body = blob[len(MAGIC) + 4 :]
    length = int.from_bytes(body[:8], "little")
    header = json.loads(body[8 : 8 + length])
    header = edit(header)
    new_header = json.dumps(header).encode()
    new_body = len(new_header).to_bytes(8, "little") + new_header + body[8 + length :]
    entry.write_bytes(MAGIC + zlib.crc32(new_body).to_bytes(4, "little") + new_body)


@pytest.mark.parametrize(
    "edit",
    [
        lambda h: {**h, "rows": "x"},
        lambda h: {**h, "rows": 10**15},
        lambda h: {**h, "notes": 5},
        lambda h: {**h, "exact": "yes"},
        lambda h: {**h, "columns": [5]},
        lambda h: [h],
        # found by the long fuzz run (seeds 5016, 5018): no column at all decoded "fine" and
        # the summary died on the missing launch ID (exit 1, a good report refused)
        lambda h: {**h, "columns": []},
        lambda h: {**h, "columns": {}},
        lambda h: {**h, "columns": [c for c in h["columns"] if c["name"] != "kernel_name"]},
        lambda h: {**h, "format": "x"},
    ],
    ids=[
        "rows-text",
        "rows-huge",
        "notes",
        "exact",
        "column",
        "list",
        "no-columns",
        "columns-object",
        "no-kernel-name",
        "format",
    ],
)
def test_a_cache_entry_with_a_valid_crc_and_a_bad_header_is_read_anew(cached, edit):
    store, report, entry = cached
    _rewrite_header(entry, edit)
    assert store.get(report) is None
    assert not entry.exists()  # dropped, as the cache's contract says


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_cache_entry_that_is_no_file_is_not_read(cached, kind):
    store, report, entry = cached
    entry.unlink()
    os.mkfifo(entry) if kind == "fifo" else entry.symlink_to("/dev/zero")
    assert store.get(report) is None


def test_a_damaged_entry_in_a_read_only_cache_is_skipped(cached, monkeypatch):
    store, report, entry = cached
    entry.write_bytes(b"damaged")

    def read_only(self, missing_ok=False):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "unlink", read_only)
    assert store.get(report) is None
    ((again,),) = read_paths([report], cache=store)  # read anew, no error
    assert len(again.kernels) > 0


def test_eviction_goes_on_when_an_entry_cannot_be_deleted(cached, monkeypatch):
    store, report, entry = cached
    store.max_bytes = 1
    monkeypatch.setattr(
        Path,
        "unlink",
        lambda self, missing_ok=False: (_ for _ in ()).throw(PermissionError(13, "Permission denied")),
    )
    store.evict()
    assert entry.exists()


@pytest.mark.parametrize("kind", ["long-name", "a-file"])
def test_a_cache_folder_that_cannot_be_used_only_means_no_cache(tmp_path, monkeypatch, kind):
    report = tmp_path / "known.ncu-rep"
    report.write_bytes(REPORT.read_bytes())
    if kind == "long-name":
        base = tmp_path / ("x" * 300)
    else:
        base = tmp_path / "afile"
        base.write_text("")
    result = rooftui(tmp_path, "summary", report, env={"XDG_CACHE_HOME": str(base)})
    assert result.code == 0, result.err
    assert_clean(result)
