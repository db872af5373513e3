"""Where each launch's counters came from in a ``rooftui profile --dedup`` report.

A deduplicated profile gives every launch its own time, but the counters (FLOPs, bytes)
of most launches are those of a twin: the first launch of the same signature of work that
the full run profiled (rooftui.profile.dedup). The kernel table says so per launch:

    counters_from       "profiled" (its own counters), "inherited" (its twin's), or
                        "not_collected" (no launch of its signature was profiled: blank)
    counters_twin       the kernel-table ``id`` of the twin (inherited launches; NaN
                        when the twin is not in the table, e.g. left out by a filter)
    counters_twin_ncu_id  the twin's ncu ID within its report (rank 0's row for ranks)
    counters_signature  the signature both share ("S12"); "" for a rank's launches

The columns exist only when some report carries rooftui's provenance columns
(rooftui.ingest.deduplicated), so the table of any other report is unchanged.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from rooftui.ingest.deduplicated import COUNTERS_FROM_COLUMN, SIGNATURE_COLUMN, Sidecar, read_sidecar
from rooftui.model.frames import map_unique
from rooftui.notes import Note

if TYPE_CHECKING:
    import pandas as pd

PROFILED, INHERITED, NOT_COLLECTED = "profiled", "inherited", "not_collected"
COLUMNS = ("counters_from", "counters_twin", "counters_twin_ncu_id", "counters_signature")
_FROM_RANK = re.compile(r"^rank (?P<rank>\S+):(?P<row>\d+)$")  # rooftui.profile.dedup.rank_from_twin


def add_counters_from(kernels: pd.DataFrame, raw: pd.DataFrame) -> tuple[pd.DataFrame, list[Note]]:
    """``kernels`` with the columns above, read from ``raw`` (the rows the kernel table was
    built from, same index), and one note per deduplicated report; unchanged without any."""
    import numpy as np
    import pandas as pd

    if COUNTERS_FROM_COLUMN not in raw:
        return kernels, []
    said = raw[COUNTERS_FROM_COLUMN]
    deduplicated = said.notna()  # rows of reports without the column are NaN after the concat
    if not deduplicated.any():
        return kernels, []
    signature = pd.Series("", index=kernels.index, dtype=object)
    if SIGNATURE_COLUMN in raw:
        signature = raw[SIGNATURE_COLUMN].fillna("").astype(str).astype(object)
    # Few distinct values (own, the twins' IDs): each is parsed once (map_unique).
    codes = said.where(deduplicated, "").astype(str)
    how = map_unique(codes, lambda code: _parse(code)[0]).where(deduplicated, "")
    twin_ncu_id = map_unique(codes, lambda code: _parse(code)[1]).astype(float)
    from_rank = map_unique(codes, lambda code: _parse(code)[2])  # "0" for "rank 0:N", else None
    by_id = (how == INHERITED) & from_rank.isna()
    twin = pd.Series(np.nan, index=kernels.index)
    notes: list[Note] = []
    for report, rows in kernels.loc[deduplicated].groupby("report", sort=False):
        same_report = by_id.loc[rows.index]
        ids = pd.Series(rows["id"].to_numpy(dtype=float), index=rows["ncu_id"].astype(int).to_numpy())
        twin.loc[same_report[same_report].index] = twin_ncu_id.loc[same_report[same_report].index].map(ids)
        for rank, members in twin_ncu_id.loc[rows.index].groupby(from_rank.loc[rows.index].dropna()):
            found = _rank_ids(kernels, str(rank))
            twin.loc[members.index] = [found[int(n)] if int(n) < len(found) else np.nan for n in members]
        notes.append(_note(str(report), how.loc[rows.index], signature.loc[rows.index]))
    kernels = kernels.copy()
    kernels["counters_from"] = how
    kernels["counters_twin"] = twin
    kernels["counters_twin_ncu_id"] = twin_ncu_id
    kernels["counters_signature"] = signature.where(deduplicated, "")
    return kernels, notes


def _parse(said: str) -> tuple[str, float, str | None]:
    """(how, the twin's ncu ID or row, the twin's rank) from rooftui__counters_from."""
    said = said.strip()
    if said == "own":
        return PROFILED, math.nan, None
    if said.isdigit():
        return INHERITED, float(said), None
    if match := _FROM_RANK.match(said):
        return INHERITED, float(match["row"]), match["rank"]
    return NOT_COLLECTED, math.nan, None  # "": no launch of its signature was profiled


def _rank_ids(kernels: pd.DataFrame, rank: str) -> list[int]:
    """The kernel-table ids of rank ``rank``'s launches, in ncu's order (rank_from_twin
    gives row N of that rank's profile)."""
    if "rank" not in kernels:
        return []
    rows = kernels.loc[kernels["rank"].astype(str) == rank].sort_values("ncu_id")
    return [int(i) for i in rows["id"]]


def _note(report: str, how: pd.Series, signature: pd.Series) -> Note:
    profiled = int((how == PROFILED).sum())
    inherited = int((how == INHERITED).sum())
    blank = int((how == NOT_COLLECTED).sum())
    from_signatures = signature[how == INHERITED]
    sidecar = read_sidecar(report)
    if from_signatures.eq("").all():  # a rank of a launched job: another rank's counters
        text = (
            f"{report} (rooftui profile --dedup, launched job): {profiled} launches profiled in full, "
            f"{inherited} given another rank's counters launch by launch, with their own time"
        )
    else:
        total = f" of {sidecar.signatures}" if isinstance(sidecar, Sidecar) else ""
        text = (
            f"{report} (rooftui profile --dedup): {profiled} launches profiled in full, {inherited} "
            f"inherited the counters of a twin from {from_signatures.nunique()}{total} signatures, "
            "with their own time"
        )
    if blank:
        text += f"; {blank} launches not collected (no launch of their signature was profiled)"
    text += "; each launch's counters_from says which and from which twin"
    if isinstance(sidecar, Sidecar):
        text += f". Self-check ({sidecar.path.name}): {sidecar.self_check.text()}"
    elif not from_signatures.eq("").all():
        text += f". Self-check not known: {sidecar}"
    return Note("deduplicated", text, "rooftui profile --exhaustive profiles every launch")


def counters_from(row: dict[str, Any] | pd.Series) -> dict[str, Any] | None:
    """One launch's provenance for the JSON (``counters_from``): None for a launch of a
    report profiled in full (no provenance columns) and for a row grouping launches."""
    how = row.get("counters_from")
    if not isinstance(how, str) or not how:
        return None
    return {
        "how": how,
        "twin": _integer(row.get("counters_twin")),
        "twin_ncu_id": _integer(row.get("counters_twin_ncu_id")),
        "signature": row.get("counters_signature") or None,
    }


def counters_line(row: dict[str, Any] | pd.Series) -> str | None:
    """The detail pane's line: where this launch's counters came from; None without provenance."""
    said = counters_from(row)
    if said is None:
        return None
    signature = f" (dedup signature {said['signature']})" if said["signature"] else ""
    if said["how"] == PROFILED:
        return f"profiled in full{signature}"
    if said["how"] == NOT_COLLECTED:
        return f"not collected: no launch of its signature was profiled{signature}"
    twin = said["twin"] if said["twin"] is not None else f"ncu ID {said['twin_ncu_id']}, not loaded"
    return f"its twin's, launch {twin}{signature}; time its own (rooftui profile --dedup)"


def _integer(value: object) -> int | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else int(number)
