"""The ``.ncu-rep`` reader split over forked children (``_ncu_rep_worker``), and every
way a report reaches the kernel table (one reader, many children, the report cache,
several reports in parallel) checked against ``ncu_report`` read directly, here.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import subprocess
import sys
import time
from array import array
from pathlib import Path

import pandas as pd
import pytest

from rooftui import ingest
from rooftui.errors import InputError
from rooftui.ingest import _ncu_rep_worker as worker
from rooftui.ingest import ncu_rep
from rooftui.ingest.cache import EntryFile
from rooftui.ingest.files import open_binary
from rooftui.ingest.parallel import read_paths
from tests.conftest import KNOWN

DATA = KNOWN.parents[1] / "tests" / "ingest" / "data"
SOURCE_COUNTERS = KNOWN / "known_answer_sourcecounters.ncu-rep.xz"
# Metrics whose ncu unit needs no scaling to rooftui's base unit (asserted below).
CHECKED = {
    "gpu__time_duration.sum": "ns",
    "lts__t_bytes.sum": "byte",
    "sm__cycles_elapsed.avg.per_second": "hz",
}

# The plainest ncu_report loop: every launch's name and the CHECKED metrics.
DIRECT = """
import json, sys
import ncu_report
context = ncu_report.load_report(sys.argv[1])
rows = []
for r in range(context.num_ranges()):
    result_range = context.range_by_idx(r)
    for a in range(result_range.num_actions()):
        action = result_range.action_by_idx(a)
        row = {"kernel_name": action.name(ncu_report.IAction.NameBase_DEMANGLED)}
        for name in sys.argv[2:]:
            metric = action.metric_by_name(name)
            row[name] = None if metric is None else [metric.as_double(), metric.unit()]
        rows.append(row)
print(json.dumps(rows))
"""


@functools.cache
def read_directly(path: Path) -> list[dict]:
    """What ncu_report itself reads (once per report and process: the tests only read it)."""
    done = subprocess.run(
        [sys.executable, "-c", DIRECT, str(path), *CHECKED], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def assert_equals_ncu_report(kernels: pd.DataFrame, direct: list[dict]) -> None:
    assert list(kernels["ncu_id"]) == list(range(len(direct)))
    assert list(kernels["kernel_name"]) == [row["kernel_name"] for row in direct]
    for name, unit in CHECKED.items():
        assert all(row[name][1] == unit for row in direct)
        assert list(kernels[name]) == [row[name][0] for row in direct], name


# The reader's own limit (60 s + 1 s per MB) is for one report on a user's machine; one
# child per launch, each paying its start, can take longer than that on the suite's
# shared 2-core machine under load. That limit is tested on its own
# (test_a_reader_child_that_hangs_is_stopped_with_its_parent).
READ_TIMEOUT_S = 600


def read_with(monkeypatch, path: Path, child_bytes: int) -> pd.DataFrame:
    """Read by children only, each stopping once grown by ``child_bytes`` (0: no child)."""
    monkeypatch.setattr(
        ncu_rep,
        "WORKER",
        [*ncu_rep.WORKER, "--child-bytes", str(child_bytes), "--min-launches", "1", "--children-only"],
    )
    return ncu_rep.read_ncu_rep(path, timeout_s=READ_TIMEOUT_S).kernels


def test_one_launch_per_reader_child_gives_what_ncu_report_reads(monkeypatch):
    report = KNOWN / "known_answer.ncu-rep"
    split = read_with(monkeypatch, report, 1)  # one launch per child: 15 children
    assert_equals_ncu_report(split, read_directly(report))
    monkeypatch.undo()
    whole = read_with(monkeypatch, report, 0)
    pd.testing.assert_frame_equal(split, whole, check_exact=True)


def test_cached_and_parallel_reads_give_what_ncu_report_reads(monkeypatch):
    reports = [KNOWN / "known_answer.ncu-rep", DATA / "nested_nvtx.ncu-rep.xz"]
    direct = [read_directly(KNOWN / "known_answer.ncu-rep")]
    parallel = [found for (found,) in read_paths(reports, cache=True, workers=2)]

    def refuse(*args, **kwargs):
        raise AssertionError("the report was read again, not taken from the cache")

    monkeypatch.setattr(ncu_rep, "fetch_ncu_rep", refuse)
    monkeypatch.setattr(ingest, "read_reports", refuse)
    cached = [found for (found,) in read_paths(reports, cache=True, workers=2)]
    assert_equals_ncu_report(parallel[0].kernels, direct[0])
    assert_equals_ncu_report(cached[0].kernels, direct[0])
    for fresh, hit in zip(parallel, cached):
        pd.testing.assert_frame_equal(hit.kernels, fresh.kernels, check_exact=True)


def test_parts_merge_as_if_read_in_one_go():
    def part(launches, columns):
        return {
            "launches": launches,
            "identity": {field: [f"{field}{i}" for i in range(launches)] for field in worker.IDENTITY_FIELDS},
            "metrics": list(columns),
            "units": [unit for unit, _ in columns.values()],
            "values": b"".join(array("d", values).tobytes() for _, values in columns.values()),
        }

    first = part(2, {"a": ("byte", [1.0, 2.0])})
    second = part(1, {"b": ("ns", [5.0]), "a": ("byte", [3.0])})
    merged = worker.merge([first, second], ("b", "c", "a"))
    assert merged["launches"] == 3
    assert merged["metrics"] == ["b", "a"] and merged["units"] == ["ns", "byte"]
    values = array("d")
    values.frombytes(merged["values"])
    assert all(math.isnan(v) for v in values[:2])  # b: absent from the first part's launches
    assert values[2:].tolist() == [5.0, 1.0, 2.0, 3.0]
    assert merged["identity"]["kernel_name"] == ["kernel_name0", "kernel_name1", "kernel_name0"]


def _run_fake_worker(tmp_path: Path, code: str, timeout_s: float = 60) -> None:
    report = tmp_path / "r.ncu-rep"
    report.write_bytes(b"NVR\0")
    with EntryFile(None, "k") as entry:
        ncu_rep._run_worker([sys.executable, "-c", code], report, report, entry, timeout_s)


def test_a_reader_child_that_hangs_is_stopped_with_its_parent(tmp_path):
    child_pid = tmp_path / "child.pid"
    code = (
        "import os, pathlib, time; from rooftui.ingest.forked import Child; "
        f"child = Child(lambda: (pathlib.Path({str(child_pid)!r}).write_text(str(os.getpid())), "
        "time.sleep(60))); child.read_some()"
    )
    with pytest.raises(InputError, match="took more than 2 s"):
        _run_fake_worker(tmp_path, code, timeout_s=2)
    pid = int(child_pid.read_text())
    for _ in range(50):  # the kernel kills it as its parent dies; its reaping may lag
        if not _running(pid):
            break
        time.sleep(0.1)
    assert not _running(pid)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


# Reads one report with the worker's children, once per case of a JSON list (argv[2]),
# in one process: each case is {"child_bytes", "min_launches", "at_once", "here_first",
# "growth": "1 MB a look" or "", "one_core", "thread"}. Prints, per case: per child in the
# order forked, the launches it was given and how many it read; the document's launch
# count; whether the document is the one a single process reads (read once, last: a
# process that has disassembled code must not fork again); and how many launches have
# register moves. A case that starts a thread or pins the process to one core keeps it
# for the cases after it: give those last.
COUNT_CHILDREN = """
import json, os, sys, threading, time
from rooftui.ingest import _ncu_rep_worker as worker
children = []
real_init, real_result = worker.Child.__init__, worker.Child.result
real_resident_bytes = worker.resident_bytes

def init(self, work):
    real_init(self, work)
    self.given = [work.args[1], work.args[2]]
    children.append(self)

def result(self):
    part, learned, fits = real_result(self)
    self.given.append(part["launches"])
    return part, learned, fits

worker.Child.__init__, worker.Child.result = init, result
documents, found = [], []
for case in json.loads(sys.argv[2]):
    children.clear()
    if case["growth"] == "1 MB a look":  # each process seems to grow by 1 MB whenever it looks
        looks = iter(range(1 << 30))
        worker.resident_bytes = lambda: next(looks) << 20
    if case["one_core"]:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if case["thread"]:
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
    documents.append(worker.read(sys.argv[1], case["child_bytes"], case["min_launches"], case["at_once"],
                                 case["here_first"]))
    worker.resident_bytes = real_resident_bytes
    found.append([child.given for child in children])
alone = worker.read(sys.argv[1], 0)
print(json.dumps([[given, document["launches"], document == alone,
                   sum(1 for moves in document["identity"]["register_moves"] if moves)]
                  for given, document in zip(found, documents)]))
"""


def case(
    child_bytes: int,
    min_launches: int,
    at_once: int = 1,
    here_first: bool = False,
    growth: str = "",
    one_core: bool = False,
    thread: bool = False,
) -> dict:
    """One way of reading a report in children (``read_in_children``)."""
    return {
        "child_bytes": child_bytes,
        "min_launches": min_launches,
        "at_once": at_once,
        "here_first": here_first,
        "growth": growth,
        "one_core": one_core,
        "thread": thread,
    }


def read_in_children(cases: list[dict], report: Path = KNOWN / "known_answer.ncu-rep") -> list[tuple]:
    """Per case: (children as [first launch, end, launches read], launches, whether the
    document is a one-process read's, launches with register moves), one process for all."""
    done = subprocess.run(
        [sys.executable, "-c", COUNT_CHILDREN, str(report), json.dumps(cases)],
        capture_output=True,
        text=True,
        check=True,
        env=ncu_rep._worker_env(),
    )
    return [tuple(found) for found in json.loads(done.stdout)]


needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux's /proc")


@needs_proc
def test_reader_children_split_the_launches_and_read_what_one_process_reads():
    """Every way the worker splits known_answer.ncu-rep (15 launches) over its children, one
    check each, read in one process (each case's own test before 2026-12-02)."""
    read = read_in_children(
        [
            case(1, 1),  # each child stops once it has grown by its share: one launch each
            case(1, 4),  # however much a child grew, it reads its minimum first
            case(1 << 30, 1),  # a child that never grows past its share reads everything
            case(1, 4, at_once=2),
            case(1 << 30, 1, at_once=2, here_first=True),
            # 4 MB for 15 launches, each look at the memory 1 MB more
            case(4 << 20, 1, at_once=2, here_first=True, growth="1 MB a look"),
            case(1, 1, at_once=32, one_core=True),  # one core, 32 children asked for
            case(1, 1, thread=True),  # forking a process with threads could deadlock: none forked
        ]
    )
    one_each, minimum, everything, at_once, fits, read_on, many, threaded = read
    for number, found in enumerate(read):
        assert found[1:3] == (15, True), f"case {number}: {found}"
    assert one_each[0] == [[i, 15, 1] if i == 0 else [i, i + 1, 1] for i in range(15)]
    assert minimum[0] == [[0, 15, 4], [4, 8, 4], [8, 12, 4], [12, 15, 3]]
    assert everything[0] == [[0, 15, 15]]
    assert threaded[0] == []
    # children at once read every launch once, merged in launch order: two at first, over
    # halves of the report; each stops at its minimum, and the rest of each half goes to
    # later children in pieces of that size
    assert at_once[0][:2] == [[0, 8, 4], [8, 15, 4]]
    pieces = sorted((start, start + count) for start, _, count in at_once[0])
    assert [start for start, _ in pieces] == [0] + [stop for _, stop in pieces[:-1]]  # no gap, no overlap
    assert pieces[-1][1] == 15
    # a report whose launches fit the budget is read without forking
    assert fits[0] == []
    # children read on from the launches read before forking: the second launch read
    # here has taken half the budget (past the quarter allowed before 8 launches), so two
    # children share the other 2 MB from launch 2 on, and each stops at its first
    assert read_on[0][:2] == [[2, 9, 1], [9, 15, 1]]
    pieces = sorted((start, start + count) for start, _, count in read_on[0])
    assert [start for start, _ in pieces[1:]] == [stop for _, stop in pieces[:-1]]
    assert pieces[0][0] == 2 and pieces[-1][1] == 15
    # more children at once than launches or cores: at most 4 at once, 15 children
    assert len(many[0]) == 15


@needs_proc
def test_a_report_with_instruction_level_data_reads_the_same_register_moves_in_children(tmp_path):
    report = tmp_path / "sourcecounters.ncu-rep"
    with open_binary(SOURCE_COUNTERS) as packed:
        report.write_bytes(packed.read())
    one_at_a_time, at_once = read_in_children(
        [
            # each child that disassembles pays the disassembler's setup (0.35-0.7 s of CPU
            # here, so two children a case, not more): more at once cost memory, so one
            # child at a time however many were asked for; 8 launches each, the second
            # reading the 7 left and the moves the first found (one launch each:
            # test_one_launch_per_reader_child_...)
            case(1, 8, at_once=3, here_first=True),
            # forced to 2 at once (children only: nothing read here first), half each
            # (children that start after others ended: case 3 of the test above)
            case(1, 8, at_once=2),
        ],
        report=report,
    )
    forked, launches, same, with_moves = one_at_a_time
    assert forked[0][:2] == [0, launches]  # the first child is given every launch, not a third
    assert [count for _, _, count in forked] == [8, 7]  # one child after another
    assert same and with_moves > 0  # the report has moves to count, and every child counts them
    forked, launches, same, with_moves = at_once
    assert forked == [[0, 8, 8], [8, 15, 7]]  # two at once, half each
    assert same and with_moves > 0


def test_what_a_child_left_of_its_launches_is_read_next_joined_to_what_follows():
    pending = [(40, 50), (70, 90)]
    worker._put_back(pending, 60, 70)
    assert pending == [(40, 50), (60, 90)]
    worker._put_back(pending, 10, 20)
    assert pending == [(10, 20), (40, 50), (60, 90)]
    worker._put_back(pending, 52, 55)
    assert pending == [(10, 20), (40, 50), (52, 55), (60, 90)]


# A worker whose second child (the one given launch 8 on) fails as argv[1] says, while
# the first sleeps; it writes the first child's pid to argv[2].
FAILING_CHILD = """
import os, pathlib, signal, sys, time
from rooftui.ingest import _ncu_rep_worker as w
real = w._read_launches
how, pid_file = sys.argv.pop(1), pathlib.Path(sys.argv.pop(1))

def read_launches(launches, start, *rest):
    if start == 0:
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
    while not pid_file.exists():
        time.sleep(0.01)
    if how == "raises":
        raise ZeroDivisionError("division by zero")
    os.kill(os.getpid(), signal.SIGSEGV)

w._read_launches = read_launches
sys.exit(w.main(["--child-bytes", "1", "--min-launches", "1", "--children", "2", "--children-only",
                 *sys.argv[1:]]))
"""


@needs_proc
@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("raises", "reader failed on it (ZeroDivisionError: division by zero)"),
        ("is killed", "crashed with SIGSEGV) — re-copy"),
    ],
)
def test_a_failing_child_stops_the_others_and_is_one_line(tmp_path, how, message):
    report = tmp_path / "r.ncu-rep"
    shutil.copy(KNOWN / "known_answer.ncu-rep", report)
    sleeping = tmp_path / "sleeping.pid"
    with EntryFile(None, "k") as entry, pytest.raises(InputError) as caught:  # the timeout: the
        # sleeping child was waited for
        command = [sys.executable, "-c", FAILING_CHILD, how, str(sleeping), "--entry-fd", str(entry.fileno())]
        ncu_rep._run_worker([*command, "--key", "k"], report, report, entry, timeout_s=30)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert not _running(int(sleeping.read_text()))  # stopped and reaped, not left behind


def test_a_report_its_record_check_refuses_stops_the_reader_started_beside_it(monkeypatch, tmp_path):
    half = tmp_path / "half.ncu-rep"
    data = (KNOWN / "known_answer.ncu-rep").read_bytes()
    half.write_bytes(data[: len(data) // 2])
    started = []
    real_start = ncu_rep._start_worker
    monkeypatch.setattr(
        ncu_rep, "_start_worker", lambda *args: started.append(real_start(*args)) or started[-1]
    )
    with pytest.raises(InputError, match=r"the report is truncated \(.* bytes; it ends inside"):
        ncu_rep.read_ncu_rep(half)
    assert len(started) == 1 and started[0].returncode is not None  # started, then stopped and reaped
