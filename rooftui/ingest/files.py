"""Opening input files: checks, streaming .xz/.gz/.bz2 decompression, a size cap, temp copies.

Every input rooftui reads (reports, CSV exports, ceilings, traces) is opened here, so
that each gets the same protection against damaged and hostile files:

- only regular files are read: a FIFO, a device (``/dev/zero``) or a ``/proc`` file
  is refused up front instead of blocking or reading forever;
- compressed files are decompressed as a stream, once per load, never whole into memory;
- at most ``input_limit()`` bytes (after decompression) are read from any one input:
  ``ROOFTUI_MAX_INPUT_BYTES`` (default 4 GiB), so a decompression bomb ends with one
  line instead of exhausting memory or disk;
- a damaged compressed stream (``LZMAError``, ``zlib.error``, ``BadGzipFile``, a cut
  stream's ``EOFError``) becomes an :class:`InputError` naming the file;
- temporary decompressed copies are deleted on exit, SIGTERM and SIGINT included
  (``rooftui.cli.errors`` turns those signals into exceptions so ``finally`` runs).
"""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import stat
import tempfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Protocol

from rooftui.errors import InputError

DEFAULT_INPUT_LIMIT = 4 << 30  # bytes; ROOFTUI_MAX_INPUT_BYTES overrides it
# The longest line a text input may have: a raw CSV header of every ncu metric is
# ~100 KB; a longer line is a damaged file (a CSV parser would hold all of it in memory).
MAX_LINE_BYTES = 64 << 20
TAIL_BYTES = 1 << 16  # kept while streaming, for the "ends in the middle of a row" check
_COPY_CHUNK = 1 << 20
_READ_BUFFER = 1 << 16  # small: sniffing a file's head decompresses little more than the head
_PSEUDO_FILESYSTEMS = ("/proc/", "/sys/", "/dev/")
# Under /dev, shared memory (tmpfs) holds real files: a usual place for large scratch copies.
_REAL_FILES_UNDER_DEV = ("/dev/shm/",)


class _Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...

    def close(self) -> None: ...


_DECOMPRESSORS: dict[str, Callable[[IO[bytes]], _Readable]] = {
    ".xz": lambda raw: lzma.LZMAFile(raw),
    ".gz": lambda raw: gzip.GzipFile(fileobj=raw),
    ".bz2": lambda raw: bz2.BZ2File(raw),
}
# What a damaged compressed stream raises; gzip.BadGzipFile is an OSError.
_DECOMPRESSION_ERRORS = (lzma.LZMAError, zlib.error, gzip.BadGzipFile, EOFError, OSError)


def compression(path: Path) -> str | None:
    """The compression suffix of ``path`` (".xz", ".gz", ".bz2") or None."""
    return path.suffix if path.suffix in _DECOMPRESSORS else None


def logical_name(path: Path) -> str:
    """The file name without a compression suffix: ``a.raw.csv.xz`` -> ``a.raw.csv``."""
    return path.stem if compression(path) else path.name


def limit_from_env(variable: str, default: int) -> int:
    """A limit a user may set in ``variable`` (a whole number of at least 1); ``default``
    where it is unset or no whole number."""
    text = os.environ.get(variable, "")
    try:
        return max(1, int(text)) if text else default
    except ValueError:
        return default


def input_limit() -> int:
    """The most bytes (after decompression) rooftui reads from one input."""
    return limit_from_env("ROOFTUI_MAX_INPUT_BYTES", DEFAULT_INPUT_LIMIT)


def path_error(err: OSError, path: Path) -> InputError:
    """An OSError on ``path`` (missing, too long, no permission, a loop...) as one line."""
    reason = {
        errno.ENOENT: ("no such file", "check the path"),
        errno.ENAMETOOLONG: ("the path or a name in it is too long", "check the path"),
        errno.EACCES: ("permission denied", "check the file's and its folders' permissions"),
        errno.EPERM: ("permission denied", "check the file's and its folders' permissions"),
        errno.ELOOP: ("too many levels of symbolic links", "check the path"),
        errno.ENOTDIR: ("a part of the path is not a folder", "check the path"),
        errno.EISDIR: ("is a directory, not a file", "name the file inside it"),
    }.get(err.errno or 0)
    if reason is None:
        reason = (f"cannot read it ({err.strerror or type(err).__name__})", "check the file")
    return InputError(reason[0], path, reason[1])


def is_directory(path: str | Path) -> bool:
    """Whether ``path`` is a folder; False where it cannot even be looked at (``check_readable``
    then says why: a name too long, no permission...)."""
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def check_readable(path: Path, empty_fix: str = "re-export the report from ncu") -> None:
    """Raise InputError unless ``path`` is an existing, non-empty regular file."""
    try:
        info = path.stat()
    except OSError as err:
        raise path_error(err, path) from None
    except ValueError:  # a NUL byte in the path
        raise InputError("the path contains a NUL byte", path, "check the path") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError("is a directory, not a report", path, "name the report file inside it")
    _check_regular(path, info.st_mode)
    if info.st_size == 0:
        raise InputError("the file is empty", path, empty_fix)


def _check_regular(path: Path, mode: int) -> None:
    resolved = os.path.realpath(path)
    pseudo = resolved.startswith(_PSEUDO_FILESYSTEMS) and not resolved.startswith(_REAL_FILES_UNDER_DEV)
    if not stat.S_ISREG(mode) or pseudo:
        raise InputError(
            "not a regular file (a pipe, device or /proc file)",
            path,
            "copy the data into a file and pass that",
        )


def open_binary(
    path: Path, *, limit: int | None = None, max_line: int | None = None, compressed_as: str | None = None
) -> IO[bytes]:
    """``path`` as decompressed bytes, read as a stream and capped at ``input_limit()``.

    ``limit`` lowers the cap for inputs that are small by nature (ceilings files);
    ``max_line`` refuses a line (bytes between newlines) longer than that;
    ``compressed_as`` (".gz", ..., or "" for none) overrides what the file's name says.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise path_error(err, path) from None
    except ValueError:
        raise InputError("the path contains a NUL byte", path, "check the path") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError("is a directory, not a file", path, "name the file inside it")
        _check_regular(path, info.st_mode)
    except BaseException:
        os.close(fd)
        raise
    raw = open(fd, "rb", buffering=_COPY_CHUNK)
    decompress = _DECOMPRESSORS.get(path.suffix if compressed_as is None else compressed_as)
    stream: _Readable = decompress(raw) if decompress else raw
    cap = input_limit() if limit is None else min(limit, input_limit())
    fix = (
        "set ROOFTUI_MAX_INPUT_BYTES to a larger number of bytes if the file is genuine"
        if cap == input_limit()
        else "a file of this kind is far smaller: check it is the right file"
    )
    guarded = _GuardedStream(
        stream, path, compressed=decompress is not None, limit=cap, max_line=max_line, limit_fix=fix
    )
    return io.BufferedReader(guarded, buffer_size=_READ_BUFFER)


def open_text(path: Path, *, limit: int | None = None) -> IO[str]:
    """``path`` as text: UTF-8 (a leading BOM dropped), undecodable bytes replaced, newlines kept.

    Lines longer than ``MAX_LINE_BYTES`` are refused (see ``open_binary`` for ``limit``).
    """
    binary = open_binary(path, limit=limit, max_line=MAX_LINE_BYTES)
    return io.TextIOWrapper(binary, encoding="utf-8-sig", errors="replace", newline="")


def tail_of(handle: IO | io.IOBase) -> bytes | None:
    """The last bytes a stream from ``open_text``/``open_binary`` gave, once it reached the end.

    None while the stream has not been read to its end. Lets a reader check how a file
    ends without a second pass over it (no second decompression).
    """
    guarded = _guarded(handle)
    return guarded.tail if guarded is not None and guarded.at_end else None


def _guarded(handle: object) -> _GuardedStream | None:
    for _ in range(3):
        if isinstance(handle, _GuardedStream):
            return handle
        handle = getattr(handle, "buffer", None) or getattr(handle, "raw", None)
    return None


def head(path: Path, size: int = 4096) -> bytes:
    """The first ``size`` bytes of ``path`` after decompression."""
    with open_binary(path) as handle:
        return handle.read(size)


class _GuardedStream(io.RawIOBase):
    """A read-only stream that counts bytes against the cap, keeps the tail and names errors."""

    def __init__(
        self,
        inner: _Readable,
        path: Path,
        compressed: bool,
        limit: int,
        max_line: int | None,
        limit_fix: str = "",
    ):
        self._inner = inner
        self._path = path
        self._compressed = compressed
        self._limit = limit
        self._limit_fix = limit_fix
        self._max_line = max_line
        self._line_bytes = 0  # bytes since the last newline
        self.read_bytes = 0
        self.tail = b""
        self.at_end = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        try:
            data = self._inner.read(len(buffer))
        except InputError:
            raise
        except _DECOMPRESSION_ERRORS as err:
            raise self._damaged(err) from None
        n = len(data)
        buffer[:n] = data
        if n == 0:
            self.at_end = True
            return 0
        self.read_bytes += n
        if self.read_bytes > self._limit:
            what = "decompresses to" if self._compressed else "is"
            raise InputError(
                f"{what} more than {self._limit:,} bytes, rooftui's limit for one input",
                self._path,
                self._limit_fix,
            )
        if self._max_line is not None:
            newline = data.rfind(b"\n")
            self._line_bytes = n - 1 - newline if newline >= 0 else self._line_bytes + n
            if self._line_bytes > self._max_line:
                raise InputError(
                    f"has a line longer than {self._max_line:,} bytes (not a text export, or a damaged one)",
                    self._path,
                    "check the file",
                )
        self.tail = (self.tail + data)[-TAIL_BYTES:] if n < TAIL_BYTES else data[-TAIL_BYTES:]
        return n

    def _damaged(self, err: BaseException) -> InputError:
        detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if not self._compressed:
            return InputError(f"cannot read it ({detail})", self._path, "check the file")
        suffix = self._path.suffix if self._path.suffix in _DECOMPRESSORS else "compressed"
        if isinstance(err, EOFError):
            return InputError(
                f"the {suffix} file is truncated ({detail})", self._path, "copy the whole file again"
            )
        return InputError(
            f"not a valid {suffix} file, or a damaged one ({detail})",
            self._path,
            f"copy the file again, or drop the {suffix} suffix if it is not compressed",
        )

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


@contextmanager
def decompressed_copy(
    path: Path, suffix: str = "", inspect: Callable[[bytes], None] | None = None
) -> Iterator[Path]:
    """``path`` itself, or a temporary decompressed copy of it, deleted afterwards.

    The copy goes to ``$TMPDIR`` as ``rooftui-*``; it is deleted however the block ends,
    including SIGTERM/SIGINT (turned into exceptions by ``rooftui.cli.errors``).
    ``inspect`` sees every chunk of the (decompressed) content as it passes, in order,
    so a structural check costs no second pass and can stop a bomb early.
    """
    if compression(path) is None:
        if inspect is not None:
            with open_binary(path) as source:
                while chunk := source.read(_COPY_CHUNK):
                    inspect(chunk)
        yield path
        return
    handle, name = tempfile.mkstemp(suffix=suffix, prefix="rooftui-")
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as out, open_binary(path) as source:
            while chunk := source.read(_COPY_CHUNK):
                if inspect is not None:
                    inspect(chunk)
                try:
                    out.write(chunk)
                except OSError as err:
                    raise InputError(
                        f"decompressing it into {tempfile.gettempdir()} failed ({err.strerror or err})",
                        path,
                        "set TMPDIR to a disk with room for the uncompressed file",
                    ) from None
        yield temporary
    finally:
        temporary.unlink(missing_ok=True)
