"""A cache of each report as read (its RawReport), so re-opening a report is instant.

Entries live in ``$XDG_CACHE_HOME/rooftui/reports`` (``~/.cache/rooftui/reports``),
one file per report, keyed by the report's resolved path, size, mtime and inode,
rooftui's version, a digest of the readers' code and of the metric list, and the
versions of pandas and ncu_report. What is cached is the report before any
formula or option is applied (the RawReport: launches × raw ncu metrics), so
options (--ceilings, --phase, --skip-invalid, ...) and formulas always act anew.

An entry that cannot be read back exactly (truncated, corrupt, another format, not a
regular file) is deleted where it can be and the report read again: the cache never
causes an error, nor a hang (a FIFO or a ``/dev/zero`` link in its place is not read),
and a cache folder that cannot be searched, written or named (a name over 255 bytes)
only means no cache. The cache is
capped (``MAX_BYTES``); the entries used longest ago go first.

An entry is one file: ``MAGIC``, a CRC-32 of the rest (4 bytes, little-endian), the
header's length (8 bytes), the header (JSON: the key, the report's fields, one record
per column, text columns' values) and the numeric columns' bytes, one after another.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import tempfile
import zlib
from pathlib import Path

from rooftui import __version__
from rooftui.errors import InputError
from rooftui.ingest.files import open_binary
from rooftui.ingest.report import ALWAYS_IDENTIFIED, FORMATS, RawReport
from rooftui.model.metrics import metrics_read

MAGIC = b"rooftui-report-cache\n"
FORMAT = 1  # bump when the entry layout changes
MAX_BYTES = 1 << 30  # the whole cache; oldest-used entries are deleted beyond it
SUFFIX = ".report"
DISABLE_ENV = "ROOFTUI_NO_CACHE"  # set (non-empty) to read every report afresh, like --no-cache

_NUMERIC = ("float64", "int64", "bool")


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
            report = _decode(data, key)
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
            data = _encode(report, key)
        except _Uncacheable:
            return
        if len(data) > self.max_bytes:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".writing-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, self.directory / (key + SUFFIX))
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError:
            return
        self.evict()

    def evict(self) -> None:
        """Delete the entries used longest ago until the cache fits in ``max_bytes``."""
        entries = []
        try:
            names = os.listdir(self.directory)
        except OSError:  # gone, or cannot be searched: nothing to evict
            return
        for name in names:
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


class _Uncacheable(Exception):
    """A report with a column the entry layout cannot give back exactly."""


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


def _encode(report: RawReport, key: str) -> bytes:
    import numpy as np
    import pandas as pd

    frame = report.kernels
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.start != 0 or frame.index.step != 1:
        raise _Uncacheable("index")
    if frame.columns.has_duplicates or not all(isinstance(c, str) for c in frame.columns):
        raise _Uncacheable("column names")
    columns, blocks, offset = [], [], 0
    for name in frame.columns:
        series = frame[name]
        dtype = str(series.dtype)
        record: dict = {"name": name, "dtype": dtype}
        if dtype in _NUMERIC:
            block = np.ascontiguousarray(series.to_numpy(), dtype=dtype).tobytes()
        elif dtype == "Int64":
            values = series.to_numpy(dtype=np.int64, na_value=0)
            block = values.tobytes() + series.isna().to_numpy().tobytes()
        elif dtype in ("object", "str"):
            values = series.tolist()
            if not all(v is None or type(v) in (str, float, int, bool) for v in values):
                raise _Uncacheable(name)
            record["values"] = values
            block = b""
        else:
            raise _Uncacheable(name)
        record["offset"], record["length"] = offset, len(block)
        columns.append(record)
        blocks.append(block)
        offset += len(block)
    data = b"".join(blocks)
    header = json.dumps(
        {
            "key": key,
            "format": report.format,
            "exact": report.exact,
            "notes": report.notes,
            "rows": len(frame),
            "columns": columns,
        }
    ).encode()
    body = len(header).to_bytes(8, "little") + header + data
    return MAGIC + zlib.crc32(body).to_bytes(4, "little") + body


def _decode(blob: bytes, key: str) -> RawReport:
    import numpy as np
    import pandas as pd

    if not blob.startswith(MAGIC):
        raise ValueError("not a rooftui cache entry")
    body = memoryview(blob)[len(MAGIC) + 4 :]
    if zlib.crc32(body) != int.from_bytes(blob[len(MAGIC) : len(MAGIC) + 4], "little"):
        raise ValueError("damaged entry")
    length = int.from_bytes(body[:8], "little")
    header = json.loads(bytes(body[8 : 8 + length]))
    data = body[8 + length :]
    if header["key"] != key:
        raise ValueError("another report's entry")
    rows = header["rows"]
    if not isinstance(rows, int) or not 0 <= rows <= len(blob):  # no allocation from a bad count
        raise ValueError("row count out of range")
    columns = {}
    for record in header["columns"]:
        dtype, block = record["dtype"], data[record["offset"] : record["offset"] + record["length"]]
        if dtype in _NUMERIC:
            values = np.frombuffer(block, dtype=dtype).copy()
        elif dtype == "Int64":
            values = pd.arrays.IntegerArray(
                np.frombuffer(block[: 8 * rows], dtype=np.int64).copy(),
                np.frombuffer(block[8 * rows :], dtype=np.bool_).copy(),
            )
        elif dtype == "object":
            if len(record["values"]) != rows:
                raise ValueError("column of the wrong length")
            values = np.empty(rows, dtype=object)
            values[:] = record["values"]
        elif dtype == "str":  # pandas 3's text columns
            values = pd.array(record["values"], dtype="str")
        else:
            raise ValueError(f"unknown column type {dtype}")
        if len(values) != rows:
            raise ValueError("column of the wrong length")
        columns[record["name"]] = values
    frame = pd.DataFrame(columns, index=pd.RangeIndex(rows))
    if [str(t) for t in frame.dtypes] != [r["dtype"] for r in header["columns"]]:
        raise ValueError("column types differ")
    notes, exact, kind = header["notes"], header["exact"], header["format"]
    if not (
        isinstance(notes, list)
        and all(isinstance(n, str) for n in notes)
        and isinstance(exact, bool)
        and isinstance(kind, str)
    ):
        raise ValueError("header fields of the wrong type")
    return RawReport("", kind, frame, exact, notes)


def _check_shape(report: RawReport) -> None:
    """Raise ValueError unless ``report`` has the shape every reader gives: a CRC only
    says the entry is as written, and an entry whose header lies (no columns at all, an
    unknown format) would otherwise reach the model and fail there, a good report refused."""
    columns = report.kernels.columns
    if not all(isinstance(name, str) for name in columns):
        raise ValueError("a column name that is not text")
    missing = [name for name in ALWAYS_IDENTIFIED if name not in columns]
    if missing:
        raise ValueError(f"no {', '.join(missing)} column")
    if report.format not in FORMATS:
        raise ValueError(f"unknown report format {report.format!r}")
