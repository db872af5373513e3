"""Which ceilings a run is measured against, and where each came from.

Order of preference: a ceilings file the user gives (measured by ``rooftui
measure`` or ERT); else the report's own ``*.peak_sustained`` metrics × the clock
the kernels ran at; else the datasheet table. Each ceiling keeps its ``method``
("empirical", "report", "spec") so every view can say where it came from.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rooftui.model import metrics as m
from rooftui.model.ceilings import Ceiling, CeilingSet, Device
from rooftui.model.spec import _LABELS, spec_ceilings

_LEVEL_LABELS = {"l1": "L1", "l2": "L2", "hbm": "HBM"}


def report_ceilings(raw: pd.DataFrame, device: str, cc: str) -> list[Ceiling]:
    """Peaks from the report itself: ``X.peak_sustained`` (per cycle) × the unit's clock
    (median over the kernels), × FLOPs per instruction for CUDA-core FMAs [NCU]."""
    arch = m.architecture_for(cc) if cc else None  # unknown: no Tensor peaks, never guessed

    def clock(unit: str) -> float:
        column = m.UNIT_CLOCKS.get(unit)
        if column in raw:
            return float(np.nanmedian(raw[column].astype(float)))
        return float("nan")

    def peak(metric: str) -> float:
        column = f"{metric}.peak_sustained"
        if column not in raw:
            return float("nan")
        return float(np.nanmedian(raw[column].astype(float))) * clock(metric.split("__", 1)[0])

    found = []
    for precision, terms in m.CUDA_CORE_TERMS.items():
        fma_metric, flops_per_fma = terms[-1]
        found.append((precision, peak(fma_metric) * flops_per_fma))
    for term in arch.tensor if arch else ():
        found.append((term.pipeline, peak(term.metric) * term.factor * term.peak_factor))
    ceilings = [Ceiling(f"{_LABELS[p]} (report peak)", "compute", v, "report", precision=p)
                for p, v in found if np.isfinite(v) and v > 0]
    for level, metric in m.BYTES.items():
        value = peak(metric)
        if np.isfinite(value) and value > 0:
            ceilings.append(Ceiling(f"{_LEVEL_LABELS[level]} (report peak)", "bandwidth", value,
                                    "report", level=level))
    return ceilings


def choose_ceilings(raw: pd.DataFrame, device: str, cc: str, given: CeilingSet | None) -> CeilingSet:
    """The ceilings for one device's kernels: the file's, completed by the report's
    peaks, completed by the datasheet — a roof missing from one source is taken
    from the next, each labelled with its method."""
    sources = [] if given is None else [list(given.ceilings)]
    sources.append(report_ceilings(raw, device, cc))
    spec = spec_ceilings(device, cc)
    if spec is not None:
        sources.append(list(spec.ceilings))
    chosen: dict[tuple[str, str], Ceiling] = {}
    for ceilings in sources:
        for ceiling in ceilings:
            key = (ceiling.kind, ceiling.precision or ceiling.level or "")
            chosen.setdefault(key, ceiling)
    methods = sorted({c.method for c in chosen.values()})
    clocks = {}
    if m.SM_CLOCK in raw and raw[m.SM_CLOCK].notna().any():
        clocks["sm"] = float(np.nanmedian(raw[m.SM_CLOCK].astype(float)))
    return CeilingSet(Device(device, cc, clocks_hz=clocks), tuple(chosen.values()),
                      source="+".join(methods))
