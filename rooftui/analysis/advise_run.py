"""``advise(run)``: the advice layer's façade: achievable times, roll-ups, the step budget
and the findings of one loaded run, per GPU, and their JSON form (``docs/advise.md``)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from rooftui.analysis import Run
from rooftui.analysis.advise import LaunchFloor, launch_floor_of, nvtx_tree, roll_up, with_advice
from rooftui.analysis.advise_budget import StepBudget, TraceStep, step_budget
from rooftui.analysis.advise_findings import Finding, findings, verdict

ROLL_UPS = ("kernel", "operation_class", "phase", "nvtx")
SCHEMA = "rooftui.advise/1"


@dataclass
class Advice:
    """Everything ``rooftui advise`` shows."""

    launches: pd.DataFrame  # the kernel table with advise's columns
    floors: dict[str, LaunchFloor]  # by device
    budgets: dict[str, StepBudget]  # by device
    findings: list[Finding]  # all devices, largest gain first
    steps_in_report: int

    def roll_up(self, by: str) -> pd.DataFrame:
        """One of ``ROLL_UPS`` ("kernel" groups launches by name; "nvtx" is a tree)."""
        if by == "nvtx":
            return nvtx_tree(self.launches)
        return roll_up(self.launches, "name" if by == "kernel" else by)

    @property
    def step_s(self) -> float:
        return max(b.step_s for b in self.budgets.values())

    def kernel_verdicts(self) -> pd.Series:
        """Each launch's verdict (``advise_findings.verdict``), by kernel-table index."""
        # Verdicts differ only by limit, whole percent and reason: word each combination once.
        keys = pd.DataFrame(
            {
                "limit": self.launches["limit"].astype(str),
                "percent": (self.launches["sol_fraction"] * 100).round(),
                "reason": self.launches["advise_reason"].astype(str),
            }
        )
        unique = keys.drop_duplicates()
        words = [
            verdict(limit, percent / 100, reason) for limit, percent, reason in unique.itertuples(index=False)
        ]
        worded = unique.assign(verdict=words)
        return keys.merge(worded, how="left", on=["limit", "percent", "reason"])["verdict"].set_axis(
            keys.index
        )

    def to_json(self, top: int = 10) -> dict[str, object]:
        from rooftui.views.formats import json_safe

        groups = {}
        for by in ROLL_UPS:
            table = self.roll_up(by).head(50 if by != "nvtx" else None)
            groups[by] = [{"group": str(key), **row} for key, row in table.to_dict("index").items()]
        return json_safe(
            {
                "schema": SCHEMA,
                "steps_in_report": self.steps_in_report,
                "launch_floor": {device: floor.to_dict() for device, floor in self.floors.items()},
                "budget": {device: budget.to_dict() for device, budget in self.budgets.items()},
                "findings": [f.to_dict(self.step_s) for f in self.findings[:top]],
                "roll_ups": groups,
            }
        )


def advise(run: Run, trace: TraceStep | None = None, steps_in_report: int = 1) -> Advice:
    """Advice for a loaded run. ``trace``: the step as a PyTorch trace measured it;
    ``steps_in_report``: how many training steps the report holds (gains are per step)."""
    floors = {device: launch_floor_of(ceilings) for device, ceilings in run.ceilings_by_device.items()}
    launches = with_advice(run.kernels, run.ceilings_by_device, floors)
    budgets, found = {}, []
    for device, index in launches.groupby("device", sort=False).groups.items():
        label = str(device) if device in floors else next(iter(floors))
        mine = launches.loc[index]
        budgets[label] = step_budget(mine, floors[label], trace, steps_in_report)
        found += findings(mine, run.ceilings_for(str(device)), floors[label], steps_in_report)
    return Advice(launches, floors, budgets, sorted(found, key=lambda f: -f.gain_s), steps_in_report)
