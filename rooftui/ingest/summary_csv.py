"""``ncu --print-summary per-kernel --csv`` exports: one row per kernel (launch shape),
section and metric, with Minimum, Maximum and Average over its ``Invocations``.

A kernel's total of a count is Average × Invocations (ncu prints the average, so the
total is as exact as its digits); rates and percentages stay averages. Every row of
the report stands for ``launches`` = Invocations launches, so per-launch rows are not
available; Minimum and Maximum are kept as ``<metric>.min_per_launch`` and
``.max_per_launch``. Sector counts are turned into bytes by the model
(``metrics.BYTES_FROM_SECTORS``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest import units
from rooftui.ingest.csv_common import (
    DISPLAY_NAME,
    IDENTITY_FROM_NCU,
    Prologue,
    cc_text,
    check_last_line,
    fill_unexported_identity,
    read_prologue,
)
from rooftui.ingest.csv_structure import read_table
from rooftui.ingest.files import open_text
from rooftui.ingest.report import LAUNCHES, RawReport, is_relevant_metric
from rooftui.model.frames import map_unique

SUMMARY_HINT = (
    "export it with `ncu --import REPORT.ncu-rep --csv --print-summary per-kernel --print-units base`"
)
_REQUIRED = ("Kernel Name", "Invocations", "Metric Name", "Metric Unit", "Minimum", "Maximum", "Average")
_AVERAGED_SUFFIXES = (".per_second", ".per_cycle_elapsed", ".peak_sustained", ".pct")
# Launch-shape identity columns a summary export may lack -> ncu's name for each.
_SHAPE_COLUMNS = {"stream": "Stream", "grid": "Grid Size", "block": "Block Size"}


def looks_like_summary(header: list[str]) -> bool:
    return "Invocations" in header and "Average" in header and "Metric Name" in header


def read_summary_csv(path: Path, prologue: Prologue | None = None) -> RawReport:
    """A ``--print-summary per-kernel`` export; ``prologue``: its ``read_prologue``, where
    the caller has it."""
    skip, header, _ = prologue or read_prologue(path)
    absent = [column for column in _REQUIRED if column not in header]
    if absent:
        raise InputError(
            f"not an ncu --print-summary per-kernel export (no {', '.join(absent)} column)",
            path,
            SUMMARY_HINT,
        )
    check_last_line(path, len(header))
    try:
        with open_text(path) as handle:
            long = read_table(  # in chunks, bounded (rooftui.ingest.csv_structure)
                handle, path, SUMMARY_HINT, skiprows=list(range(skip)), dtype=str, keep_default_na=False
            )
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, OSError) as err:
        raise InputError(f"cannot parse the CSV ({str(err).strip()[:120]})", path, SUMMARY_HINT) from None
    if long.empty:
        raise InputError("the export lists no kernels", path, "check ncu's filters and re-export")

    long["Invocations"] = pd.to_numeric(
        long["Invocations"].str.replace(",", "", regex=False), errors="coerce"
    )
    if long["Invocations"].isna().any() or (long["Invocations"] < 1).any():
        raise InputError("a row has no whole number of Invocations", path, SUMMARY_HINT)
    keys = [c for c in ("Process ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC") if c in long]
    shapes = long.drop_duplicates(keys)
    kernels = pd.DataFrame(
        {
            ours: shapes[ncu].to_numpy()
            for ncu, ours in IDENTITY_FROM_NCU.items()
            if ncu in shapes and ncu != "ID"
        }
    )
    kernels.insert(0, "ncu_id", np.arange(len(shapes)))
    for column in ("process_id", "device_index"):
        if column in kernels:
            kernels[column] = pd.to_numeric(kernels[column], errors="coerce")
    kernels["cc"] = map_unique(kernels["cc"], cc_text) if "cc" in kernels else ""
    kernels["nvtx"] = ""
    kernels[LAUNCHES] = shapes["Invocations"].astype(int).to_numpy()
    shape_of = {tuple(row): i for i, row in enumerate(shapes[keys].itertuples(index=False))}
    long["shape"] = [shape_of[tuple(row)] for row in long[keys].itertuples(index=False)]

    relevant = long[long["Metric Name"].map(is_relevant_metric)]
    device = relevant[relevant["Metric Name"] == DISPLAY_NAME].drop_duplicates("shape")
    kernels["device"] = (
        device.set_index("shape")["Average"].reindex(kernels.index).fillna("").astype(str)
        if len(device)
        else ""
    )
    numeric = relevant[relevant["Metric Name"] != DISPLAY_NAME]
    factors = numeric["Metric Unit"].map(lambda unit: units.factor(unit) or 1.0)
    averaged = numeric["Metric Name"].str.endswith(_AVERAGED_SUFFIXES)
    columns = {}
    statistics = (("Average", ""), ("Minimum", ".min_per_launch"), ("Maximum", ".max_per_launch"))
    for statistic, suffix in statistics:
        printed = numeric[statistic].str.replace(",", "", regex=False)
        values = pd.to_numeric(printed, errors="coerce") * factors
        if statistic == "Average":  # a kernel's total: the average over its invocations × their number
            values = values.where(averaged, values * numeric["Invocations"])
        long_values = pd.DataFrame(
            {"shape": numeric["shape"], "name": numeric["Metric Name"] + suffix, "value": values}
        )
        wide = long_values.pivot_table(
            index="shape", columns="name", values="value", aggfunc="first", dropna=False
        )
        columns.update({name: wide[name].reindex(kernels.index).astype(np.float64) for name in wide})
    # ncu prints no Stream column in a summary (a row groups the launches of every stream),
    # and older ncu printed no Block Size or Grid Size either: those are blank, with the reason.
    unexported = [c for c in fill_unexported_identity(kernels) if c in _SHAPE_COLUMNS]
    out = pd.concat([kernels, pd.DataFrame(columns, index=kernels.index)], axis=1)
    notes = [
        f"per-kernel summary: {len(out)} kernels, {int(out[LAUNCHES].sum())} launches; totals are "
        "Average × Invocations, so per-launch rows are not available, nor their stream"
    ]
    shapes_missing = [_SHAPE_COLUMNS[c] for c in unexported if c != "stream"]
    if shapes_missing:
        notes.append(
            f"per-kernel summary: {' and '.join(shapes_missing)} left blank: the export has no such column"
        )
    return RawReport(str(path), "summary-csv", out, False, notes)
