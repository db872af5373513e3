"""The one entry point the views use: ``load_run(paths) -> Run``.

Reads every report, builds the kernel table, picks ceilings per device, and adds
bounds and phases. Each step lives in its own module; this one only wires them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.analysis.ceilings import choose_ceilings
from rooftui.analysis.phases import PhaseConfig, assign_phases
from rooftui.analysis.roofline import add_bounds
from rooftui.errors import InputError, MissingMetricsError
from rooftui.ingest import read_report
from rooftui.ingest.ceilings import load_ceilings
from rooftui.ingest.report import RawReport
from rooftui.model import metrics as m
from rooftui.model.ceilings import CeilingSet
from rooftui.model.kernel_table import build_kernel_table, register_move_notes

Progress = Callable[[int, int, str], None]


@dataclass
class Run:
    """Everything loaded from one or more reports."""

    kernels: pd.DataFrame  # the kernel table, one row per invocation
    ceilings_by_device: dict[str, CeilingSet]
    reports: list[RawReport]
    notes: list[str] = field(default_factory=list)
    missing_metrics: list[str] = field(default_factory=list)

    @property
    def ceilings(self) -> CeilingSet:
        """The ceilings of the first device (the only one in most runs)."""
        return next(iter(self.ceilings_by_device.values()))

    @property
    def devices(self) -> list[str]:
        return list(self.ceilings_by_device)


def load_run(
    paths: Sequence[str | Path],
    ceilings: str | Path | CeilingSet | None = None,
    phases: PhaseConfig | None = None,
    infer_phases: bool = True,
    skip_invalid: bool = False,
    progress: Progress | None = None,
) -> Run:
    """Load reports into one kernel table with bounds and phases.

    Raises InputError/MissingMetricsError/CeilingsError with a one-line message.
    """
    if not paths:
        raise InputError("no report given", None, "pass one or more .ncu-rep or ncu CSV files")
    phases = phases or PhaseConfig(infer=infer_phases)
    given = load_ceilings(ceilings) if isinstance(ceilings, (str, Path)) else ceilings
    reports, frames, notes = [], [], []
    next_id = 0
    for i, path in enumerate(paths):
        if progress:
            progress(i, len(paths), str(path))
        report = read_report(path)
        reports.append(report)
        frame = report.kernels.copy()
        frame["report"] = report.path
        frame["id"] = frame["ncu_id"].astype(int) + next_id
        next_id = int(frame["id"].max()) + 1
        frame = _check_values(frame, report, skip_invalid, notes)
        frames.append(frame)
        notes += [f"{report.path}: {note}" for note in report.notes]
    if progress:
        progress(len(paths), len(paths), "analysing")
    raw = pd.concat(frames, ignore_index=True, sort=False)
    raw["device"] = raw["device"].fillna("").astype(str)
    kernels, derivation = build_kernel_table(raw)
    if m.TIME in derivation.missing:
        raise MissingMetricsError(f"no {m.TIME} in the report(s)", ", ".join(map(str, paths)),
                                  "collect it: " + ncu_command_hint())
    missing = sorted(derivation.missing)
    if missing:
        notes.append("missing metrics (their quantities are blank): " + ", ".join(missing)
                     + ". Collect them with: " + ncu_command_hint())
    if derivation.derived:
        notes.append("derived from rates × elapsed cycles or time: " + ", ".join(sorted(derivation.derived)))
    if kernels["fp16_approximate"].any():
        notes.append(m.FP16_NOTE)
    notes.extend(register_move_notes(kernels))

    by_device: dict[str, CeilingSet] = {}
    parts = []
    for (device, cc), index in kernels.groupby(["device", "cc"], sort=False).groups.items():
        label = device or f"unnamed GPU (cc {cc})"
        if given is not None and given.device.name and device and given.device.name != device:
            notes.append(f"ceilings file is for {given.device.name}, kernels ran on {device}")
        chosen = choose_ceilings(raw.loc[index], device, cc, given)
        by_device[label] = chosen
        parts.append(add_bounds(kernels.loc[index].copy(), chosen))
        if not chosen.ceilings:
            notes.append(f"no ceilings for {label}: pass --ceilings FILE (see `rooftui measure`)")
    if len(by_device) > 1:
        notes.append("several GPUs in the input: " + ", ".join(by_device)
                     + "; each is analysed against its own ceilings")
    kernels = pd.concat(parts).sort_index()
    kernels = assign_phases(kernels, phases)
    if kernels["phase_inferred"].any():
        notes.append(f"{int(kernels['phase_inferred'].sum())} launches without an NVTX phase had "
                     "their phase inferred from launch order (--no-infer-phases turns this off)")
    return Run(kernels, by_device, reports, notes, missing)


def ncu_command_hint(cc: str = "9.0") -> str:
    """The ncu command line that collects what rooftui needs."""
    names = ",".join(m.required_metrics(m.architecture_for(cc)))
    return (f"`rooftui profile -- APP` or `ncu --nvtx --clock-control none --metrics {names} "
            "-o REPORT APP` (`rooftui metrics --ncu-command` prints it for your GPU)")


def _check_values(frame: pd.DataFrame, report: RawReport, skip: bool, notes: list[str]) -> pd.DataFrame:
    """Refuse zero or non-finite durations and infinite counts, or drop them with --skip-invalid."""
    numeric = frame.select_dtypes(include="number")
    bad_time = ~np.isfinite(frame[m.TIME]) | (frame[m.TIME] <= 0) if m.TIME in frame else None
    bad_inf = np.isinf(numeric).any(axis=1)
    bad = bad_inf if bad_time is None else (bad_time | bad_inf)
    if not bad.any():
        return frame
    first = frame.loc[bad].iloc[0]
    timing = bad_time is not None and bad_time.any()
    what = "zero, missing or non-finite duration" if timing else "infinite values"
    if not skip:
        raise InputError(f"{int(bad.sum())} kernel(s) with {what} (first: ID {int(first['ncu_id'])}, "
                         f"{str(first['kernel_name'])[:60]})", report.path,
                         "re-profile them, or pass --skip-invalid to leave them out")
    notes.append(f"{report.path}: left out {int(bad.sum())} kernel(s) with {what}")
    return frame.loc[~bad]


def grouped_kernels(run: Run) -> pd.DataFrame:
    """``group_by_name`` of the run's kernels, with bounds against each device's ceilings."""
    from rooftui.analysis.grouping import group_by_name

    groups = group_by_name(run.kernels)
    parts = []
    for (device, cc), index in groups.groupby(["device", "cc"], sort=False).groups.items():
        label = device or f"unnamed GPU (cc {cc})"
        parts.append(add_bounds(groups.loc[index].copy(), run.ceilings_by_device[label]))
    return pd.concat(parts).sort_values("time_s", ascending=False, kind="stable") if parts else groups
