"""Which ceilings a run is measured against, and where each came from.

Order of preference (``choose_ceilings``): a ceilings file the user gives; the
ceilings ``rooftui measure`` saved for this GPU model; measured ceilings bundled
with rooftui; the report's own ``*.peak_sustained`` metrics × the clock the kernels
ran at; the datasheet table. Between the measured ones and the report's peaks stand
measurements others published for the exact model (``rooftui.model.published``).
Each ceiling keeps its ``method`` ("empirical", "report", "spec") and is stamped with
its source, so every view can say where it came from and when it was measured. Roofs
that no source has are listed by ``missing_roofs``, with the one-line fix.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import CeilingsError
from rooftui.ingest.measured_ceilings import find_bundled, find_saved
from rooftui.model import metrics as m
from rooftui.model.ceilings import SOURCE_LABELS, Ceiling, CeilingSet, Device
from rooftui.model.columns import LEVEL_LABELS, LEVELS, OPTIONAL_LEVELS, PIPELINE_LABELS
from rooftui.model.instructions import chosen_instruction_roofs
from rooftui.model.published import published_ceilings
from rooftui.model.spec import ROOF_LABELS, datasheet_note, spec_ceilings


def _median(raw: pd.DataFrame, column: str) -> float:
    """The median of a column over the kernels; NaN (without numpy's all-NaN warning) when
    the report lacks it or has no value."""
    if column not in raw:
        return float("nan")
    values = raw[column].to_numpy(dtype=float, na_value=np.nan)
    values = values[~np.isnan(values)]
    return float(np.median(values)) if len(values) else float("nan")


def report_ceilings(raw: pd.DataFrame, device: str, cc: str) -> list[Ceiling]:
    """Peaks from the report itself, as ncu's roofline sections compute them [NCU:
    SpeedOfLight_RooflineChart and SpeedOfLight_Hierarchical*RooflineChart]: work =
    ``X.peak_sustained`` (per cycle, under any of its spellings) × the SM clock × FLOPs per
    instruction; traffic = the bytes' ``.peak_sustained`` × that unit's clock (median over
    the kernels). Each level's roof is the peak of the first byte source
    (``metrics.BYTE_SOURCES``) the report holds both the bytes and the peak of, so a roof
    and the bytes measured against it are the same quantity."""
    arch = m.architecture_for(cc) if cc else None  # unknown: no Tensor peaks, never guessed
    medians: dict[str, float] = {}  # each column's median once (a clock is asked for by every peak)

    def median(column: str) -> float:
        if column not in medians:
            medians[column] = _median(raw, column)
        return medians[column]

    def clock(unit: str) -> float:
        column = m.UNIT_CLOCKS.get(unit)
        return median(column) if column else float("nan")

    def peak(metric: str) -> float:
        for spelling in m.spellings(metric):
            value = median(f"{spelling}.peak_sustained") * clock(m.unit_of(spelling))
            if np.isfinite(value):
                return value
        return float("nan")

    found = []
    for precision, terms in m.CUDA_CORE_TERMS.items():
        fma_metric, flops_per_fma = terms[-1]
        found.append((precision, peak(fma_metric) * flops_per_fma))
    for term in arch.tensor if arch else ():
        found.append((term.pipeline, peak(term.metric) * term.factor * term.peak_factor))
    ceilings = [
        Ceiling(f"{ROOF_LABELS[p]} (report peak)", "compute", v, "report", precision=p)
        for p, v in found
        if np.isfinite(v) and v > 0
    ]
    for level, sources in m.BYTE_SOURCES.items():
        for source in sources:
            if not source.peak or not _holds(raw, source.terms[0]):
                continue
            rate = median(source.clock) if source.clock in raw else clock(m.unit_of(source.terms[0]))
            value = median(source.peak) * source.scale * rate
            if np.isfinite(value) and value > 0:
                ceilings.append(
                    Ceiling(
                        f"{LEVEL_LABELS[level]} (report peak)",
                        "bandwidth",
                        value,
                        "report",
                        level=level,
                        extra={"peak_metric": source.peak, "bytes": source.what},
                    )
                )
                break
    return ceilings


def _holds(raw: pd.DataFrame, count: str) -> bool:
    """The report has ``count`` or one of the rates it is derived from."""
    return any(name in raw and raw[name].notna().any() for name in (count, *m.rate_sources(count)[::2]))


# Report peaks that no kernel can reach: ncu's peak for the byte counters rooftui reads
# is the rate of their tag stage, not what loads can stream. Compared on the H200 with
# `rooftui measure` (sample_data/ceilings/h200.json) and ncu's own peaks
# (sample_data/known_answer/known_answer_roofline.*, sample_data/deepcam/*):
# tests/core/test_ceiling_sources.py pins these ratios.
UNREACHABLE_REPORT_PEAKS = {
    "l1": (
        "ncu's l1tex__t_bytes peak is the L1TEX tag stage (512 B/cycle/SM); loads stream "
        "at most 128 B/cycle/SM (H200: 32.1 TB/s measured, 0.24 of this peak)"
    ),
    "l2": (
        "ncu's lts__t_bytes peak is the L2 tag stage of every slice (9,024 B/cycle on the "
        "H200); loads reach 0.58 of it (H200: 8.98 of 15.4 TB/s measured)"
    ),
}
# The peaks of tag-stage counts (what UNREACHABLE_REPORT_PEAKS is about); ncu's
# hierarchical-roofline peaks and DRAM's are the roofs ncu draws itself.
TAG_STAGE_PEAKS = frozenset(
    f"{metric}.peak_sustained"
    for metric in ("l1tex__t_bytes.sum", "l1tex__t_sectors.sum", "lts__t_bytes.sum", "lts__t_sectors.sum")
)
MISSING_ROOF_FIX = "pass --ceilings or run rooftui measure"


def choose_ceilings(
    raw: pd.DataFrame,
    device: str,
    cc: str,
    given: CeilingSet | None,
    find_measured: bool = True,
    notes: list[str] | None = None,
) -> CeilingSet:
    """The ceilings for one device's kernels, each roof from the first source that has it:

    1. ``given`` (``--ceilings FILE``);
    2. what ``rooftui measure`` saved for this GPU model (user data directory);
    3. measurements bundled with rooftui for this GPU model;
    4. measurements published for exactly this GPU model (``model.published``);
    5. the report's own peaks (those no kernel can reach carry a caveat);
    6. the datasheet.

    2 and 3 are skipped with ``find_measured=False``. Each ceiling is stamped with its
    source, file and measurement time; problems reading a saved file go to ``notes``.
    """
    sources: list[tuple[str, CeilingSet | None]] = [("file", given)]
    if find_measured:
        try:
            saved = find_saved(device, cc)
        except CeilingsError as err:
            saved = None
            if notes is not None:
                notes.append(f"skipped the saved ceilings: {err}")
        sources += [("saved", saved), ("bundled", find_bundled(device, cc))]
    sources.append(("published", published_ceilings(device, cc)))
    peaks = report_ceilings(raw, device, cc)
    sources.append(("report", CeilingSet(Device(device, cc), tuple(peaks), source="report peaks")))
    datasheet = spec_ceilings(device, cc)
    sources.append(("datasheet", datasheet))
    chosen: dict[tuple[str, str], Ceiling] = {}
    for source, found in sources:
        if found is None:
            continue
        for ceiling in found.ceilings:
            key = (ceiling.kind, ceiling.precision or ceiling.level or "")
            if key not in chosen:
                chosen[key] = _stamped(ceiling, source, found)
    lacking = {("bandwidth", "hbm"), ("compute", "fp32")} - set(chosen)
    if datasheet is None and device and lacking and notes is not None:
        notes.append(datasheet_note(device))
    methods = sorted({c.method for c in chosen.values()})
    clocks = {}
    if m.SM_CLOCK in raw and raw[m.SM_CLOCK].notna().any():
        clocks["sm"] = float(np.nanmedian(raw[m.SM_CLOCK].astype(float)))
    return CeilingSet(
        Device(device, cc, clocks_hz=clocks),
        tuple(chosen.values()),
        source="+".join(methods),
        instruction_roofs=chosen_instruction_roofs(sources, chosen),
    )


def _stamped(ceiling: Ceiling, source: str, found: CeilingSet) -> Ceiling:
    caveat = ""
    if (
        source == "report"
        and ceiling.kind == "bandwidth"
        and ceiling.extra.get("peak_metric") in TAG_STAGE_PEAKS
    ):
        caveat = UNREACHABLE_REPORT_PEAKS.get(ceiling.level or "", "")
    name = f"{ceiling.label} (report peak, unreachable)" if caveat else ceiling.name
    measured_at = found.measured_at if ceiling.method == "empirical" else None
    return replace(
        ceiling, name=name, source=source, origin=found.origin, measured_at=measured_at, caveat=caveat
    )


def source_text(ceiling: Ceiling) -> str:
    """Where a roof came from, in a few words: "bundled measurement, 2026-11-29"."""
    text = SOURCE_LABELS.get(ceiling.source, ceiling.method)
    if ceiling.extra.get("datasheet"):
        text += f" {ceiling.extra['datasheet']}"
    if ceiling.extra.get("published"):
        text += f" ({ceiling.extra['published']})"
    if ceiling.source == "file" and ceiling.origin:
        text = Path(ceiling.origin).name
    if ceiling.measured_at:
        text += f", measured {ceiling.measured_at[:10]}"
    if ceiling.caveat:
        text += ", unreachable"
    return text


@dataclass(frozen=True)
class MissingRoof:
    """A roof the run has no source for; bounds at that level are unknown."""

    device: str
    kind: str  # "bandwidth" | "compute"
    roof: str  # "l2" or a pipeline name
    message: str  # "no L2 roof: pass --ceilings or run rooftui measure"

    def to_dict(self) -> dict[str, str]:
        return {"device": self.device, "kind": self.kind, "roof": self.roof, "message": self.message}


def missing_roofs(
    device: str, ceilings: CeilingSet, pipelines: Iterable[str], collected: Iterable[str] = ()
) -> list[MissingRoof]:
    """The memory levels without a bandwidth roof, and the ``pipelines`` (those the
    device's kernels use) without a compute roof. An optional level (SMEM) needs a roof
    only where it is in ``collected``, the levels some kernel has bytes at."""
    wanted = [lv for lv in LEVELS if lv not in OPTIONAL_LEVELS or lv in set(collected)]
    missing = [
        MissingRoof(device, "bandwidth", level, f"no {LEVEL_LABELS[level]} roof: {MISSING_ROOF_FIX}")
        for level in wanted
        if ceilings.bandwidth(level) is None
    ]
    for pipeline in pipelines:
        if pipeline in PIPELINE_LABELS and pipeline != "none" and ceilings.compute(pipeline) is None:
            missing.append(
                MissingRoof(
                    device, "compute", pipeline, f"no {PIPELINE_LABELS[pipeline]} roof: {MISSING_ROOF_FIX}"
                )
            )
    return missing
