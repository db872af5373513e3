"""Training phases from NVTX ranges, with inference for unlabelled launches.

A launch whose NVTX ranges name a phase gets it (the innermost matching range
wins). PyTorch launches backward kernels from its autograd thread, which has no
NVTX range, so most backward kernels arrive unlabelled. An unlabelled stretch of
launches (in launch order) between labelled ones is given:
  * the phase on both sides, when they agree;
  * else the configured phase that lies strictly between them (forward ...
    optimizer -> backward);
  * else the phase before it (backward ... optimizer -> backward: the autograd
    kernels follow the main thread's first backward launches);
  * before the first label, the first label's phase; after the last, the last's.
Such launches are marked ``phase_inferred``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from rooftui.errors import InputError
from rooftui.model.frames import map_unique

UNLABELLED = ""


@dataclass(frozen=True)
class PhaseConfig:
    """Phases in training order, each with the NVTX range pattern that names it."""

    phases: tuple[tuple[str, str], ...] = (
        ("forward", r"forward|\bfwd\b"),
        ("backward", r"backward|\bbwd\b|autograd"),
        ("optimizer", r"optimi[sz]er|optim\b|\bstep\b|adam|sgd"),
    )
    infer: bool = True

    @classmethod
    def from_options(cls, specs: tuple[str, ...], infer: bool = True) -> PhaseConfig:
        """``("forward=fwd|forward", "loss=loss")`` -> a config; empty keeps the defaults."""
        if not specs:
            return cls(infer=infer)
        phases = []
        for spec in specs:
            name, _, pattern = spec.partition("=")
            pattern = pattern.strip() or re.escape(name.strip())
            try:
                re.compile(pattern)
            except re.error as err:
                raise InputError(
                    f"--phase {spec}: not a regular expression ({err})",
                    None,
                    "write it as NAME=REGEX, e.g. --phase 'forward=fwd|forward'",
                ) from None
            phases.append((name.strip(), pattern))
        return cls(tuple(phases), infer)

    def phase_of(self, nvtx: str) -> str:
        """The phase named by a launch's NVTX ranges (innermost first), or ""."""
        for range_name in reversed(nvtx.split(" > ")) if nvtx else ():
            for phase, pattern in self.phases:
                if re.search(pattern, range_name, re.IGNORECASE):
                    return phase
        return UNLABELLED


def assign_phases(table: pd.DataFrame, config: PhaseConfig) -> pd.DataFrame:
    """Add ``phase`` and ``phase_inferred``; launch order is ncu's ID order per report."""
    labelled = map_unique(table["nvtx"], config.phase_of)
    table["phase"] = labelled
    table["phase_inferred"] = False
    if not config.infer or not (labelled == UNLABELLED).any():
        return table
    order = [name for name, _ in config.phases]
    ordered = table[["report", "ncu_id"]].assign(label=labelled.replace(UNLABELLED, None))
    ordered = ordered.sort_values(["report", "ncu_id"], kind="stable")
    by_report = ordered.groupby("report", sort=False)["label"]
    before = by_report.ffill()
    after = by_report.bfill()
    gap = ordered["label"].isna() & (before.notna() | after.notna())
    pairs = pd.DataFrame({"before": before[gap], "after": after[gap]})
    choice = {key: _between(*key, order) for key in set(zip(pairs["before"], pairs["after"]))}
    inferred = [choice[key] for key in zip(pairs["before"], pairs["after"])]
    table.loc[pairs.index, "phase"] = inferred
    table.loc[pairs.index, "phase_inferred"] = True
    return table


def _between(before: str | None, after: str | None, order: list[str]) -> str:
    before = before if isinstance(before, str) else None
    after = after if isinstance(after, str) else None
    if before is None:
        return after or UNLABELLED
    if after is None or before == after:
        return before
    if before in order and after in order:
        lo, hi = order.index(before), order.index(after)
        if hi - lo > 1:
            return order[lo + 1]
    return before
