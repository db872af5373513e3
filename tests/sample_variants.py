"""The bundled sample as older metric lists collected it, for tests whose point is a report
that lacks some counters: the sample now carries every counter rooftui asks for (the SMEM
level, the instruction roofline, the report's peaks and clocks), so such reports are made
from it by dropping columns, never by editing numbers."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from rooftui.model import shared_memory as smem
from rooftui.sample import sample_paths


def without_columns(tmp_path: Path, drop: Callable[[str], bool], report: Path | None = None) -> Path:
    """A raw CSV copy of ``report`` (the bundled AMP sample by default) without the metric
    columns for which ``drop(name)`` is true."""
    report = report or sample_paths()[0]
    raw = pd.read_csv(report, header=None, dtype=str, keep_default_na=False)
    keep = [not drop(str(name)) for name in raw.iloc[0]]
    path = tmp_path / f"{report.name.split('.')[0]}.raw-base.csv"
    raw.loc[:, keep].to_csv(path, header=False, index=False, quoting=csv.QUOTE_ALL)
    return path


def without_smem_counters(tmp_path: Path, report: Path | None = None) -> Path:
    """As rooftui's list collected it before the nine SMEM counters joined it."""
    return without_columns(tmp_path, lambda name: name in smem.HOPPER_TERMS, report)


def without_peaks(tmp_path: Path, report: Path | None = None) -> Path:
    """As the sample was profiled before rooftui asked for the Tensor peaks and the L2 and
    DRAM clocks: no Tensor, L2 or HBM peak can be read from the report."""

    def dropped(name: str) -> bool:
        tensor_peak = name.startswith("sm__ops_path_tensor") and name.endswith(".peak_sustained")
        return tensor_peak or name.startswith(("lts__cycles_elapsed", "dram__cycles_elapsed"))

    return without_columns(tmp_path, dropped, report)
