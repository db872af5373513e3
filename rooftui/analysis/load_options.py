"""How a command asked for its reports to be loaded: one value, shared by every command.

The CLI builds it from its report options (``rooftui/cli/options.py``), the TUI and
``plot`` hand it on unchanged. An option that changes loading is one field here and
one ``click.option`` line there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rooftui.model.ceilings import CeilingSet

if TYPE_CHECKING:
    from rooftui.analysis import Run
    from rooftui.ingest.parallel import Progress, Reading

# A ceilings file (rooftui's JSON or ERT's roofline.json), or ceilings already read.
Ceilings = str | Path | CeilingSet


@dataclass(frozen=True)
class LoadOptions:
    """Field names are the click parameter names of the report options, except
    ``find_measured``, which only code sets."""

    # Several: each used for the GPU it was measured on (by name, then device index).
    # Roofs they lack come from ceilings `rooftui measure` saved for the GPU model, then
    # measured ones bundled with rooftui, then the report's peaks, then the datasheet.
    ceilings: Ceilings | tuple[Ceilings, ...] | None = None
    phase_specs: tuple[str, ...] = ()  # NAME=REGEX each; none: forward, backward, optimizer
    infer_phases: bool = True
    skip_invalid: bool = False
    gpu: str | None = None  # the GPU of exports that do not say it (older ncu, summaries)
    arch: str | None = None  # the same, as sm_XY
    fp16_rule: str = "packed"  # or "paper": hadd + hmul + 2·hfma (model.metrics.FP16_RULES)
    no_cache: bool = False  # False: the report cache unless ROOFTUI_NO_CACHE is set
    find_measured: bool = True  # False: skip saved and bundled measured ceilings

    def start(self, paths: Sequence[str | Path]) -> Reading:
        """Start reading ``paths`` for a later ``load`` (a command loading two runs starts both)."""
        from rooftui.ingest.parallel import start_reading

        return start_reading(list(paths), cache=False if self.no_cache else None)

    def load(
        self,
        paths: Sequence[str | Path],
        *,
        ceilings: str | Path | None = None,
        progress: Progress | None = None,
        reading: Reading | None = None,
    ) -> Run:
        """``load_run`` with these options; ``ceilings`` overrides ``self.ceilings`` (diff's -a/-b).

        The .ncu-rep readers start first (or were, with ``start``) and read while
        pandas is imported (~0.3 s): call this before importing anything that needs it.
        """
        reading = reading or self.start(paths)
        from rooftui.analysis import load_run

        options = self if ceilings is None else replace(self, ceilings=ceilings)
        return load_run(list(paths), options, progress=progress, reading=reading)
