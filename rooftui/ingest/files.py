"""Opening input files: existence checks and transparent .xz/.gz/.bz2 decompression."""

from __future__ import annotations

import bz2
import gzip
import lzma
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from rooftui.errors import InputError

_OPENERS: dict[str, Callable[..., IO[Any]]] = {".xz": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}


def compression(path: Path) -> str | None:
    """The compression suffix of ``path`` (".xz", ".gz", ".bz2") or None."""
    return path.suffix if path.suffix in _OPENERS else None


def logical_name(path: Path) -> str:
    """The file name without a compression suffix: ``a.raw.csv.xz`` -> ``a.raw.csv``."""
    return path.stem if compression(path) else path.name


def check_readable(path: Path) -> None:
    """Raise InputError unless ``path`` is an existing, non-empty file."""
    if not path.exists():
        raise InputError("no such file", path, "check the path")
    if path.is_dir():
        raise InputError("is a directory, not a report", path, "name the report file inside it")
    if path.stat().st_size == 0:
        raise InputError("the file is empty", path, "re-export the report from ncu")


def open_binary(path: Path) -> IO[bytes]:
    opener = _OPENERS.get(path.suffix)
    return opener(path, "rb") if opener else open(path, "rb")


def open_text(path: Path) -> IO[str]:
    opener = _OPENERS.get(path.suffix)
    if opener:
        return opener(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, encoding="utf-8", errors="replace", newline="")
