"""Writing a command's output files safely: all of them or none, never over an input.

``OutputFiles(targets, inputs)`` checks every target before any work is done (the folder
exists and is writable, the target is no input, no folder, not named twice). Inside
``with files.writing():`` each output is written to a temporary file beside its target
(``files.temporary(target)``); only when the block ends without error are they renamed
over their targets, one ``os.replace`` each. On any error -- SIGTERM and SIGINT
included -- the temporary files are deleted and no target is touched.

A target that exists and is not a regular file (``/dev/stdout``, a pipe) is written
through: the content goes to a temporary file first and is copied in at the end.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rooftui.errors import OutputError

_PREFIX = ".rooftui-"


class OutputFiles:
    """The output files of one command; see the module docstring."""

    def __init__(self, targets: Iterable[Path | None], inputs: Iterable[str | Path | None] = ()):
        self.targets = [Path(t) for t in targets if t is not None]
        self._temporaries: dict[Path, Path] = {}
        input_ids = {_identity(Path(p)) for p in inputs if p is not None} - {None}
        seen: set[tuple] = set()
        for target in self.targets:
            _check_target(target)
            identity = _identity(target)
            if identity is not None and identity in input_ids:
                raise OutputError(
                    "is one of this command's inputs; rooftui never writes over an input",
                    target,
                    "name another output file",
                )
            key = identity or (os.path.realpath(target),)
            if key in seen:
                raise OutputError("is named as two outputs", target, "name each output once")
            seen.add(key)

    def temporary(self, target: Path) -> Path:
        """Where to write ``target``'s content; it becomes ``target`` when the block succeeds."""
        target = Path(target)
        if target not in self._temporaries:
            folder = target.parent if _is_regular_or_new(target) else Path(tempfile.gettempdir())
            try:
                handle, name = tempfile.mkstemp(prefix=_PREFIX, suffix=".tmp", dir=folder)
            except OSError as err:
                raise _write_error(err, target) from None
            os.close(handle)
            self._temporaries[target] = Path(name)
        return self._temporaries[target]

    @contextmanager
    def writing(self) -> Iterator[OutputFiles]:
        try:
            try:
                yield self
            except OSError as err:  # writing a temporary file: no room, an I/O error
                raise _write_error(err, self.targets[0] if self.targets else Path(".")) from None
            self._commit()
        finally:
            for temporary in self._temporaries.values():
                temporary.unlink(missing_ok=True)

    def _commit(self) -> None:
        for target, temporary in self._temporaries.items():
            try:
                if _is_regular_or_new(target):
                    os.chmod(temporary, 0o666 & ~_umask())
                    os.replace(temporary, target)
                else:
                    with open(temporary, "rb") as source, open(target, "wb") as out:
                        shutil.copyfileobj(source, out)
            except OSError as err:
                raise _write_error(err, target) from None


def _check_target(target: Path) -> None:
    try:
        info = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise _write_error(err, target) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise OutputError("is a folder", target, "name a file inside it")
    folder = target.parent
    if not folder.is_dir():
        raise OutputError(f"no such folder: {folder}", target, "create it first, or name another")
    if info is None or stat.S_ISREG(info.st_mode):
        if not os.access(folder, os.W_OK | os.X_OK):
            raise OutputError(
                f"cannot write in {folder} (permission denied)", target, "name a folder you can write to"
            )
    elif not os.access(target, os.W_OK):
        raise OutputError("cannot write to it (permission denied)", target, "name another file")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino)


def _is_regular_or_new(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_error(err: OSError, target: Path) -> OutputError:
    reason = {
        errno.ENOSPC: ("no space left on the device", "free some room or write elsewhere"),
        errno.EROFS: ("the file system is read-only", "write elsewhere"),
        errno.EACCES: ("permission denied", "name a file you can write"),
        errno.EPERM: ("permission denied", "name a file you can write"),
        errno.ENAMETOOLONG: ("the path or a name in it is too long", "use a shorter name"),
    }.get(err.errno or 0, (f"cannot write it ({err.strerror or type(err).__name__})", "name another file"))
    return OutputError(reason[0], target, reason[1])


_XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def make_xml_valid(path: Path) -> None:
    """Escape characters XML 1.0 forbids (C0 controls) in a written SVG, as ``\\xNN`` text."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if _XML_INVALID.search(text):
        path.write_text(_XML_INVALID.sub(lambda m: f"\\x{ord(m.group()):02x}", text), encoding="utf-8")
