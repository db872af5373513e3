"""ncu's raw-page CSV export as ``rooftui profile --dedup`` reads and writes it: the
probe's and the full run's exports in, the merged table (every launch) out.

Plain text in and out, no pandas: the profile path parses a few hundred launches of ~500
columns and writes them back unchanged but for the rows it merges.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from functools import cached_property

from rooftui.errors import RooftuiError


@dataclass
class Export:
    """An ``ncu --csv --page raw --print-units base`` export: header, units row, rows."""

    header: list[str]
    units: list[str]
    rows: list[list[str]]

    @cached_property
    def where(self) -> dict[str, int]:
        """{column name: its index}, the first of a name given twice (as ``list.index``).
        A dictionary, not ``header.index``: merging ~500 columns of a few hundred launches
        by ``header.index`` took 2.5 s (175 launches) and 5.7 s (309)."""
        return {name: i for i, name in reversed(list(enumerate(self.header)))}

    def column(self, name: str) -> int:
        try:
            return self.where[name]
        except KeyError:
            raise RooftuiError(
                f"ncu's export has no {name} column",
                fix="check which ncu ran (--ncu): rooftui needs ncu 2023.1 or newer",
            ) from None

    def number(self, row: list[str], name: str) -> float:
        """A counter's value; NaN where ncu exported none (then it tells no launch apart)."""
        if name not in self.where:
            return math.nan
        text = row[self.column(name)].replace(",", "").strip()
        try:
            return float(text)
        except ValueError:
            return math.nan


def read_export(text: str) -> Export:
    """Parse ncu's raw CSV (a units row under the header, as --print-units base writes it).

    ncu's own ``==PROF==``/``==WARNING==`` lines are skipped; a launch row of another field
    count than the header is refused (dropping it would leave that launch's signature, or
    its counters in the merged table, out without a word; shifting it, wrong columns)."""
    fix = "check which ncu ran (--ncu) and profile again"
    try:
        lines = [line for line in csv.reader(io.StringIO(text)) if line]
    except csv.Error as err:
        raise RooftuiError(f"ncu's CSV export is not CSV ({err})", fix=fix) from None
    start = next((i for i, line in enumerate(lines) if line and line[0] == "ID"), None)
    if start is None:
        raise RooftuiError('ncu\'s CSV export has no header line starting with "ID"')
    header = lines[start]
    body = [line for line in lines[start + 1 :] if not line[0].startswith("==")]
    units = body[0] if body and body[0] and body[0][0] == "" else [""] * len(header)
    rows = body[1:] if body and units is body[0] else body
    if len(units) != len(header):
        raise RooftuiError(
            f"ncu's CSV export: its units row has {len(units)} fields, the header {len(header)}",
            fix=fix,
        )
    for number, row in enumerate(rows, start=1):
        if len(row) != len(header):
            raise RooftuiError(
                f"ncu's CSV export: launch row {number} has {len(row)} fields, the header "
                f"{len(header)}; its cells would land in the wrong columns",
                fix=fix,
            )
    return Export(header, units, rows)


def write_export(export: Export) -> str:
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(export.header)
    writer.writerow(export.units)
    writer.writerows(export.rows)
    return out.getvalue()
