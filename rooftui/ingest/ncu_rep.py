"""Nsight Compute ``.ncu-rep`` reports (optionally ``.xz``/``.gz``/``.bz2`` compressed).

NVIDIA's ``ncu_report`` package (PyPI ``ncu-report``; no Nsight Compute install
needed) does the reading, in a child process (``_ncu_rep_worker``): it is native
code, and a damaged report must cost the user a one-line error, not the process.

The child writes what it read as a report-cache entry (``rooftui.ingest.cache_entry``)
into a file this process opened: under the cache folder, or an anonymous temporary
file where there is no cache. This process decodes it exactly as it decodes an entry
found in the cache (``cache.decode_report``), checks it, and only then moves it into
the cache (``cache.EntryFile.install``): a cold read is "make sure an entry exists",
then the warm read's decoding.

Two things ``ncu_report`` does not do, done here:
- a report cut short (a partial copy, a killed ncu) loads without complaint, with
  the kernels before the cut only; ``ncu_rep_records.checked_report`` walks the
  file's records (while decompressing, if compressed) and refuses it;
- it has no process ID, so ``process_id`` is NaN.

``kernel_name`` is ``ncu_report``'s demangled name. For plain C functions and
simple templates it is the CSV's "Kernel Name"; for deeper C++ names ncu's CSV
export prints a shortened form instead (``at::native::foo<(int)8>`` there reads
``at::foo<8>``), which no public API produces.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.errors import InputError, one_line, reading
from rooftui.ingest._ncu_rep_worker import EXIT_ENTRY_UNWRITABLE, EXIT_NO_NCU_REPORT
from rooftui.ingest.cache import EntryFile, ReportCache, decode_report
from rooftui.ingest.files import check_readable, compression
from rooftui.ingest.ncu_rep_records import RecordChain, checked_report
from rooftui.model.metrics import REGISTER_MOVES

if TYPE_CHECKING:
    import pandas as pd

    from rooftui.ingest.report import RawReport

WORKER = [sys.executable, "-m", "rooftui.ingest._ncu_rep_worker"]
_RERUN = "re-copy the report or re-run ncu"
# Python's own exit code for an uncaught exception. The reader's ``main`` lets none out
# (its failures exit 3, 4 or 5), so 1 means it never ran: its imports failed.
EXIT_DID_NOT_START = 1


def read_ncu_rep(
    path: str | Path,
    *,
    timeout_s: float | None = None,
    children: int | None = None,
    store: ReportCache | None = None,
) -> RawReport:
    """Read one ``.ncu-rep`` (or ``.ncu-rep.xz``/``.gz``/``.bz2``) into a RawReport.

    ``timeout_s`` bounds the reader (default: 60 s plus 1 s per MB of report);
    ``children``: reader processes at once (default: the usable cores; see
    ``_ncu_rep_worker``); ``store``: the cache the report's entry goes into (None: no
    cache). Raises InputError for a missing, empty, truncated, corrupt or kernel-less
    report.
    """
    key = store.key(path) if store is not None else None
    return to_raw_report(fetch_ncu_rep(path, timeout_s=timeout_s, children=children, store=store, key=key))


@dataclass
class Fetched:
    """The entry the reader child wrote for one report, not decoded yet."""

    path: Path
    entry: EntryFile  # open until ``to_raw_report`` (or ``close``)
    has_signature: bool
    results: int | None = None  # profiled launches the report's blocks hold; None: not known

    def close(self) -> None:
        """Delete the entry unread (a read given up)."""
        self.entry.close()


def fetch_ncu_rep(
    path: str | Path,
    *,
    timeout_s: float | None = None,
    children: int | None = None,
    store: ReportCache | None = None,
    key: str | None = None,
) -> Fetched:
    """The part of ``read_ncu_rep`` that needs no pandas: checks, decompression and the
    reader child, which writes the report's entry. It can start before the caller has
    imported pandas (about 0.3 s), so that the child reads meanwhile
    (``rooftui.ingest.parallel.start_reading``). ``key``: the report's entry name in
    ``store``, taken before reading (an entry of a report that changed meanwhile is not
    kept); without both, the entry goes to an anonymous temporary file."""
    if children is None:
        from rooftui.ingest.parallel import usable_cores

        children = usable_cores()
    path = Path(path)
    check_readable(path)
    if importlib.util.find_spec("ncu_report") is None:
        raise InputError(
            "cannot read .ncu-rep reports: the ncu-report package is missing",
            path,
            "pip install ncu-report, or export the report to CSV with "
            "`ncu --import REPORT.ncu-rep --csv --page raw`",
        )
    if store is None or key is None:
        store, key = None, "uncached-" + secrets.token_hex(16)  # this read's entry, no other
    try:
        return _fetch_into(EntryFile(store, key), path, children, timeout_s)
    except EntryUnwritable:
        if store is None:
            raise
    # The cache's disk is full or over its quota: the cache must cost no error, so the
    # report is read again into a private temporary file.
    return _fetch_into(EntryFile(None, key), path, children, timeout_s)


class EntryUnwritable(InputError):
    """The reader read the report but could not write its entry (a full disk)."""


class ReaderDidNotStart(InputError):
    """rooftui's own reader process could not start: the report was never read, so
    nothing is said about it. An InputError still, so that a caller for which an
    unreadable report means "no data" (``profile.deduplicated.read_register_moves``) goes
    on as before."""

    def __init__(self, interpreter: str, reason: str, path: Path) -> None:
        super().__init__(
            f"rooftui's .ncu-rep reader could not start ({interpreter}: {reason}); "
            "the report itself was not read",
            path,
            f"let the user running rooftui run {interpreter} and read its environment "
            "(check the virtual environment's permissions), or install rooftui where that user can",
        )


def _fetch_into(entry: EntryFile, path: Path, children: int, timeout_s: float | None) -> Fetched:
    """Run the reader on ``path``, writing ``entry``; Fetched, or InputError."""
    command = [*WORKER, "--children", str(children), "--entry-fd", str(entry.fileno()), "--key", entry.key]
    try:
        with reading(path):  # one-line errors
            if compression(path) is None:
                chain = _fetch_plain(path, command, entry, timeout_s)
            else:
                with checked_report(path) as (report, chain):  # decompressed and checked in one pass
                    with _READER_MEMORY.reserve(_reader_memory(report.stat().st_size)):
                        _run_worker(command, report, path, entry, _timeout(report, timeout_s))
    except BaseException:
        entry.close()
        raise
    return Fetched(path, entry, bool(chain.has_signature), chain.results)


def _fetch_plain(path: Path, command: list[str], entry: EntryFile, timeout_s: float | None) -> RecordChain:
    """An uncompressed report: the reader starts at once and its record chain is
    checked while it reads (``ncu_rep_records.checked_report`` checks first; the check
    takes ~0.04 s for 150 MB, and while the caller imports pandas, twice that). A
    report the check refuses gets the check's error, as it would have first."""
    with _READER_MEMORY.reserve(_reader_memory(path.stat().st_size)):
        worker = _start_worker(command, path, entry)
        try:
            chain = RecordChain(path)
            chain.walk(path)
            chain.finish()
        except BaseException:
            _stop(worker)
            raise
        _finish_worker(worker, path, _timeout(path, timeout_s))
    return chain


def _timeout(report: Path, timeout_s: float | None) -> float:
    return 60.0 + report.stat().st_size / 1e6 if timeout_s is None else timeout_s


def _reader_memory(report_bytes: int) -> int:
    """What one reader may take at its peak: ncu_report's setup (~115 MB), what it
    keeps of the loaded report (~0.1 byte per byte), the growth its processes share
    (``_ncu_rep_worker.CHILD_GROWTH_BYTES``, 64 MB, however many children read at once)
    and the interpreter; measured 230 MB for the 151 MB DeepLabv3 AMP report (PSS,
    benchmarks/_common.tree_memory)."""
    return 250_000_000 + report_bytes // 4


class MemoryGate:
    """Holds a reader back while the readers running would leave it too little memory.

    The budget is 80% of the memory the system says is available, taken whenever no
    reader runs; one reader always runs, however large its report.
    """

    def __init__(self, available: Callable[[], float] | None = None) -> None:
        self._available = available or _available_memory
        self._changed = threading.Condition()
        self._running = 0
        self._reserved = 0
        self._budget = 0.0

    @contextmanager
    def reserve(self, nbytes: int) -> Iterator[None]:
        with self._changed:
            while self._running and self._reserved + nbytes > self._budget:
                self._changed.wait()
            if not self._running:
                self._budget = 0.8 * self._available()
            self._running += 1
            self._reserved += nbytes
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._reserved -= nbytes
                self._changed.notify_all()


def _available_memory() -> float:
    """MemAvailable from /proc/meminfo, in bytes; unbounded where there is none."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return float("inf")


_READER_MEMORY = MemoryGate()


def _run_worker(command: Sequence[str], report: Path, path: Path, entry: EntryFile, timeout_s: float) -> None:
    """Run the reader on ``report`` in a child process, which writes ``entry``; InputError
    if it fails."""
    _finish_worker(_start_worker(command, report, entry, path), path, timeout_s)


def _start_worker(
    command: Sequence[str], report: Path, entry: EntryFile, shown: Path | None = None
) -> subprocess.Popen:
    """The reader on ``report``; ``shown``: the path the user gave (``report`` may be its
    decompressed copy)."""
    try:
        return subprocess.Popen(
            [*command, str(report)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=_worker_env(),
            pass_fds=(entry.fileno(),),
        )
    except OSError as err:  # the interpreter, not the report: no permission, gone, not a program
        raise ReaderDidNotStart(command[0], err.strerror or one_line(err), shown or report) from None


def _stop(worker: subprocess.Popen) -> None:
    worker.kill()
    worker.communicate()


def _finish_worker(worker: subprocess.Popen, path: Path, timeout_s: float) -> None:
    """Wait for the reader started by ``_start_worker``; InputError if it failed."""
    try:
        _, stderr_bytes = worker.communicate(timeout=timeout_s)
    except BaseException as err:
        _stop(worker)
        if not isinstance(err, subprocess.TimeoutExpired):
            raise
        raise InputError(
            f"the ncu_report reader took more than {timeout_s:.0f} s",
            path,
            "the report may be corrupt; " + _RERUN + ", or export it to CSV",
        ) from None
    stderr = stderr_bytes.decode("utf-8", errors="replace").strip()
    if worker.returncode < 0:
        raise InputError(
            f"the report is truncated or corrupt (the ncu_report reader crashed "
            f"with {_signal_name(-worker.returncode)})",
            path,
            _RERUN,
        )
    if worker.returncode == EXIT_DID_NOT_START:
        interpreter = worker.args[0] if isinstance(worker.args, list) else worker.args
        raise ReaderDidNotStart(str(interpreter), _last_line(stderr), path)
    if worker.returncode == EXIT_NO_NCU_REPORT:
        raise InputError(
            f"cannot load the ncu_report package ({_last_line(stderr)})",
            path,
            "reinstall it: pip install --force-reinstall ncu-report",
        )
    if worker.returncode == EXIT_ENTRY_UNWRITABLE:
        raise EntryUnwritable(
            f"no room to write the report as read ({_last_line(stderr)})",
            path,
            "free space in the temporary folder (TMPDIR) or the cache's (XDG_CACHE_HOME)",
        )
    if worker.returncode != 0:
        raise InputError(
            f"the ncu_report reader failed on it ({_last_line(stderr)})",
            path,
            "the report is probably corrupt; " + _RERUN,
        )
    if "Can't parse message" in stderr:  # protobuf skipped a damaged record and went on
        raise InputError(f"the report is corrupt (ncu_report: {_last_line(stderr)})", path, _RERUN)


def _worker_env() -> dict[str, str]:
    # The child must import this rooftui even when it runs from a source checkout.
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def to_raw_report(fetched: Fetched) -> RawReport:
    """The RawReport in the entry ``fetch_ncu_rep`` had written: decoded as any cache
    entry is (``cache.decode_report``), checked, and only then moved into the cache;
    InputError if it holds no launch or the reader missed some."""
    path = fetched.path
    with fetched.entry:
        try:
            report = decode_report(fetched.entry.read(), fetched.entry.key)
        except (ValueError, TypeError, OSError) as err:
            raise InputError(
                f"the ncu_report reader gave unreadable output ({_one_line(err)})",
                path,
                "the report is probably corrupt; " + _RERUN,
            ) from None
        _check_every_result_read(fetched, report.kernels)
        fetched.entry.install(path)
    report.path = str(path)
    return report


def _check_every_result_read(fetched: Fetched, kernels: pd.DataFrame) -> None:
    """Refuse a report with no launch, a result ncu_report could not parse (it skips it,
    or gives a launch with no name and no metric, which would otherwise pass for a 0 s
    kernel), or no launch that ncu measured."""
    from rooftui.ingest.report import IDENTITY_COLUMNS, every_launch_failed, failed_launches

    launches = len(kernels)
    if not launches:
        if fetched.has_signature:
            raise InputError(
                "the report holds no profiled kernels (cut short before its first "
                "result, or ncu profiled none)",
                fetched.path,
                "if it was copied, copy it whole; else check ncu's filters "
                "(-k, --launch-count, --profile-from-start) and re-run it",
            )
        raise InputError(
            "not an Nsight Compute report (no kernels could be read from it)",
            fetched.path,
            "pass an .ncu-rep written by `ncu -o`, or its CSV export",
        )
    metrics = [c for c in kernels.columns if c not in IDENTITY_COLUMNS and c != REGISTER_MOVES]
    damaged = kernels["kernel_name"].isna() & kernels[metrics].isna().all(axis=1)
    if damaged.any():
        raise InputError(
            f"the report is corrupt: the record of kernel ID {damaged.idxmax()} "
            f"({damaged.sum()} of {launches} results) cannot be read (ncu_report finds "
            "no name, time or counter in it; it is no 0 s kernel)",
            fetched.path,
            _RERUN,
        )
    if fetched.results is not None and fetched.results != launches:
        raise InputError(
            f"the report is corrupt: its blocks hold {fetched.results:,} results, "
            f"ncu_report read {launches:,}",
            fetched.path,
            _RERUN,
        )
    failed = failed_launches(kernels)
    if failed.all():
        first = kernels[failed].iloc[0]
        raise every_launch_failed(launches, int(first["ncu_id"]), first["kernel_name"], fetched.path)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


def _one_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
