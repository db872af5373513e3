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
    n = len(launches) * per_step
    bars = []
    if trace is None:
        step_s = kernel_s
        bars.append(
            Bar(
                "measured step",
                TOTAL,
                step_s,
                f"sum of the report's kernel durations (gpu__time_duration.sum), {n:g} launches; "
                "no --trace, so GPU idle and host time are not in it",
            )
        )
        bars.append(
            Bar("GPU idle / host-bound", REMOVED, None, "not collected: pass --trace (a PyTorch trace)")
        )
    else:
        step_s = trace.step_s
        bars.append(Bar("measured step", TOTAL, step_s, f"mean step of {trace.source}"))
        bars.append(
            Bar(
                "GPU idle / host-bound",
                REMOVED,
                trace.idle_s,
                "GPU idle per step in the trace (rooftui timeline says where and why)",
            )
        )
        bars.append(
            Bar(
                "trace vs report kernel time",
                ADJUST,
                step_s - trace.idle_s - kernel_s,
                "the trace's busy time minus the report's kernel time (other run; ncu serialises kernels)",
            )
        )
    comm_s = float(launches.loc[communication, "time_s"].sum()) * per_step
    bars.append(
        Bar(
            "communication",
            KEPT,
            comm_s,
            f"{int(communication.sum())} NCCL launches, kept at their time (no roof bounds them)"
            if communication.any()
            else "no communication kernel in the report",
        )
    )
    unknown = ~known & ~communication
    unknown_s = float(launches.loc[unknown, "time_s"].sum()) * per_step
    reasons = launches.loc[unknown, "advise_reason"].value_counts()
    bars.append(
        Bar(
            "no bound known",
            KEPT,
            unknown_s,
            "; ".join(f"{count} launches: {why}" for why, count in reasons.items())
            or "every launch has a bound",
        )
    )
    by_class = roll_up(launches[known], "operation_class")
    for name, row in by_class.iterrows():
        bars.append(
            Bar(
                f"below the roofs: {name}",
                REMOVED,
                float(row["gain_s"]) * per_step,
                f"{int(row['launches'])} launches, time minus achievable (max of bytes/bandwidth and "
                "FLOPs/peak over levels and pipelines, at least the launch floor)",
            )
        )
    roof_s = float(launches.loc[known & ~floored, "achievable_s"].sum()) * per_step
    floor_s = float(launches.loc[floored, "achievable_s"].sum()) * per_step
    bars.append(
        Bar("at the roofs", KEPT, roof_s, f"{int((known & ~floored).sum())} launches at their binding roof")
    )
    bars.append(
        Bar(
            "launch floors",
            KEPT,
            floor_s,
            f"{int(floored.sum())} launches at the floor: {floor.source}"
            if floor.measured
            else f"no floor: {floor.source}",
        )
    )
    floor_sum = 0.0
    if floor.per_launch_s is not None:
        floor_sum = floor.per_launch_s * n
    if floor.interval_s is not None:
        floor_sum = max(floor_sum, floor.interval_s * n)
    sol = comm_s + unknown_s + roof_s + floor_s
    built = "communication + no bound known + at the roofs + launch floors: a bound, not a forecast"
    if sol < floor_sum:
        built += (
            f"; raised to {n:g} launches × the back-to-back interval ({floor.interval_s:.3g} s), "
            "below which one stream cannot run them"
        )
        sol = floor_sum
    bars.append(Bar("speed-of-light step", TOTAL, sol, built))
    return StepBudget(bars, step_s, sol, floor_sum, len(launches))
