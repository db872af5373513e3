"""Ceilings: the roofs a kernel is measured against.

The on-disk form (``rooftui.ceilings/1``, documented in the README) is shared by
the loader and ``rooftui measure``::

    {"schema": "rooftui.ceilings/1",
     "device": {"name": "NVIDIA H200", "cc": "9.0", "sm_count": 132,
                "clocks_hz": {"sm": 1.98e9, "memory": 3.2e9}},
     "source": "rooftui measure 0.1.0",
     "ceilings": [
        {"name": "FP64 FMA", "kind": "compute", "precision": "fp64",
         "value": 6.6e13, "unit": "FLOP/s", "method": "empirical"},
        {"name": "HBM", "kind": "bandwidth", "level": "hbm",
         "value": 4.4e12, "unit": "B/s", "method": "empirical",
         "curve": [[working_set_bytes, bytes_per_second], ...]}]}

``precision`` is a pipeline name from ``rooftui.model.columns`` (``fp64``,
``tensor_fp16``, ...); ``level`` is ``l1``, ``smem``, ``l2`` or ``hbm``.
``method`` is ``empirical`` (measured), ``spec`` (datasheet) or ``report``
(the profiled report's own ``*.peak_sustained`` metrics). A top-level
``measured_at`` (ISO 8601, UTC) says when ``rooftui measure`` ran.

When a run picks its ceilings, each one is stamped with where it was found
(``source``, one of ``SOURCES``), the file (``origin``), when it was measured
and, for report peaks no kernel can reach, a ``caveat``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rooftui.model.instructions import InstructionRoof

SCHEMA = "rooftui.ceilings/1"
KINDS = ("compute", "bandwidth")
METHODS = ("empirical", "spec", "report")
# Where a run found a ceiling, in the order they are tried (analysis.ceilings).
SOURCES = ("file", "saved", "bundled", "published", "report", "datasheet")
SOURCE_LABELS = {
    "file": "--ceilings file",
    "saved": "saved by rooftui measure",
    "bundled": "bundled with rooftui",
    "published": "published measurement",
    "report": "report peak",
    "datasheet": "datasheet",
}
# Keys a run adds to each ceiling; never part of a ceilings file's own entries.
STAMP_KEYS = ("source", "origin", "measured_at", "caveat")


@dataclass(frozen=True)
class Ceiling:
    """One roof: a compute peak (FLOP/s) or a bandwidth (B/s)."""

    name: str
    kind: str  # "compute" | "bandwidth"
    value: float  # FLOP/s (OP/s for integer pipelines) or B/s
    method: str  # "empirical" | "spec" | "report"
    precision: str | None = None  # compute ceilings: a pipeline name
    level: str | None = None  # bandwidth ceilings: "l1" | "smem" | "l2" | "hbm"
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # curve, clock, notes
    # Where a run found it (set by analysis.ceilings, empty in a ceilings file).
    source: str = field(default="", compare=False)  # one of SOURCES
    origin: str = field(default="", compare=False)  # the file it came from
    measured_at: str | None = field(default=None, compare=False)  # ISO 8601, UTC
    caveat: str = field(default="", compare=False)  # e.g. a report peak no kernel reaches

    @property
    def label(self) -> str:
        """The roof's name without its "(report peak)"-style suffix: "L2", "Tensor FP16"."""
        return self.name.split(" (")[0]

    @property
    def unit(self) -> str:
        if self.kind == "bandwidth":
            return "B/s"
        return "OP/s" if self.precision == "tensor_int8" else "FLOP/s"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "compute":
            out["precision"] = self.precision
        else:
            out["level"] = self.level
        out.update(value=self.value, unit=self.unit, method=self.method)
        out.update(self.extra)
        for key in STAMP_KEYS:
            value = getattr(self, key)
            if value:
                out[key] = value
        return out


@dataclass(frozen=True)
class Device:
    name: str
    cc: str  # "9.0"
    sm_count: int | None = None
    clocks_hz: dict[str, float] = field(default_factory=dict, compare=False)
    index: int | None = field(default=None, compare=False)  # the GPU's index where it was measured


@dataclass(frozen=True)
class CeilingSet:
    """The ceilings for one device, with where they came from."""

    device: Device
    ceilings: tuple[Ceiling, ...]
    source: str = ""
    measured_at: str | None = field(default=None, compare=False)  # ISO 8601 UTC: when measured
    origin: str = field(default="", compare=False)  # the file it was read from
    # The instruction roofline's roofs the file saved (top-level "instruction_ceilings",
    # rooftui.model.instructions); empty when it saved none.
    instruction_roofs: tuple[InstructionRoof, ...] = field(default=(), compare=False)

    def compute(self, precision: str) -> Ceiling | None:
        return next((c for c in self.ceilings if c.kind == "compute" and c.precision == precision), None)

    def bandwidth(self, level: str) -> Ceiling | None:
        return next((c for c in self.ceilings if c.kind == "bandwidth" and c.level == level), None)

    def to_dict(self) -> dict[str, Any]:
        device: dict[str, Any] = {"name": self.device.name, "cc": self.device.cc}
        if self.device.sm_count is not None:
            device["sm_count"] = self.device.sm_count
        if self.device.clocks_hz:
            device["clocks_hz"] = dict(self.device.clocks_hz)
        out: dict[str, Any] = {"schema": SCHEMA, "device": device, "source": self.source}
        if self.measured_at:
            out["measured_at"] = self.measured_at
        out["ceilings"] = [c.to_dict() for c in self.ceilings]
        if self.instruction_roofs:
            out["instruction_ceilings"] = [roof.to_dict() for roof in self.instruction_roofs]
        return out
