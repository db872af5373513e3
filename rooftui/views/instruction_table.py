"""``rooftui summary``'s instruction-roofline table: where each row of the kernel table sits
on the instruction roofline (Ding & Williams, PMBS'19), printed under it when the report
holds the instruction counters (``rooftui profile --instructions``).

Three columns answer it: warp instructions per second (the point's height), its
instruction intensity at the level whose roof is lowest (warp instructions per
transaction: the point's place along that roof) and the roof that binds with the share of
it reached. The rows are the kernel table's, in its order, with the same ID or count, so
the two tables read side by side at any width (the kernel table already fills 80
columns). The JSON's ``instructions`` object holds the same numbers.
"""

from __future__ import annotations

import pandas as pd
from rich.console import Console

from rooftui.analysis import Run, instruction_roofline
from rooftui.model.instructions import ISSUE
from rooftui.views.formats import intensity, si
from rooftui.views.name_table import print_name_table

TITLE = "Instruction roofline (warp instructions; Ding & Williams, PMBS'19)"
LEGEND = (
    "warp inst/s: warp instructions issued per second; intensity: warp instructions per "
    "transaction at the level whose roof is lowest (L1: sectors + shared wavefronts, L2 and "
    "HBM: sectors); bound: the roof that binds (issue: the warp-issue rate) and % of it "
    "reached; blank: not collected"
)


# What ``instruction_cells`` reads of a row (with ``count`` or ``ncu_id``).
INSTRUCTION_PREFIXES = ("warp_instruction_rate", "instruction_")


def has_instructions(rows: pd.DataFrame) -> bool:
    """Whether any row holds the warp-instruction counters."""
    return "warp_instructions" in rows and bool(rows["warp_instructions"].notna().any())


def instruction_cells(row: dict) -> tuple[str, str, str]:
    """(warp inst/s, intensity at the lowest roof's level, bound and % reached) of one row
    with ``instruction_roofline.add_instruction_bounds``'s columns; blank where not known."""
    rate = si(row.get("warp_instruction_rate"), "").replace(" ", "")
    level = str(row.get("instruction_level") or "")
    value = row.get(f"instruction_intensity_{level}") if level else None
    at_level = f"{instruction_roofline.bound_label(level)} {intensity(value)}" if intensity(value) else ""
    bound = str(row.get("instruction_bound") or "")
    fraction = row.get("instruction_roof_fraction")
    reached = f" {100 * fraction:.0f}%" if fraction is not None and fraction == fraction else ""
    label = "issue" if bound == ISSUE else instruction_roofline.bound_label(bound)
    return rate, at_level, f"{label}{reached}" if label else ""


def render_instruction_table(run: Run, rows: pd.DataFrame, console: Console, counts: list[str]) -> None:
    """The table, for the kernel table's ``rows`` (``counts``: its "n" or "ID" column, or
    none); nothing when no row has the counters."""
    if not has_instructions(rows):
        return
    rows = instruction_roofline.with_bounds(run, rows)
    titles = ["kernel", *counts, "warp inst/s", "intensity", "bound"]
    read = [c for c in rows.columns if c in ("count", "ncu_id") or c.startswith(INSTRUCTION_PREFIXES)]
    lines = []
    for row in rows[read].to_dict("records"):  # these few columns: a row of all costs far more
        count = [str(row["count"] if counts == ["n"] else row["ncu_id"])] if counts else []
        lines.append(["", *count, *instruction_cells(row)])
    lines = [[str(name), *line[1:]] for name, line in zip(rows["name"], lines)]
    print_name_table(console, titles, lines, rows["name"], left=("bound",), title=TITLE)
    console.print(f"[dim]{LEGEND}[/dim]")
