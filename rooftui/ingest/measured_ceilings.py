"""Measured ceilings found without ``--ceilings``: the ones ``rooftui measure`` saved
for this GPU model in the user's data directory, and the ones bundled with rooftui.

Both are keyed by GPU name and compute capability (``nvidia-h200_cc9.0.json``).
The user's directory follows the XDG Base Directory convention:
``$XDG_DATA_HOME/rooftui/ceilings``, else ``~/.local/share/rooftui/ceilings``.
Bundled files are package data (``rooftui/data/ceilings``), read through
``importlib.resources`` so an installed wheel has them.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from rooftui.ingest.ceilings import load_ceilings
from rooftui.model.ceilings import CeilingSet


def user_ceilings_dir() -> Path:
    """Where ``rooftui measure`` saves a copy of what it measured."""
    base = os.environ.get("XDG_DATA_HOME", "")
    # The XDG spec says to ignore a relative path.
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "rooftui" / "ceilings"


def file_name(device: str, cc: str) -> str:
    """``"NVIDIA H200", "9.0"`` -> ``"nvidia-h200_cc9.0.json"``."""
    slug = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-") or "unnamed-gpu"
    # A name from a file can be anything: keep the file name within NAME_MAX (255 bytes);
    # GPU names are a few dozen characters.
    return f"{slug[:120]}_cc{re.sub(r'[^0-9.]', '', cc)[:20] or 'unknown'}.json"


def saved_path(device: str, cc: str) -> Path:
    return user_ceilings_dir() / file_name(device, cc)


def find_saved(device: str, cc: str) -> CeilingSet | None:
    """The ceilings ``rooftui measure`` saved for this GPU model, if any.

    Raises CeilingsError (with the path) when the saved file is unreadable.
    """
    path = saved_path(device, cc)
    return load_ceilings(path) if device and path.is_file() else None


def find_bundled(device: str, cc: str) -> CeilingSet | None:
    """The ceilings measured for this GPU model and shipped with rooftui, if any."""
    if not device:
        return None
    resource = resources.files("rooftui") / "data" / "ceilings" / file_name(device, cc)
    if not resource.is_file():
        return None
    with resources.as_file(resource) as path:
        found = load_ceilings(path)
    return replace(found, origin=f"rooftui/data/ceilings/{file_name(device, cc)}")


def is_quick(document: dict[str, Any]) -> bool:
    """Whether a ``rooftui.ceilings/1`` document came from ``rooftui measure --quick``."""
    measurement = document.get("measurement")
    return isinstance(measurement, dict) and measurement.get("quick") is True


def save_measured(document: dict[str, Any]) -> Path | None:
    """Write ``document`` (a ``rooftui.ceilings/1`` document) where ``find_saved`` looks,
    replacing an earlier measurement of the same GPU model atomically.

    A ``--quick`` measurement (fewer sweep points, shorter timings) never replaces a full
    one: then nothing is written and None is returned, so the caller can say so.
    """
    device = document.get("device") or {}
    path = saved_path(str(device.get("name", "")), str(device.get("cc", "")))
    if is_quick(document) and _saved_is_full(path):
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(json.dumps(document, indent=1) + "\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _saved_is_full(path: Path) -> bool:
    """A readable saved measurement that is not a quick one (an unreadable file is replaced)."""
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(saved, dict) and not is_quick(saved)
