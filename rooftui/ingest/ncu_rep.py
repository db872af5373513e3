"""Nsight Compute ``.ncu-rep`` reports (optionally ``.xz``/``.gz``/``.bz2`` compressed).

NVIDIA's ``ncu_report`` package (PyPI ``ncu-report``; no Nsight Compute install
needed) does the reading, in a child process (``_ncu_rep_worker``): it is native
code, and a damaged report must cost the user a one-line error, not the process.

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
import io
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.errors import InputError, reading
from rooftui.ingest import units
from rooftui.ingest._ncu_rep_worker import EXIT_NO_NCU_REPORT, IDENTITY_FIELDS
from rooftui.ingest.files import check_readable, compression
from rooftui.ingest.ncu_rep_records import RecordChain, checked_report

if TYPE_CHECKING:
    from rooftui.ingest.report import RawReport
from rooftui.model.metrics import REGISTER_MOVES

WORKER = [sys.executable, "-m", "rooftui.ingest._ncu_rep_worker"]
_RERUN = "re-copy the report or re-run ncu"


def read_ncu_rep(
    path: str | Path, *, timeout_s: float | None = None, children: int | None = None
) -> RawReport:
    """Read one ``.ncu-rep`` (or ``.ncu-rep.xz``/``.gz``/``.bz2``) into a RawReport.

    ``timeout_s`` bounds the reader (default: 60 s plus 1 s per MB of report);
    ``children``: reader processes at once (default: the usable cores; see
    ``_ncu_rep_worker``). Raises InputError for a missing, empty, truncated, corrupt or
    kernel-less report.
    """
    return to_raw_report(fetch_ncu_rep(path, timeout_s=timeout_s, children=children))


@dataclass
class Fetched:
    """What the reader child sent for one report, not yet a frame."""

    path: Path
    document: dict
    has_signature: bool
    results: int | None = None  # profiled launches the report's blocks hold; None: not known


def fetch_ncu_rep(
    path: str | Path, *, timeout_s: float | None = None, children: int | None = None
) -> Fetched:
    """The part of ``read_ncu_rep`` that needs no pandas: checks, decompression and the
    reader child. It can start before the caller has imported pandas (about 0.3 s),
    so that the child reads meanwhile (``rooftui.ingest.parallel.start_reading``)."""
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
    command = [*WORKER, "--children", str(children)]
    with reading(path):  # one-line errors
        if compression(path) is None:
            return _fetch_plain(path, command, timeout_s)
        with checked_report(path) as (report, chain):  # decompressed and checked in one pass
            with _READER_MEMORY.reserve(_reader_memory(report.stat().st_size)):
                document = _run_worker(command, report, path, _timeout(report, timeout_s))
    return Fetched(path, document, bool(chain.has_signature), chain.results)


def _fetch_plain(path: Path, command: list[str], timeout_s: float | None) -> Fetched:
    """An uncompressed report: the reader starts at once and its record chain is
    checked while it reads (``ncu_rep_records.checked_report`` checks first; the check
    takes ~0.04 s for 150 MB, and while the caller imports pandas, twice that). A
    report the check refuses gets the check's error, as it would have first."""
    with _READER_MEMORY.reserve(_reader_memory(path.stat().st_size)):
        worker = _start_worker(command, path)
        try:
            chain = RecordChain(path)
            chain.walk(path)
            chain.finish()
        except BaseException:
            _stop(worker)
            raise
        document = _finish_worker(worker, path, _timeout(path, timeout_s))
    return Fetched(path, document, bool(chain.has_signature), chain.results)


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


def _run_worker(command: Sequence[str], report: Path, path: Path, timeout_s: float) -> dict:
    """Run the reader on ``report`` in a child process; its document, or InputError."""
    return _finish_worker(_start_worker(command, report), path, timeout_s)


def _start_worker(command: Sequence[str], report: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*command, str(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_worker_env()
    )


def _stop(worker: subprocess.Popen) -> None:
    worker.kill()
    worker.communicate()


def _finish_worker(worker: subprocess.Popen, path: Path, timeout_s: float) -> dict:
    """The document the reader started by ``_start_worker`` sends, or InputError."""
    try:
        stdout, stderr_bytes = worker.communicate(timeout=timeout_s)
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
    if worker.returncode == EXIT_NO_NCU_REPORT:
        raise InputError(
            f"cannot load the ncu_report package ({_last_line(stderr)})",
            path,
            "reinstall it: pip install --force-reinstall ncu-report",
        )
    if worker.returncode != 0:
        raise InputError(
            f"the ncu_report reader failed on it ({_last_line(stderr)})",
            path,
            "the report is probably corrupt; " + _RERUN,
        )
    if "Can't parse message" in stderr:  # protobuf skipped a damaged record and went on
        raise InputError(f"the report is corrupt (ncu_report: {_last_line(stderr)})", path, _RERUN)
    try:
        document = _unpickle_builtins(stdout)
        _check_document(document)
    except (pickle.UnpicklingError, ValueError, KeyError, TypeError, EOFError) as err:
        raise InputError(
            f"the ncu_report reader gave unreadable output ({_one_line(err)})",
            path,
            "the report is probably corrupt; " + _RERUN,
        ) from None
    return document


class _BuiltinsOnly(pickle.Unpickler):
    """The worker sends dicts, lists, str, int, float, bytes and None; nothing that
    names a class or a function is accepted."""

    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"unexpected type {module}.{name}")


def _unpickle_builtins(data: bytes) -> dict:
    return _BuiltinsOnly(io.BytesIO(data)).load()


def _check_document(document: object) -> None:
    if not isinstance(document, dict):
        raise ValueError("not a dict")
    launches, identity = document["launches"], document["identity"]
    metrics, unit_of, values = document["metrics"], document["units"], document["values"]
    if not (isinstance(launches, int) and isinstance(values, bytes) and isinstance(identity, dict)):
        raise TypeError("wrong types")
    if any(len(identity[name]) != launches for name in IDENTITY_FIELDS):
        raise ValueError("identity columns of the wrong length")
    if len(unit_of) != len(metrics) or len(values) != 8 * launches * len(metrics):
        raise ValueError("metric columns of the wrong length")


def _worker_env() -> dict[str, str]:
    # The child must import this rooftui even when it runs from a source checkout.
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def to_raw_report(fetched: Fetched) -> RawReport:
    """The RawReport of what ``fetch_ncu_rep`` fetched; InputError if it holds no launch."""
    import numpy as np
    import pandas as pd

    from rooftui.ingest.report import RawReport, failed_launch_notes

    path, document = fetched.path, fetched.document
    launches, identity = document["launches"], document["identity"]
    if not launches:
        if fetched.has_signature:
            raise InputError(
                "the report holds no profiled kernels (cut short before its first "
                "result, or ncu profiled none)",
                path,
                "if it was copied, copy it whole; else check ncu's filters "
                "(-k, --launch-count, --profile-from-start) and re-run it",
            )
        raise InputError(
            "not an Nsight Compute report (no kernels could be read from it)",
            path,
            "pass an .ncu-rep written by `ncu -o`, or its CSV export",
        )
    names = document["metrics"]
    values = np.frombuffer(document["values"], dtype=np.float64).reshape(len(names), launches)
    _check_every_result_read(fetched, values)
    kernels = pd.DataFrame(
        {
            "ncu_id": np.arange(launches, dtype=np.int64),  # ncu's IDs: launch order from 0
            "kernel_name": identity["kernel_name"],
            "process_id": np.full(launches, np.nan),  # ncu_report does not expose it
            "device_index": _integers(identity["device_index"]),
            "device": identity["device"],
            "cc": identity["cc"],
            "grid": identity["grid"],
            "block": identity["block"],
            "stream": _integers(identity["stream"]),
            "nvtx": identity["nvtx"],
            REGISTER_MOVES: np.array(identity["register_moves"], dtype=np.float64),  # None -> NaN
        }
    )

    notes: list[str] = []
    metrics = {}
    for name, unit, column in zip(names, document["units"], values):
        f = units.factor(unit)
        if f is None:
            notes.append(f"{name}: unknown unit {unit!r}, values taken as stored")
            f = 1.0
        metrics[name] = column * f if f != 1.0 else column.copy()
    kernels = pd.concat([kernels, pd.DataFrame(metrics, index=kernels.index)], axis=1)
    notes += failed_launch_notes(kernels, path)
    return RawReport(str(path), "ncu-rep", kernels, True, notes)


def _check_every_result_read(fetched: Fetched, values) -> None:
    """Refuse a report with a result ncu_report could not parse: it skips it, or gives a
    launch with no name and no metric, which would otherwise pass for a 0 s kernel."""
    import numpy as np

    launches, names = fetched.document["launches"], fetched.document["identity"]["kernel_name"]
    empty = np.isnan(values).all(axis=0) if len(values) else np.ones(launches, dtype=bool)
    damaged = [i for i, name in enumerate(names) if name is None and empty[i]]
    if damaged:
        raise InputError(
            f"the report is corrupt: the record of kernel ID {damaged[0]} "
            f"({len(damaged)} of {launches} results) cannot be read (ncu_report finds "
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


def _integers(values: list):
    """An int64 array, or pandas' nullable Int64 where some launch lacks the value."""
    import numpy as np
    import pandas as pd

    if any(v is None for v in values):
        return pd.array(values, dtype="Int64")
    return np.array(values, dtype=np.int64)


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
