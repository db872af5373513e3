"""``ncu --csv --page details`` exports: one row per launch × section × metric."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest import units
from rooftui.ingest.csv_common import (
    DISPLAY_NAME,
    IDENTITY_FROM_NCU,
    NVTX_PUSH_POP_PREFIX,
    Prologue,
    cc_text,
    check_last_line,
    check_profiled_ids,
    fill_unexported_identity,
    ncu_said,
    parse_nvtx,
    read_prologue,
)
from rooftui.ingest.csv_structure import StructureCheck, read_table
from rooftui.ingest.files import open_text, tail_of
from rooftui.ingest.report import RawReport, failed_launch_notes, is_relevant_metric
from rooftui.ingest.validate import (
    check_duplicate_metrics,
    check_metric_counts,
    identity_numbers,
    launch_ids,
    numeric_cells,
    unit_factor,
)
from rooftui.model.frames import map_unique

DETAILS_HINT = "export it with `ncu --import REPORT.ncu-rep --csv --page details --print-units base`"
_LONG = ("Metric Name", "Metric Unit", "Metric Value")


# ncu's section labels -> metric names, for exports that print labels ("Duration") instead
# of names: ncu 2019.5/2020.1 `--csv` of the default sections, and any later ncu without
# `--print-metric-name name`. From ncu's section files (SpeedOfLight.section: "Duration" is
# gpu__time_duration.sum in every version; MemoryWorkloadAnalysis.section: "Memory
# Throughput" in byte/second is dram__bytes.sum.per_second, while the SOL "Memory
# Throughput" of later versions is a percentage and is not read). SpeedOfLight's "Elapsed
# Cycles" is gpc__cycles_elapsed.max and its "SM Frequency" gpc__cycles_elapsed.avg.per_second
# (NVIDIA's forum answer "what is gpc__cycles_elapsed.max": ncu uses the GPC max; checked on
# the H200 known answers, sample_data/known_answer/known_answer_basic.details.csv against its
# raw export: 178,309 cycles and 1.97 GHz for the daxpy launch): their ratio is the time
# (metrics.TIME_FROM_CYCLES) where "Duration" is missing. Labels are matched with their
# unit's kind, so a percentage never stands for a rate.
_FROM_LABEL = {
    ("Duration", "time"): "gpu__time_duration.sum",
    ("Elapsed Cycles", "cycles"): "gpc__cycles_elapsed.max",
    ("SM Frequency", "frequency"): "gpc__cycles_elapsed.avg.per_second",
    ("Memory Throughput", "byte rate"): "dram__bytes.sum.per_second",
}
_TIMES = (
    ("gpu__time_duration.sum",),
    ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second"),
)
DISPLAY_NAME_HINT = (
    "re-export it with metric names: `ncu --import REPORT.ncu-rep --csv --page raw "
    "--print-units base` (any ncu version), or profile again with `rooftui profile`"
)


def looks_like_details(header: list[str]) -> bool:
    return "Metric Name" in header  # the reader names any other column it lacks


def read_details_csv(path: Path, prologue: Prologue | None = None) -> RawReport:
    """A details-page export; ``prologue``: its ``read_prologue``, where the caller has it."""
    skip, header, _ = prologue or read_prologue(path)
    if not looks_like_details(header):
        raise InputError('not a details-page ncu CSV export (no "Metric Name" column)', path, DETAILS_HINT)
    missing = [column for column in ("ID", "Kernel Name", *_LONG) if column not in header]
    if missing:
        raise InputError(
            f"a details-page export without the {', '.join(missing)} column(s)", path, DETAILS_HINT
        )
    structure = StructureCheck(path, skip, header, DETAILS_HINT)  # rooftui.ingest.csv_structure
    nvtx_column = next((h for h in header if h.startswith(NVTX_PUSH_POP_PREFIX)), None)
    wanted = [h for h in IDENTITY_FROM_NCU if h in header] + list(_LONG)
    if nvtx_column:
        wanted.append(nvtx_column)
    handle = structure.watch(open_text(path))
    try:
        with handle:
            long = read_table(  # in chunks, bounded (rooftui.ingest.csv_structure)
                handle,
                path,
                DETAILS_HINT,
                skiprows=list(range(skip)),
                usecols=wanted,
                dtype=str,
                keep_default_na=False,
            )
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, OSError) as err:
        check_last_line(path, len(header), tail_of(handle) or b"")  # a cut says "truncated"
        raise InputError(f"cannot parse the CSV ({str(err).strip()[:120]})", path, DETAILS_HINT) from None
    check_last_line(path, len(header), tail_of(handle))
    notes: list[str] = structure.notes
    ids, trailing = launch_ids(long["ID"], path, notes, per_row=False)
    notes += ncu_said(path, skip, long["ID"].iloc[len(long) - trailing :].tolist())
    long = long.iloc[: len(long) - trailing].assign(ID=ids)
    check_profiled_ids(path, skip, int(long["ID"].max()) if len(long) else -1, DETAILS_HINT)
    if long.empty:
        raise InputError(
            "the export lists no kernels (cut short after its header, or ncu profiled none)",
            path,
            "if it was copied, copy it whole; else check ncu's filters (-k, --launch-count) and re-export",
        )
    check_metric_counts(long["ID"], path)
    identity = long.drop_duplicates("ID").set_index("ID")
    kernels = pd.DataFrame(
        {ours: identity[ncu] for ncu, ours in IDENTITY_FROM_NCU.items() if ncu in identity and ncu != "ID"}
    )
    kernels.insert(0, "ncu_id", identity.index.astype(int))
    kernels["cc"] = map_unique(kernels["cc"], cc_text) if "cc" in kernels else ""
    identity_numbers(kernels, path, notes)
    kernels["nvtx"] = map_unique(identity[nvtx_column], parse_nvtx) if nvtx_column else ""

    if not long["Metric Name"].str.contains("__", regex=False).any():
        long = _from_display_names(long, path, notes)
    relevant = long[long["Metric Name"].map(is_relevant_metric)]
    names = relevant["Metric Name"]
    device = relevant[names == DISPLAY_NAME].drop_duplicates("ID").set_index("ID")["Metric Value"]
    kernels["device"] = device.reindex(kernels.index).fillna("").astype(str) if len(device) else ""
    fill_unexported_identity(kernels)  # a column cut from the export: blank, as in every reader

    numeric = relevant[names != DISPLAY_NAME]
    check_duplicate_metrics(numeric["ID"], numeric["Metric Name"], numeric["Metric Value"], path)
    values = pd.Series(
        numeric_cells(numeric["Metric Value"], "Metric Value", numeric["ID"].to_numpy(), path, notes),
        index=numeric.index,
    )
    first_of_unit = numeric.drop_duplicates("Metric Unit")[["Metric Unit", "Metric Name"]]
    factor_of = {unit: unit_factor(unit, name, path) for unit, name in first_of_unit.itertuples(index=False)}
    factors = numeric["Metric Unit"].map(factor_of).astype(np.float64)
    exact = bool((factors == 1.0).all())
    scaled = pd.DataFrame({"ID": numeric["ID"], "name": numeric["Metric Name"], "value": values * factors})
    wide = first_value_per_launch(scaled).reindex(kernels.index).astype(np.float64)
    out = pd.concat([kernels, wide], axis=1).reset_index(drop=True)
    notes += failed_launch_notes(out, path)
    if not exact:
        notes.append(
            "auto-scaled units: ncu's details page prints about 3 significant digits; "
            "export with --print-units base for exact bytes and times"
        )
    return RawReport(str(path), "details-csv", out, exact, notes)


def first_value_per_launch(scaled: pd.DataFrame) -> pd.DataFrame:
    """One row per launch ID, one column per metric name, both sorted: each launch's first
    value of each metric that is not blank (blank where none is), as
    ``scaled.pivot_table(index="ID", columns="name", values="value", aggfunc="first",
    dropna=False)`` gives it, without its group-by (~10% of a details read)."""
    if scaled.empty:
        return scaled.pivot_table(index="ID", columns="name", values="value", aggfunc="first", dropna=False)
    rows, ids = pd.factorize(scaled["ID"], sort=True)
    columns, names = pd.factorize(scaled["name"], sort=True)
    values = scaled["value"].to_numpy(dtype=np.float64)
    cells = (rows * len(names) + columns)[~np.isnan(values)]
    cells, first = np.unique(cells, return_index=True)  # each cell's first value that is not blank
    wide = np.full(len(ids) * len(names), np.nan)
    wide[cells] = values[~np.isnan(values)][first]
    return pd.DataFrame(
        wide.reshape(len(ids), len(names)),
        index=pd.Index(ids, name="ID"),
        columns=pd.Index(names, name="name"),
    )


def _unit_kind(unit: str) -> str:
    if units.nanoseconds_per(unit) is not None:
        return "time"
    plain = unit.lower().replace(" ", "")
    if plain.startswith(("byte/", "kbyte/", "mbyte/", "gbyte/", "tbyte/")):
        return "byte rate"
    if plain in ("cycle", "kcycle", "mcycle", "gcycle"):
        return "cycles"
    if re.fullmatch(r"[kmgt]?hz|cycle/[num]?s(econd)?", plain):
        return "frequency"
    return ""


def _from_display_names(long: pd.DataFrame, path: Path, notes: list[str]) -> pd.DataFrame:
    """A details export of section labels: the labels rooftui can read, renamed to their
    metrics; InputError when not even the duration is there."""
    kinds = long["Metric Unit"].map(_unit_kind)
    renamed = pd.Series(
        [_FROM_LABEL.get(key, "") for key in zip(long["Metric Name"], kinds)], index=long.index
    )
    found = long.assign(**{"Metric Name": renamed})[renamed != ""].drop_duplicates(["ID", "Metric Name"])
    present = set(found["Metric Name"])
    if not any(present.issuperset(names) for names in _TIMES):
        raise InputError(
            'a details export of section labels ("Duration", "Elapsed Cycles" ...) '
            'without a "Duration" (or "Elapsed Cycles" and "SM Frequency") rooftui can read',
            path,
            DISPLAY_NAME_HINT,
        )
    read = ", ".join(
        f"{label} as {name}"
        for (label, _), name in _FROM_LABEL.items()
        if (found["Metric Name"] == name).any()
    )
    notes.append(
        f"a details export of section labels, not metric names: read {read}; its FLOPs and "
        f"other bytes are not in it (not collected) — {DISPLAY_NAME_HINT}"
    )
    return found
