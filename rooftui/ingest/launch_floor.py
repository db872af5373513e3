"""The launch floor a ceilings file carries (``launch_floor``, written by ``rooftui measure``).

``rooftui.measure.launch_floor`` says how each number is measured. A run's roofs may come
from several files (``analysis.ceilings.choose_ceilings``); the floor is read from the
first of them, in the order roofs are looked for (``--ceilings`` file, saved, bundled),
that has one.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rooftui.errors import CeilingsError
from rooftui.model.ceilings import SOURCES, CeilingSet

FILE_SOURCES = ("file", "saved", "bundled")  # the sources that are ceilings files


@dataclass(frozen=True)
class StoredFloor:
    """A ceilings file's ``launch_floor``: seconds, and how each was taken."""

    empty_kernel_s: float | None  # an empty kernel's gpu__time_duration.sum under ncu
    back_to_back_s: float | None  # interval between back-to-back launches on one stream
    how: str  # the file's own words for how it was measured
    origin: str  # the file
    source: str  # which of FILE_SOURCES
    measured_at: str | None


def find_launch_floor(ceilings: CeilingSet) -> StoredFloor | None:
    """The floor stored beside the run's roofs, or None when no file they came from has one.

    Raises CeilingsError when a file's ``launch_floor`` is malformed.
    """
    from rooftui.ingest.ceilings import read_json_object

    origins = sorted(
        {(c.source, c.origin) for c in ceilings.ceilings if c.source in FILE_SOURCES and c.origin},
        key=lambda pair: SOURCES.index(pair[0]),
    )
    for source, origin in origins:
        if source == "bundled":
            resource = resources.files("rooftui") / "data" / "ceilings" / Path(origin).name
            with resources.as_file(resource) as path:
                doc = read_json_object(path)
        else:
            path = Path(origin)
            doc = read_json_object(path)
        if "launch_floor" in doc:
            return _floor(doc, origin, source, path)
    return None


def _floor(doc: dict, origin: str, source: str, path: Path) -> StoredFloor:
    floor = doc["launch_floor"]
    if not isinstance(floor, dict):
        raise CeilingsError("launch_floor must be an object", path, "re-run rooftui measure")
    values: dict[str, float | None] = {}
    for key in ("empty_kernel_s", "back_to_back_s"):
        value = floor.get(key)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1
        ):
            raise CeilingsError(
                f"launch_floor.{key} must be a number of seconds (0 < s < 1), not {value!r}",
                path,
                "re-run rooftui measure",
            )
        values[key] = float(value) if value is not None else None
    how = "; ".join(str(floor[k]) for k in ("empty_kernel_source", "back_to_back_source") if k in floor)
    when = floor.get("measured_at") or doc.get("measured_at")
    return StoredFloor(
        values["empty_kernel_s"],
        values["back_to_back_s"],
        how,
        origin,
        source,
        when if isinstance(when, str) else None,
    )
