"""``ncu --csv --page raw`` exports: one row per launch, one column per metric.

Both unit modes are read: ncu's default auto-scaled units (a units row under the
header with per-column ``Kbyte``, ``usecond``, ``Ghz``, ...) and
``--print-units base``. Numbers may carry thousands separators or be ``n/a``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest.csv_common import (
    DISPLAY_NAME,
    IDENTITY_FROM_NCU,
    NVTX_PUSH_POP_PREFIX,
    RAW_HINT,
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
from rooftui.ingest.deduplicated import PROVENANCE_COLUMNS
from rooftui.ingest.files import open_text, tail_of
from rooftui.ingest.report import RawReport, failed_launch_notes, is_relevant_metric
from rooftui.ingest.validate import identity_numbers, launch_ids, numeric_columns, unit_factor
from rooftui.model.frames import map_unique
from rooftui.model.metrics import REGISTER_MOVES


def looks_like_raw(header: list[str]) -> bool:
    return "Kernel Name" in header and "Metric Name" not in header


def read_raw_csv(path: Path, prologue: Prologue | None = None) -> RawReport:
    """A raw-page export; ``prologue``: its ``read_prologue``, where the caller has it."""
    skip, header, row2 = prologue or read_prologue(path)
    if not looks_like_raw(header):
        raise InputError('not a raw-page ncu CSV export (no "Kernel Name" column)', path, RAW_HINT)
    if "ID" not in header:
        raise InputError("a raw-page export without the ID column", path, RAW_HINT)
    structure = StructureCheck(path, skip, header, RAW_HINT, units_row=True)  # rooftui.ingest.csv_structure
    has_units_row = row2 is not None and row2 and row2[0] == ""
    unit_of = dict(zip(header, row2)) if has_units_row and row2 is not None else {}

    nvtx_column = next((h for h in header if h.startswith(NVTX_PUSH_POP_PREFIX)), None)
    # rooftui profile's merged table carries the HFMA2 register moves it read (REGISTER_MOVES)
    metric_columns = [h for h in header if is_relevant_metric(h) or h == REGISTER_MOVES]
    wanted = [h for h in IDENTITY_FROM_NCU if h in header] + metric_columns
    if nvtx_column:
        wanted.append(nvtx_column)
    provenance = [h for h in PROVENANCE_COLUMNS if h in header]  # rooftui profile --dedup's
    wanted += provenance
    skip_rows = list(range(skip)) + ([skip + 1] if has_units_row else [])
    handle = structure.watch(open_text(path))
    try:
        with handle:
            frame = read_table(  # in chunks, bounded (rooftui.ingest.csv_structure)
                handle,
                path,
                RAW_HINT,
                skiprows=skip_rows,
                usecols=wanted,
                thousands=",",
                na_values=["n/a", "N/A"],
                keep_default_na=True,
                low_memory=False,
                dtype={DISPLAY_NAME: str, "Kernel Name": str, "Grid Size": str, "Block Size": str}
                | dict.fromkeys(provenance, str),
            )
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, OSError) as err:
        check_last_line(path, len(header), tail_of(handle) or b"")  # a cut says "truncated"
        raise InputError(f"cannot parse the CSV ({_first_line(err)})", path, RAW_HINT) from None
    check_last_line(path, len(header), tail_of(handle))
    notes: list[str] = structure.notes
    ids, trailing = launch_ids(frame["ID"], path, notes)
    notes += ncu_said(path, skip, frame["ID"].iloc[len(frame) - trailing :].tolist())
    frame = frame.iloc[: len(frame) - trailing].assign(ID=ids)
    check_profiled_ids(path, skip, int(ids.max()) if len(ids) else -1, RAW_HINT)
    if frame.empty:
        raise InputError(
            "the export lists no kernels (cut short after its header, or ncu profiled none)",
            path,
            "if it was copied, copy it whole; else check ncu's filters (-k, --launch-count) and re-export",
        )

    kernels = pd.DataFrame({ours: frame[ncu] for ncu, ours in IDENTITY_FROM_NCU.items() if ncu in frame})
    kernels["cc"] = map_unique(kernels["cc"], cc_text) if "cc" in kernels else ""
    identity_numbers(kernels, path, notes)
    kernels["device"] = frame[DISPLAY_NAME].astype(str) if DISPLAY_NAME in frame else ""
    kernels["nvtx"] = map_unique(frame[nvtx_column], parse_nvtx) if nvtx_column else ""
    fill_unexported_identity(kernels)  # a column cut from the export: blank, as in every reader
    for said in provenance:  # text as written ("own", a launch ID, "rank 0:3"); "" if blank
        kernels[said] = frame[said].fillna("").astype(str).to_numpy()

    exact = True
    metrics = {}
    counted = [name for name in metric_columns if name != DISPLAY_NAME]
    for name, column in numeric_columns(frame, counted, ids, path, notes).items():
        f = unit_factor(unit_of.get(name, ""), name, path)
        if f != 1.0:
            exact = False
            column = column * f
        metrics[name] = column
    kernels = pd.concat([kernels.reset_index(drop=True), pd.DataFrame(metrics)], axis=1)
    notes += failed_launch_notes(kernels, path)
    if not exact:
        notes.append(
            "auto-scaled units: ncu printed about 6 significant digits; "
            "export with --print-units base for exact bytes and times"
        )
    return RawReport(str(path), "raw-csv", kernels, exact, notes)


def _first_line(err: Exception) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
