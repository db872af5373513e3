"""What ``rooftui profile --dedup`` leaves in and beside its table, read back.

``REPORT.raw.csv`` (every launch) carries two columns of rooftui's own per launch:
``rooftui__signature`` (``S12``: the signature of its work) and ``rooftui__counters_from``
(``own``: profiled in full; a launch ID: the twin whose counters it was given; empty: no
launch of its signature was profiled, its counters not collected; ``rank 0:N``: the ranks of
a launched job, launch N of rank 0's profile). ``REPORT.signatures.json`` beside it holds
the plan and the self-check (launches the full run profiled beside their twin, compared);
rooftui.profile.deduplicated writes both.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

from rooftui.errors import InputError
from rooftui.ingest.files import open_text
from rooftui.ingest.sidecars import report_stem

SIGNATURE_COLUMN = "rooftui__signature"
COUNTERS_FROM_COLUMN = "rooftui__counters_from"
PROVENANCE_COLUMNS = (SIGNATURE_COLUMN, COUNTERS_FROM_COLUMN)
SIGNATURES_SUFFIX = ".signatures.json"
# rooftui writes ~500 bytes a launch; a file far larger is not its sidecar.
SIDECAR_LIMIT = 64 << 20


@dataclass(frozen=True)
class SelfCheck:
    """The self-check of one deduplicated profile, as its sidecar records it."""

    pairs: int  # launches profiled in full beside their twin, compared with it
    flops: float  # |sum of (own - twin)| / sum of own, FLOP counters of those launches
    bytes: float  # the same for byte counters
    worst: float  # the largest relative difference of one counter of one launch
    worst_what: str

    def text(self) -> str:
        if not self.pairs:
            return "no launch was profiled beside its twin, so nothing bounds the inherited counters"
        return (
            f"{self.pairs} launches profiled in full beside their twin: totals of FLOP counters "
            f"within {self.flops:.2%}, bytes within {self.bytes:.2%} of the twin's; worst single "
            f"counter {self.worst:.1%} ({self.worst_what})"
        )


@dataclass(frozen=True)
class Sidecar:
    """What ``REPORT.signatures.json`` says about the whole profile."""

    path: Path
    signatures: int
    self_check: SelfCheck


def signatures_path(report: str | Path) -> Path:
    """``REPORT.signatures.json`` beside ``report`` (``REPORT.raw.csv``, compressed or not)."""
    return Path(f"{report_stem(report)}{SIGNATURES_SUFFIX}")


def full_table_beside(report: str | Path) -> Path | None:
    """For the ``.ncu-rep`` of a ``rooftui profile --dedup`` run (its signatures sidecar beside
    it), the table with every launch, ``REPORT.raw.csv``: the ``.ncu-rep`` holds only the
    launches the full run profiled. None for any other report."""
    name = Path(str(report)).name
    if not (name.endswith(".ncu-rep") or name.endswith(".ncu-rep.xz")):
        return None
    if not os.path.lexists(signatures_path(report)):
        return None
    return Path(f"{report_stem(report)}.raw.csv")


def read_sidecar(report: str | Path) -> Sidecar | str:
    """The sidecar beside ``report``, or why it cannot be read (one phrase, never an error:
    the table itself holds each launch's provenance)."""
    path = signatures_path(report)
    if not os.path.lexists(path):
        return f"{path.name} is not beside it"
    try:
        with open_text(path, limit=SIDECAR_LIMIT) as handle:
            doc = json.load(handle)
        check = doc["self_check"]
        found = SelfCheck(
            pairs=int(check["launches_compared"]),
            flops=_fraction(check["flops"]),
            bytes=_fraction(check["bytes"]),
            worst=_fraction(check["worst"]),
            worst_what=str(check["worst_what"]),
        )
        return Sidecar(path, len(doc["signatures"]), found)
    except InputError as err:
        return f"{path.name} cannot be read ({err.args[0].split(': ', 1)[-1]})"
    except (OSError, ValueError, KeyError, TypeError) as err:
        return f"{path.name} cannot be read ({type(err).__name__}: {str(err)[:80]})"


def _fraction(value: object) -> float:
    number = float(value)  # type: ignore[arg-type]  # a bad value is a ValueError/TypeError
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{value!r} is not a fraction")
    return number
