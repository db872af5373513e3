"""The step budget: from the measured step down to its speed-of-light bound, as a waterfall.

    measured step            a PyTorch trace's mean step (--trace), else the report's kernel time
  - GPU idle / host-bound    the trace's GPU idle per step (``rooftui timeline``); not collected
                             without a trace
  - trace vs report          the trace's busy time minus the report's kernel time (different
                             runs, and ncu serialises kernels; negative when ncu's is longer),
                             so the bars add up
    communication            NCCL kernels (``ranks``): kept, no roof bounds them
    no bound known           launches whose gain is unknown: kept at their measured time
  - below the roofs, per operation class: the gains (``advise.achievable_times``)
    at the roofs             the achievable time of launches a roof binds
    launch floors            the achievable time of launches the floor binds
  = speed-of-light step      communication + no bound + at the roofs + launch floors

It is a bound, never a forecast. It never promises less than the launches' floors,
nor less than launches × the back-to-back interval (one stream runs one launch at a time).
The analysis layer knows no trace format: the command reads the trace and passes
``TraceStep``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from rooftui.analysis.advise import FLOOR_LIMIT, LaunchFloor, roll_up
from rooftui.analysis.operations import COMMUNICATION
from rooftui.views.formats import seconds

TOTAL, REMOVED, KEPT, ADJUST = "total", "removed", "kept", "adjust"


@dataclass(frozen=True)
class TraceStep:
    """What a PyTorch trace says about one step (mean over its steps)."""

    step_s: float
    idle_s: float  # GPU idle per step
    steps: int
    source: str  # "trace.json.gz: 4 steps (ProfilerStep markers)"


@dataclass(frozen=True)
class Bar:
    """One bar of the waterfall; ``seconds`` is None when not collected (``built_from`` says why)."""

    label: str
    kind: str  # TOTAL, REMOVED (taken off the step), KEPT (part of the bound), ADJUST
    seconds: float | None
    built_from: str

    def to_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "kind": self.kind,
            "seconds": self.seconds,
            "built_from": self.built_from,
        }


@dataclass(frozen=True)
class StepBudget:
    bars: list[Bar]
    step_s: float  # the measured step (first bar)
    speed_of_light_s: float  # the last bar: a lower bound on the step
    floor_sum_s: float  # what the floors alone add up to; speed_of_light_s is never below it
    launches: int

    @property
    def gain_s(self) -> float:
        return self.step_s - self.speed_of_light_s

    def to_dict(self) -> dict[str, object]:
        return {
            "step_s": self.step_s,
            "speed_of_light_s": self.speed_of_light_s,
            "gain_s": self.gain_s,
            "floor_sum_s": self.floor_sum_s,
            "launches": self.launches,
            "is_bound": True,
            "bars": [bar.to_dict() for bar in self.bars],
        }


def plural(count: float, noun: str) -> str:
    """ "1 launch", "3 launches", "2.5 launches" (per step)."""
    suffix = "es" if noun.endswith(("h", "s")) else "s"
    return f"{count:g} {noun}" if count == 1 else f"{count:g} {noun}{suffix}"


def step_budget(
    launches: pd.DataFrame, floor: LaunchFloor, trace: TraceStep | None = None, steps_in_report: int = 1
) -> StepBudget:
    """The waterfall for the launches of ``steps_in_report`` steps (per step), with
    ``advise.with_advice``'s columns."""
    per_step = 1.0 / steps_in_report
    kernel_s = float(launches["time_s"].sum()) * per_step
    communication = launches["operation_class"] == COMMUNICATION
    known = launches["gain_s"].notna() & ~communication
    floored = known & (launches["limit"] == FLOOR_LIMIT)
    unknown = ~known & ~communication
    n = len(launches) * per_step
    bars: list[Bar] = []

    def add(label: str, kind: str, seconds_: float | None, built_from: str) -> None:
        bars.append(Bar(label, kind, seconds_, built_from))

    def total(mask: pd.Series, column: str = "time_s") -> float:
        return float(launches.loc[mask, column].sum()) * per_step

    if trace is None:
        step_s = kernel_s
        add(
            "measured step",
            TOTAL,
            step_s,
            f"sum of the report's kernel durations (gpu__time_duration.sum), {plural(n, 'launch')}; "
            "no --trace, so GPU idle and host time are not in it",
        )
        add("GPU idle / host-bound", REMOVED, None, "not collected: pass --trace (a PyTorch trace)")
    else:
        step_s = trace.step_s
        add("measured step", TOTAL, step_s, f"mean step of {trace.source}")
        add(
            "GPU idle / host-bound",
            REMOVED,
            trace.idle_s,
            "GPU idle per step in the trace (rooftui timeline says where and why)",
        )
        add(
            "trace vs report kernel time",
            ADJUST,
            step_s - trace.idle_s - kernel_s,
            "the trace's busy time minus the report's kernel time (another run; ncu serialises kernels)",
        )
    comm_s = total(communication)
    add(
        "communication",
        KEPT,
        comm_s,
        f"{plural(int(communication.sum()), 'NCCL launch')}, kept at their time (no roof bounds them)"
        if communication.any()
        else "no communication kernel in the report",
    )
    unknown_s = total(unknown)
    reasons = launches.loc[unknown, "advise_reason"].value_counts()
    add(
        "no bound known",
        KEPT,
        unknown_s,
        "; ".join(f"{plural(int(count), 'launch')}: {why}" for why, count in reasons.items())
        or "every launch has a bound",
    )
    by_class = roll_up(launches[known], "operation_class")
    for rank, (name, row) in enumerate(by_class.iterrows()):
        how = f"{plural(int(row['launches']), 'launch')}: time minus achievable time"
        if rank == 0:
            how += (
                " (the largest of bytes/bandwidth per memory level and FLOPs/peak per pipeline, "
                "and where collected warp instructions/issue rate, shared wavefronts and "
                "transactions at their rates; at least the launch floor)"
            )
        add(f"below the roofs: {name}", REMOVED, float(row["gain_s"]) * per_step, how)
    roof_s = total(known & ~floored, "achievable_s")
    floor_s = total(floored, "achievable_s")
    add(
        "at the roofs",
        KEPT,
        roof_s,
        f"{plural(int((known & ~floored).sum()), 'launch')} at their binding roof",
    )
    add(
        "launch floors",
        KEPT,
        floor_s,
        f"{plural(int(floored.sum()), 'launch')} at the floor, {seconds(floor.per_launch_s)} each "
        f"(an empty kernel under ncu), {floor.source}"
        if floor.measured
        else f"no floor: {floor.source}",
    )
    floor_sum = max((floor.per_launch_s or 0.0) * n, (floor.interval_s or 0.0) * n)
    sol = comm_s + unknown_s + roof_s + floor_s
    built = "communication + no bound known + at the roofs + launch floors: a bound, not a forecast"
    if sol < floor_sum:
        built += (
            f"; raised to {plural(n, 'launch')} × the back-to-back interval "
            f"({seconds(floor.interval_s)}), below which one stream cannot run them"
        )
        sol = floor_sum
    add("speed-of-light step", TOTAL, sol, built)
    return StepBudget(bars, step_s, sol, floor_sum, len(launches))
