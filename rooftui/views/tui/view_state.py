"""What the explorer shows, as plain data: no Textual, so benchmarks and tests can
drive it directly.

A ``ViewState`` holds the loaded run and the user's choices (grouped or single
invocations, filter, sort, levels and pipelines on the roofline) and answers
"which rows, in which order" with the pure helpers of ``rooftui.analysis.filters``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rooftui.analysis import instruction_roofline, zero_ai
from rooftui.analysis.filters import (
    KernelFilter,
    Totals,
    filter_positions,
    sort_keys,
    sort_positions,
    totals,
)
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import FLOAT_PIPELINES, LEVELS
from rooftui.views.text import printable, shorten
from rooftui.views.tui.instruction_figure import PLOT_COLUMNS as INSTRUCTION_PLOT_COLUMNS
from rooftui.views.tui.roofline_model import kernel_tags
from rooftui.views.tui.table_columns import DEFAULT_SORT, ranks_of

if TYPE_CHECKING:
    from rooftui.analysis import Run


def with_display_columns(
    frame: pd.DataFrame, run_time_s: float, rank_time_s: dict[str, float] | None = None
) -> pd.DataFrame:
    """``frame`` plus ``count`` (1 per invocation unless grouped), ``time_share`` and
    ``zero_ai_cell`` (``zero_ai_cells``). With ``rank_time_s`` (a run of several ranks:
    each rank's summed kernel time) a row's time share is of its own rank's time, as
    ``rooftui summary``'s %rank: filtered to one rank, the shares add up to 100%."""
    share = frame["time_s"] / run_time_s if run_time_s else 0.0
    if rank_time_s:
        share = frame["time_s"] / frame["rank"].astype(str).map(rank_time_s).replace(0.0, float("nan"))
    extra: dict[str, Any] = {"time_share": share}
    if "count" not in frame.columns:  # a row joined per kernel name stands for its launches
        extra["count"] = frame["launches"] if "launches" in frame.columns else 1
    extra["zero_ai_cell"] = zero_ai_cells(frame)
    return frame.assign(**extra)


def rank_times(kernels: pd.DataFrame) -> dict[str, float] | None:
    """Each rank's summed kernel time, for a run of several ranks; else None."""
    if len(ranks_of(kernels)) < 2:
        return None
    times: dict[str, float] = kernels.groupby(kernels["rank"].astype(str))["time_s"].sum().to_dict()
    return times


def zero_ai_cells(frame: pd.DataFrame) -> list[str]:
    """The table's 0-AI cell per row, as every view counts zero-AI (``analysis.zero_ai``):
    "comm" for an NCCL kernel (it moves data; not a compute kernel without work); a
    launch "yes" or blank; a kernel grouped by name its zero-AI launches: "18" when all
    18 are, "13/18" when 13 of 18 are (a mixed group, which the "0-AI: only" filter keeps)."""
    zero, counts = zero_ai.launches(frame), zero_ai.launch_counts(frame)
    grouped = zero_ai.LAUNCHES in frame.columns
    comm = frame["communication"].fillna(False).to_numpy(dtype=bool) if "communication" in frame else None
    if grouped:
        cells = [zero_ai.share_text(int(z), int(n)) for z, n in zip(zero, counts)]
    else:
        cells = ["yes" if z > 0 else "" for z in zero]
    if comm is not None:
        cells = ["comm" if is_comm else cell for cell, is_comm in zip(cells, comm)]
    return cells


@dataclass
class LoadedRun:
    """The run as the explorer needs it: both row granularities, display-ready."""

    invocations: pd.DataFrame
    grouped: pd.DataFrame
    ceilings: CeilingSet
    notes: list[str]
    source: Run  # what load_run returned, for screens that want more (timeline)

    @classmethod
    def from_run(cls, run: Run) -> LoadedRun:
        """Prepare ``run`` (a ``rooftui.analysis.Run``) once, off the UI thread."""
        from rooftui.analysis import grouped_kernels

        kernels = run.kernels.reset_index(drop=True)
        # Row labels are positions in these frames: the table keeps its cursor
        # on a kernel across sorts and filters by label.
        grouped = grouped_kernels(run).reset_index(drop=True)
        from rooftui.views.advise import with_opportunity  # gain, speed of light, verdict per row

        kernels, grouped = with_opportunity(run, kernels, grouped)
        kernels, grouped = (
            instruction_roofline.with_bounds(run, kernels),
            instruction_roofline.with_bounds(run, grouped),
        )
        total = float(kernels["time_s"].sum())
        ranks = rank_times(kernels)
        return cls(
            invocations=with_display_columns(kernels, total, ranks),
            grouped=with_display_columns(grouped, total, ranks),
            ceilings=run.ceilings,
            notes=list(run.notes),
            source=run,
        )

    def launch_metrics(self, row: pd.Series) -> pd.Series | None:
        """The ncu metrics, as read from its report, of the launch behind ``row``
        (a grouped row stands for its heaviest launch); ``None`` if not found."""
        reports = getattr(self.source, "reports", None) or []
        by_path = {str(report.path): report for report in reports}
        report = by_path.get(str(row.get("report", "")))
        if report is None or "ncu_id" not in row.index:
            return None
        launches = report.kernels
        match = launches[launches["ncu_id"] == row["ncu_id"]]
        if match.empty:
            return None
        # ncu names its metrics with dots ("dram__bytes.sum"); the rest is identity.
        metrics = match.iloc[0][[c for c in launches.columns if "." in c]]
        return metrics.dropna()


def what_is_open(run: LoadedRun, ceilings_files: object, sample: bool, width: int) -> str:
    """The header line: which reports, on which GPUs, against which ceilings, and
    whether it is the bundled sample, as much of it as fits ``width``."""
    names = [printable(Path(str(report.path)).name) for report in getattr(run.source, "reports", [])]
    reports = ", ".join(names[:2]) + (f" + {len(names) - 2} more" if len(names) > 2 else "")
    if sample:
        reports += " (bundled sample)"
    by_device = getattr(run.source, "ceilings_by_device", None) or {run.ceilings.device.name: run.ceilings}
    gpus = ", ".join(printable(device) for device in by_device)
    sources = ", ".join(dict.fromkeys(ceilings.source or "unknown" for ceilings in by_device.values()))
    ceilings = f"ceilings: {sources}"
    files = list(ceilings_files) if isinstance(ceilings_files, (list, tuple)) else [ceilings_files]
    names = [printable(Path(str(file)).name) for file in files if file]
    if names:
        ceilings += f" from {', '.join(names)}"
    candidates = [
        f"{reports} · {gpus} · {ceilings}",
        f"{reports} · {gpus} · ceilings: {sources}",
        f"{reports} · {gpus.replace('NVIDIA ', '')} · ceilings: {sources}",
        f"{reports} · ceilings: {sources}",
    ]
    fits = next((line for line in candidates if len(line) <= width), candidates[-1])
    return shorten(fits, width)


# What the roofline and the totals read: taking a few columns of 100k rows is
# much cheaper than taking every column.
PLOT_COLUMNS = [
    "time_s",
    "flops",
    "flop_rate",
    *(f"ai_{level}" for level in LEVELS),
    "l1_bypassed",
    "device",
    "cc",
]
PLOT_COLUMNS += INSTRUCTION_PLOT_COLUMNS  # the instruction roofline's (key i)
# And what the legend's "not plotted" counts read (``roofline_model.not_plotted``).
PLOT_COLUMNS += ["zero_ai", "zero_ai_launches", "count", "ops_tensor_int8"]
TOTAL_COLUMNS = ["count", "time_s", "flops", "zero_ai", "zero_ai_launches", "zero_ai_time_s"]


@dataclass
class ViewState:
    run: LoadedRun
    grouped: bool = True
    spec: KernelFilter = field(default_factory=KernelFilter)
    sort_column: str = DEFAULT_SORT  # gain, most first (table_columns)
    sort_descending: bool = True
    levels: list[str] = field(default_factory=lambda: list(LEVELS))
    hidden_pipelines: set[str] = field(default_factory=set)
    instruction: bool = False  # the instruction roofline instead of the FLOP one (key i)
    # Per row granularity: sort keys and factorized text columns, computed once.
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def all_rows(self) -> pd.DataFrame:
        return self.run.grouped if self.grouped else self.run.invocations

    def _cached(self, what: str, column: str, make):
        key = (self.grouped, what, column)
        if key not in self._cache:
            self._cache[key] = make(self.all_rows[column])
        return self._cache[key]

    def positions(self) -> np.ndarray:
        """Positions in ``all_rows`` of the filtered rows, in the chosen order."""
        factorized = self._cache.setdefault((self.grouped, "factorized"), {})
        kept = filter_positions(self.all_rows, self.spec, factorized)
        keys = self._cached("sort keys", self.sort_column, sort_keys)
        return sort_positions(keys, kept, self.sort_descending)

    def rows(self, positions: np.ndarray | None = None) -> pd.DataFrame:
        """The filtered rows in the chosen order, every column."""
        return self.all_rows.iloc[self.positions() if positions is None else positions]

    def _array(self, column: str) -> np.ndarray:
        return self._cached("array", column, lambda values: values.to_numpy())

    def column_values(self, column: str, positions: np.ndarray) -> list[Any]:
        """``column`` of the rows at ``positions``, as Python values: a page of the table
        is formatted a column at a time (taking whole rows of a wide frame is slow)."""
        values: list[Any] = self._array(column)[positions].tolist()
        return values

    def _columns(self, columns: list[str], positions: np.ndarray) -> pd.DataFrame:
        # Gathering a few NumPy columns beats pandas' take across every column.
        return pd.DataFrame({c: self._array(c)[positions] for c in columns})

    def plot_rows(self, positions: np.ndarray) -> pd.DataFrame:
        """What the roofline needs of the rows at ``positions``, labelled by position
        in ``all_rows`` (so a point clicked on the plot names its table row)."""
        columns = [c for c in PLOT_COLUMNS if c in self.all_rows.columns]
        return self._columns(columns, positions).set_axis(positions)

    def tags(self) -> dict[int, str]:
        """Position in ``all_rows`` -> tag ("1".."5") of the run's five heaviest plotted
        kernels (``roofline_model.kernel_tags``): the table shows them whatever the
        filter, the size or the plot's room, and ``g`` keeps each on its kernel."""
        key = (self.grouped, "tags")
        if key not in self._cache:
            tags = kernel_tags(self.run.grouped, self.run.invocations, self.grouped)
            self._cache[key] = {int(label): tag for label, tag in tags.items()}
        tags_by_position: dict[int, str] = self._cache[key]
        return tags_by_position

    def totals(self, positions: np.ndarray) -> Totals:
        return totals(self._columns([c for c in TOTAL_COLUMNS if c in self.all_rows], positions))

    def present_pipelines(self) -> list[str]:
        """Floating-point pipelines some kernel of the run uses, in display order."""
        used = set(self.run.invocations["pipeline"].unique())
        return [p for p in FLOAT_PIPELINES if p in used]

    def shown_pipelines(self) -> list[str]:
        return [p for p in self.present_pipelines() if p not in self.hidden_pipelines]

    def toggle_level(self, level: str) -> None:
        if level in self.levels:
            self.levels.remove(level)
        else:
            self.levels = [lv for lv in LEVELS if lv in self.levels or lv == level]

    def choices(self) -> tuple[list[str], list[str], list[str]]:
        """Pipelines, phases and bound values present, for the filter bar."""
        frame = self.run.invocations
        present = set(frame["pipeline"])
        pipelines = [p for p in (*FLOAT_PIPELINES, "tensor_int8", "none") if p in present]
        phases = sorted(str(p) for p in frame["phase"].dropna().unique() if str(p))
        bounds = sorted(str(b) for b in frame["bound"].dropna().unique())
        return pipelines, phases, bounds
