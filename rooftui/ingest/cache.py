"""A cache of each report as read (its RawReport), so re-opening a report is instant.

Entries live in ``$XDG_CACHE_HOME/rooftui/reports`` (``~/.cache/rooftui/reports``),
one file per report, keyed by the report's resolved path, size, mtime and inode,
rooftui's version, a digest of the readers' code and of the metric list, and the
versions of pandas and ncu_report. What is cached is the report before any
formula or option is applied (the RawReport: launches x raw ncu metrics), so
options (--ceilings, --phase, --skip-invalid, ...) and formulas always act anew.

An entry that cannot be read back exactly (truncated, corrupt, another format, not a
regular file) is deleted where it can be and the report read again: the cache never
causes an error, nor a hang (a FIFO or a ``/dev/zero`` link in its place is not read),
and a cache folder that cannot be searched, written or named (a name over 255 bytes)
only means no cache. The cache is
capped (``MAX_BYTES``); the entries used longest ago go first.

An entry's bytes are ``rooftui.ingest.cache_entry``'s format. A CSV report is encoded
here (``put``); a ``.ncu-rep`` is written in that format by its reader child, into an
``EntryFile`` (``entry_file``), and installed by rename once the parent has decoded and
checked it (``rooftui.ingest.ncu_rep``): an entry under its name is always whole.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import tempfile
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rooftui import __version__
from rooftui.errors import InputError
from rooftui.ingest import cache_entry
from rooftui.ingest.cache_entry import Column, Entry, EntryError
from rooftui.ingest.files import open_binary
from rooftui.model.metrics import metrics_read

if TYPE_CHECKING:
    import numpy as np

    from rooftui.ingest.report import RawReport

MAGIC = cache_entry.MAGIC
FORMAT = 2  # bump when what an entry holds changes (its layout: cache_entry.MAGIC)
MAX_BYTES = 1 << 30  # the whole cache; oldest-used entries are deleted beyond it
SUFFIX = ".report"
WRITING = ".writing-"  # an entry being written: never read, deleted if left a day
_LEFT_BEHIND_S = 24 * 3600
DISABLE_ENV = "ROOFTUI_NO_CACHE"  # set (non-empty) to read every report afresh, like --no-cache

_NUMERIC = ("float64", "int64", "bool")  # pandas dtypes stored as their bytes


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/rooftui/reports``; ``~/.cache`` when unset or relative (XDG spec)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "rooftui" / "reports"


def enabled_by_default() -> bool:
    return not os.environ.get(DISABLE_ENV)


class ReportCache:
    """Get and put RawReports by the identity of the file they were read from."""

    def __init__(self, directory: Path | None = None, max_bytes: int | None = None) -> None:
        self.directory = directory or cache_dir()
        self.max_bytes = MAX_BYTES if max_bytes is None else max_bytes

    def key(self, path: str | Path) -> str | None:
        """The entry name of the report at ``path`` as it is now; None if it cannot be
        stat'ed or is a directory of runs (its files can change without its mtime)."""
        try:
            stat = os.stat(path)
        except OSError:
            return None
        if os.path.isdir(path):
            return None
        identity = [
            FORMAT,
            __version__,
            _code_digest(),
            str(Path(path).resolve()),
            stat.st_size,
            stat.st_mtime_ns,
            stat.st_ino,
        ]
        return hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:40]

    def has(self, key: str) -> bool:
        """Whether an entry named ``key`` exists (it may still turn out unreadable)."""
        return os.path.isfile(self.directory / (key + SUFFIX))  # False where it cannot be looked at

    def get(self, path: str | Path) -> RawReport | None:
        """The cached report for ``path`` (its ``path`` field set to ``path``), or None."""
        key = self.key(path)
        if key is None:
            return None
        entry = self.directory / (key + SUFFIX)
        try:  # regular files only, at most the cache's size: never a hang or an endless read
            with open_binary(entry, limit=self.max_bytes, compressed_as="") as handle:
                data = handle.read()
        except InputError:  # a FIFO, a device, a link to one, too large: not an entry
            _delete(entry)
            return None
        except OSError:
            return None
        try:
            report = decode_report(data, key)
            _check_shape(report)
        except Exception:  # noqa: BLE001 -- whatever a damaged entry makes decoding raise, the
            # answer is the same: it is no entry; read the report anew (the module's contract)
            _delete(entry)
            return None
        report.path = str(path)
        try:
            os.utime(entry)  # used now: the last to be evicted
        except OSError:
            pass
        return report

    def put(self, path: str | Path, report: RawReport, key: str | None) -> None:
        """Store ``report``, read from ``path`` while it had entry name ``key``; skipped
        quietly when the file changed since, the report has a column the layout cannot
        hold exactly, or the cache directory cannot be written."""
        if key is None or key != self.key(path):
            return
        try:
            entry = entry_of_report(report, key)
        except _Uncacheable:
            return
        if entry.size() > self.max_bytes:
            return
        with EntryFile(self, key) as target:
            try:
                entry.write(target.file)
                target.file.flush()
            except OSError:
                return
            target.install(path)

    def evict(self) -> None:
        """Delete the entries used longest ago until the cache fits in ``max_bytes``."""
        entries = []
        try:
            names = os.listdir(self.directory)
        except OSError:  # gone, or cannot be searched: nothing to evict
            return
        for name in names:
            if name.startswith(WRITING):
                _delete_if_left_behind(self.directory / name)
            if not name.endswith(SUFFIX):
                continue
            entry = self.directory / name
            try:
                stat = entry.stat()
            except OSError:
                continue
            entries.append((stat.st_mtime_ns, stat.st_size, entry))
        total = sum(size for _, size, _ in entries)
        for _, size, entry in sorted(entries, key=lambda e: e[0]):
            if total <= self.max_bytes:
                break
            if _delete(entry):  # one that cannot be deleted (read-only cache) stays counted
                total -= size


def _delete(entry: Path) -> bool:
    """Delete a cache entry; False where it cannot be (a read-only cache, a folder)."""
    try:
        entry.unlink(missing_ok=True)
    except OSError:
        return False
    return True


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """What else decides a RawReport: the readers' code, the metric list, and the
    installed pandas, numpy and ncu_report (their files' identity: no import needed)."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    digest.update("\n".join(metrics_read()).encode())
    for library in ("pandas", "numpy", "ncu_report"):
        spec = importlib.util.find_spec(library)
        if spec is not None and spec.origin:
            stat = os.stat(spec.origin)
            digest.update(f"{spec.origin} {stat.st_size} {stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def _delete_if_left_behind(temporary: Path) -> None:
    """Delete an entry being written that nobody has touched for a day: its writer was
    killed before it could delete it."""
    try:
        if time.time() - temporary.stat().st_mtime > _LEFT_BEHIND_S:
            temporary.unlink()
    except OSError:
        pass


class EntryFile:
    """A file one entry is written into, by this process or by a reader child it passes
    ``fileno()`` to: under the cache folder, named so that no reader takes it for an
    entry, and renamed into place by ``install`` once its report was decoded and checked;
    an anonymous temporary file where there is no cache or its folder cannot be written.
    Leaving the ``with`` block deletes whatever was not installed."""

    def __init__(self, store: ReportCache | None, key: str) -> None:
        self.store, self.key = store, key
        self._temporary: Path | None = None
        self.file: IO[bytes]
        if store is not None:
            try:
                store.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
                handle, name = tempfile.mkstemp(dir=store.directory, prefix=WRITING)
                self.file, self._temporary = os.fdopen(handle, "w+b"), Path(name)
                return
            except OSError:  # cannot be made, named or written: no cache for this report
                pass
        self.file = tempfile.TemporaryFile(prefix="rooftui-entry-")

    def __enter__(self) -> EntryFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file, deleting it unless it was installed."""
        self.file.close()
        if self._temporary is not None:
            self._temporary.unlink(missing_ok=True)
            self._temporary = None

    def fileno(self) -> int:
        return self.file.fileno()

    def read(self) -> bytes:
        """The bytes written, from the start (a child wrote through its own descriptor)."""
        self.file.seek(0)
        return self.file.read()

    def install(self, path: str | Path) -> None:
        """Make the entry the cache's entry for ``path``, by one rename: skipped where there
        is no cache, ``path`` changed since its key was taken, or the entry is over the cap."""
        store, temporary = self.store, self._temporary
        if store is None or temporary is None or self.key != store.key(path):
            return
        try:
            if os.fstat(self.file.fileno()).st_size > store.max_bytes:
                return
            os.replace(temporary, store.directory / (self.key + SUFFIX))
        except OSError:
            return
        self._temporary = None
        store.evict()


class _Uncacheable(Exception):
    """A report with a column the entry layout cannot give back exactly."""


def entry_of_report(report: RawReport, key: str) -> Entry:
    """``report`` as an entry made for ``key``; _Uncacheable where a column cannot be
    given back exactly (``report_of_entry``)."""
    import numpy as np
    import pandas as pd

    frame = report.kernels
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0 or frame.index.step != 1:
        raise _Uncacheable("index")
    if (
        frame.columns.has_duplicates
        or not all(isinstance(c, str) for c in frame.columns)
        or not len(frame.columns)
    ):
        raise _Uncacheable("column names")
    columns = []
    for name in frame.columns:
        series = frame[name]
        dtype = str(series.dtype)
        if dtype in _NUMERIC:
            little = np.dtype(dtype).newbyteorder("<")
            columns.append(
                Column(name, dtype, np.ascontiguousarray(series.to_numpy(), dtype=little).tobytes())
            )
        elif dtype == "Int64":
            values = series.to_numpy(dtype="<i8", na_value=0).tobytes()
            columns.append(
                Column(name, "int64+mask", values + series.isna().to_numpy().tobytes(), dtype=dtype)
            )
        elif dtype in ("object", "str"):
            values = series.tolist()
            if not all(v is None or type(v) in (str, float, int, bool) for v in values):
                raise _Uncacheable(name)
            columns.append(Column(name, cache_entry.TEXT, values=values, dtype=dtype))
        else:
            raise _Uncacheable(name)
    return Entry(key, report.format, report.exact, len(frame), columns, list(report.notes))


def decode_report(data: bytes, key: str) -> RawReport:
    """The RawReport in the entry ``data``, made for ``key`` (its ``path`` left empty):
    the one decoding of an entry, whether read from the cache or just written by a reader
    child. Raises EntryError (a ValueError) for anything but a whole, consistent entry."""
    return report_of_entry(cache_entry.decode(data, key))


def report_of_entry(entry: Entry) -> RawReport:
    """The RawReport ``entry`` holds: text columns typed as the entry says (as pandas
    types a list of values where it does not say: a reader child has no pandas)."""
    import numpy as np
    import pandas as pd

    from rooftui.ingest.report import FORMATS, RawReport

    if entry.format not in FORMATS:
        raise EntryError(f"a report of unknown format {entry.format!r}")
    rows = entry.rows
    columns: dict[str, object] = {}
    for column in entry.columns:
        data = column.data
        if column.kind in ("float64", "int64"):
            columns[column.name] = np.frombuffer(data, dtype="<" + column.kind[0] + "8").astype(column.kind)
        elif column.kind == "bool":
            columns[column.name] = _flags(np.frombuffer(data, dtype=np.uint8))
        elif column.kind == "int64+mask":
            values = np.frombuffer(data[: 8 * rows], dtype="<i8").astype(np.int64)
            columns[column.name] = pd.arrays.IntegerArray(
                values, _flags(np.frombuffer(data[8 * rows :], np.uint8))
            )
        elif column.dtype == "object":
            text = np.empty(rows, dtype=object)
            text[:] = column.values
            columns[column.name] = text
        elif column.dtype is not None:
            columns[column.name] = pd.array(column.values, dtype=column.dtype)
        else:
            columns[column.name] = column.values
    frame = pd.DataFrame(columns, index=pd.RangeIndex(rows))
    for column in entry.columns:
        if column.dtype is not None and str(frame[column.name].dtype) != column.dtype:
            raise EntryError(
                f"column {column.name!r} reads back as {frame[column.name].dtype}, not {column.dtype}"
            )
    return RawReport("", entry.format, frame, entry.exact, entry.notes)


def _flags(values: np.ndarray) -> np.ndarray:
    """0/1 bytes as booleans; EntryError for any other byte."""
    if len(values) and values.max() > 1:
        raise EntryError("a flag that is neither 0 nor 1")
    return values.astype(bool)


def _check_shape(report: RawReport) -> None:
    """Raise ValueError unless ``report`` has the shape every reader gives: a CRC only
    says the entry is as written, and an entry whose header lies (no columns at all, an
    unknown format) would otherwise reach the model and fail there, a good report refused."""
    from rooftui.ingest.report import ALWAYS_IDENTIFIED, FORMATS

    columns = report.kernels.columns
    if not all(isinstance(name, str) for name in columns):
        raise ValueError("a column name that is not text")
    missing = [name for name in ALWAYS_IDENTIFIED if name not in columns]
    if missing:
        raise ValueError(f"no {', '.join(missing)} column")
    if report.format not in FORMATS:
        raise ValueError(f"unknown report format {report.format!r}")
