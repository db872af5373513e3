"""``ncu --csv --page details`` exports: one row per launch × section × metric."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest import units
from rooftui.ingest.csv_common import (
    DISPLAY_NAME,
    IDENTITY_FROM_NCU,
    NVTX_PUSH_POP_PREFIX,
    cc_text,
    check_last_line,
    parse_nvtx,
    read_prologue,
)
from rooftui.ingest.files import open_text
from rooftui.ingest.report import RawReport, is_relevant_metric
from rooftui.model.frames import map_unique

DETAILS_HINT = "export it with `ncu --import REPORT.ncu-rep --csv --page details --print-units base`"
_LONG = ("Metric Name", "Metric Unit", "Metric Value")


def looks_like_details(header: list[str]) -> bool:
    return all(column in header for column in _LONG)


def read_details_csv(path: Path) -> RawReport:
    skip, header, _ = read_prologue(path)
    if not looks_like_details(header):
        raise InputError("not a details-page ncu CSV export (no \"Metric Name\" column)", path,
                         DETAILS_HINT)
    check_last_line(path, len(header))
    nvtx_column = next((h for h in header if h.startswith(NVTX_PUSH_POP_PREFIX)), None)
    wanted = [h for h in IDENTITY_FROM_NCU if h in header] + list(_LONG)
    if nvtx_column:
        wanted.append(nvtx_column)
    try:
        with open_text(path) as handle:
            long = pd.read_csv(handle, skiprows=list(range(skip)), usecols=wanted, dtype=str,
                               keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError, EOFError, OSError) as err:
        raise InputError(f"cannot parse the CSV ({str(err).strip()[:120]})", path, DETAILS_HINT) from None
    if long.empty:
        raise InputError("the export lists no kernels", path,
                         "check ncu's filters (-k, --launch-count) and re-export")

    long["ID"] = pd.to_numeric(long["ID"], errors="coerce")
    identity = long.drop_duplicates("ID").set_index("ID")
    kernels = pd.DataFrame({ours: identity[ncu] for ncu, ours in IDENTITY_FROM_NCU.items()
                            if ncu in identity and ncu != "ID"})
    kernels.insert(0, "ncu_id", identity.index.astype(int))
    for column in ("process_id", "device_index", "stream"):
        if column in kernels:
            kernels[column] = pd.to_numeric(kernels[column], errors="coerce")
    kernels["cc"] = map_unique(kernels["cc"], cc_text) if "cc" in kernels else ""
    kernels["nvtx"] = map_unique(identity[nvtx_column], parse_nvtx) if nvtx_column else ""

    relevant = long[long["Metric Name"].map(is_relevant_metric)]
    names = relevant["Metric Name"]
    device = relevant[names == DISPLAY_NAME].drop_duplicates("ID").set_index("ID")["Metric Value"]
    kernels["device"] = device.reindex(kernels.index).fillna("").astype(str) if len(device) else ""

    numeric = relevant[names != DISPLAY_NAME]
    values = pd.to_numeric(numeric["Metric Value"].str.replace(",", "", regex=False)
                           .replace({"n/a": "", "N/A": ""}), errors="coerce")
    factors = numeric["Metric Unit"].map(lambda unit: units.factor(unit) or 1.0)
    exact = bool((factors == 1.0).all())
    scaled = pd.DataFrame({"ID": numeric["ID"], "name": numeric["Metric Name"],
                           "value": values * factors})
    wide = scaled.pivot_table(index="ID", columns="name", values="value", aggfunc="first",
                              dropna=False)
    wide = wide.reindex(kernels.index).astype(np.float64)
    out = pd.concat([kernels, wide], axis=1).reset_index(drop=True)
    notes = [] if exact else [
        "auto-scaled units: ncu's details page prints about 3 significant digits; "
        "export with --print-units base for exact bytes and times"]
    return RawReport(str(path), "details-csv", out, exact, notes)
