"""What the explorer shows, as plain data: no Textual, so benchmarks and tests can
drive it directly.

A ``ViewState`` holds the loaded run and the user's choices (grouped or single
invocations, filter, sort, levels and pipelines on the roofline) and answers
"which rows, in which order" with the pure helpers of ``rooftui.analysis.filters``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from rooftui.analysis.filters import KernelFilter, Totals, apply_filter, sort_rows, totals
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import FLOAT_PIPELINES, LEVELS


def with_display_columns(frame: pd.DataFrame, run_time_s: float) -> pd.DataFrame:
    """``frame`` plus ``count`` (1 per invocation unless grouped) and ``time_share``."""
    extra: dict[str, Any] = {"time_share": frame["time_s"] / run_time_s if run_time_s else 0.0}
    if "count" not in frame.columns:
        extra["count"] = 1
    return frame.assign(**extra)


@dataclass
class LoadedRun:
    """The run as the explorer needs it: both row granularities, display-ready."""

    invocations: pd.DataFrame
    grouped: pd.DataFrame
    ceilings: CeilingSet
    notes: list[str]
    source: Any  # what load_run returned, for screens that want more (timeline)

    @classmethod
    def from_run(cls, run: Any, group_by_name) -> LoadedRun:
        """Prepare ``run`` (anything with .kernels, .ceilings, .notes) once, off the UI thread."""
        kernels = run.kernels
        # Stable row labels: the invocation id, or the kernel name when grouped.
        invocations = kernels.set_index(kernels["id"].to_numpy(), drop=False)
        grouped = group_by_name(kernels)
        grouped = grouped.set_index(grouped["name"].to_numpy(), drop=False)
        total = float(kernels["time_s"].sum())
        return cls(
            invocations=with_display_columns(invocations, total),
            grouped=with_display_columns(grouped, total),
            ceilings=run.ceilings,
            notes=list(getattr(run, "notes", [])),
            source=run,
        )


@dataclass
class ViewState:
    run: LoadedRun
    grouped: bool = True
    spec: KernelFilter = field(default_factory=KernelFilter)
    sort_column: str = "time_s"
    sort_descending: bool = True
    levels: list[str] = field(default_factory=lambda: list(LEVELS))
    hidden_pipelines: set[str] = field(default_factory=set)

    @property
    def all_rows(self) -> pd.DataFrame:
        return self.run.grouped if self.grouped else self.run.invocations

    def rows(self) -> pd.DataFrame:
        """The filtered rows, in the chosen order."""
        kept = apply_filter(self.all_rows, self.spec)
        return sort_rows(kept, self.sort_column, self.sort_descending)

    def totals(self, rows: pd.DataFrame) -> Totals:
        return totals(rows)

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
        pipelines = [
            p for p in (*FLOAT_PIPELINES, "tensor_int8", "none") if p in set(frame["pipeline"])
        ]
        phases = sorted(str(p) for p in frame["phase"].dropna().unique())
        bounds = sorted(str(b) for b in frame["bound"].dropna().unique())
        return pipelines, phases, bounds
