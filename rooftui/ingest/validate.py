"""Structural checks on what the CSV readers parsed: the table, not just its syntax.

A CSV parser accepts many files that are not what ncu wrote: a header naming a column
twice, a ``==PROF==`` line or a second export pasted into the table, a row cut short,
rows lost at a cut, a counter that is negative or ``inf``, a unit nobody knows. Each
check here either refuses the file with one line naming the row or column and the fix,
or -- where the rest of the table is sound -- leaves the one bad value blank and says
so in a note naming its row and column. A bad cell never blanks its whole column.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest import units
from rooftui.ingest.files import TAIL_BYTES

# ncu's own lines (==PROF==, ==WARNING==, ==ERROR==) around or inside a live --csv table;
# they may hold commas ("==WARNING== Found outstanding GPU clock reset, trying to revert").
TOOL_LINE = re.compile(r"==[A-Z]+==")

REEXPORT = "re-export the whole report from ncu (`ncu --import REPORT.ncu-rep --csv ...`)"
_NOT_A_NUMBER = ("", "n/a", "N/A", "nan", "NaN")  # ncu prints n/a for values it has not


def check_header(header: Sequence[str], path: str | Path) -> None:
    """Refuse a header that names a column twice (two exports joined, or a hand edit)."""
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(f"the header names column {_quote(name)} twice", path, REEXPORT)
        seen.add(name)


def launch_ids(
    ids: pd.Series, path: str | Path, notes: list[str], per_row: bool = True
) -> tuple[np.ndarray, int]:
    """ncu's ID column as int64, and how many trailing non-table lines to drop.

    Trailing ``==PROF==``/``==WARNING==`` lines (ncu run live prints them after the
    table) are dropped; anything else that is not a whole number -- a ``==PROF==`` line
    inside the table, a second header, an empty ID -- refuses the file. A repeated ID
    refuses it too (a duplicated row would be counted twice). IDs that do not start at 0,
    go down or skip numbers are said in a note: rows were lost, or the export was filtered.
    """
    quick = _plain_launch_ids(ids)
    values, trailing = (quick, 0) if quick is not None else _launch_numbers(ids, path)
    starts = np.r_[True, values[1:] != values[:-1]] if len(values) else np.zeros(0, dtype=bool)
    sequence = values if per_row else values[starts]
    duplicated = pd.Series(sequence).duplicated()
    if duplicated.any():
        first = int(sequence[int(np.flatnonzero(duplicated.to_numpy())[0])])
        raise InputError(
            f"ID {first} appears in more than one row (a duplicated row, or two exports joined)",
            path,
            "pass each export as its own file; " + REEXPORT,
        )
    steps = np.diff(sequence)
    if len(sequence) and sequence[0] != 0:  # ncu numbers a report's launches from 0
        notes.append(
            f"launch IDs start at {sequence[0]}, not 0: rows are missing (a filtered "
            "export, or a damaged file)"
        )
    if len(steps) and (steps != 1).any():
        at = int(np.flatnonzero(steps != 1)[0])
        notes.append(
            f"launch IDs go from {sequence[at]} to {sequence[at + 1]}: rows are "
            "missing (a filtered export, or a damaged file)"
        )
    return values, trailing


def numeric_cells(
    values: pd.Series, column: str, ids: np.ndarray, path: str | Path, notes: list[str]
) -> np.ndarray:
    """One metric column as float64; cells that are no count are left blank, with a note.

    Accepts ncu's forms (``1,234``, ``n/a``, empty). Text that is no number, negative
    values and ``inf``/``nan`` written out are blanked one by one, never the column.
    """
    if not pd.api.types.is_numeric_dtype(values):
        text = values.astype(str).str.strip().str.replace(",", "", regex=False)
        absent = values.isna() | text.isin(_NOT_A_NUMBER)
        numbers = pd.to_numeric(text.where(~absent), errors="coerce").astype(np.float64)
        unreadable = numbers.isna() & ~absent
        array = numbers.to_numpy(dtype=np.float64, copy=True)
        unread = unreadable.to_numpy()
    else:  # most columns: pandas read numbers (as astype(np.float64) would give them)
        array = values.to_numpy(dtype=np.float64, copy=True)
        text, unread = None, np.zeros(len(array), dtype=bool)
    with np.errstate(invalid="ignore"):
        negative = array < 0
    infinite = np.isinf(array)
    bad = unread | negative | infinite
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        shown = text.iloc[row] if text is not None else repr(float(array[row]))
        notes.append(
            f"{column}: {int(bad.sum())} value(s) that are no count left blank "
            f"(first: ID {ids[row]}, {_quote(str(shown))})"
        )
        array[bad] = np.nan
    return array


def _plain_launch_ids(ids: pd.Series) -> np.ndarray | None:
    """``ids`` as int64 when every cell is a launch number ``_launch_numbers`` takes as it
    is: pandas read whole numbers from 0 to 2**53 (the raw page), or every distinct cell,
    stripped, is up to 15 ASCII digits (the details page's text, one ID per metric row:
    read once per launch, not per row); None for any other column, which it reads."""
    kind = ids.dtype.kind
    if kind in "iu":
        values = ids.to_numpy()
        return None if ((values < 0) | (values > 2**53)).any() else values.astype(np.int64)
    if kind in "bf":
        return None
    codes, cells = pd.factorize(ids)
    numbers = []
    for cell in cells:
        text = cell.strip() if isinstance(cell, str) else ""
        if not (text.isascii() and text.isdigit() and len(text) <= 15):
            return None
        numbers.append(int(text))
    if (codes < 0).any():  # a blank cell
        return None
    return np.array(numbers, dtype=np.int64)[codes]


def _launch_numbers(ids: pd.Series, path: str | Path) -> tuple[np.ndarray, int]:
    """``launch_ids``' reading of each cell's text: the IDs as int64 and the trailing tool
    lines dropped; InputError at the first cell that is no launch number."""
    textual = not pd.api.types.is_numeric_dtype(ids)
    text = ids.astype(str).str.strip() if textual else ids
    trailing = 0
    if textual:
        tool_lines = text.str.startswith("==").to_numpy()
        while trailing < len(text) and tool_lines[len(text) - 1 - trailing]:
            trailing += 1
        text = text.iloc[: len(text) - trailing]
    numbers = pd.to_numeric(text, errors="coerce")
    bad = numbers.isna() | (numbers < 0) | (numbers > 2**53) | (numbers % 1 != 0)
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        cell = str(text.iloc[row])
        what = (
            "an ncu message line inside the table"
            if cell.startswith("==")
            else f"ID {_quote(cell)} is not a launch number"
        )
        raise InputError(f"table row {row + 1}: {what}", path, REEXPORT)
    values = numbers.to_numpy(dtype=np.int64)
    return values, trailing


def numeric_columns(
    frame: pd.DataFrame, names: Sequence[str], ids: np.ndarray, path: str | Path, notes: list[str]
) -> dict[str, np.ndarray]:
    """``numeric_cells`` of each of ``names`` in ``frame``, in order (its notes in that
    order too). The columns pandas read as numbers are taken out as one block first; those
    without a negative or infinite value are what ``numeric_cells`` gives them (a copy of
    their numbers), without its per-column cost (~20 µs a column, 70-300 columns a read)."""
    kinds = dict(zip(frame.columns, frame.dtypes))
    numbers = [name for name in names if pd.api.types.is_numeric_dtype(kinds[name])]
    block = frame[numbers].to_numpy(dtype=np.float64, copy=True)
    with np.errstate(invalid="ignore"):
        clean = ~((block < 0) | np.isinf(block)).any(axis=0)
    taken = {name: block[:, at] for at, name in enumerate(numbers) if clean[at]}
    return {
        name: taken[name] if name in taken else numeric_cells(frame[name], name, ids, path, notes)
        for name in names
    }


IDENTITY_NUMBERS = ("process_id", "device_index", "stream")


_CC = re.compile(r"^\d{1,2}\.\d{1,2}$")


def identity_numbers(kernels: pd.DataFrame, path: str | Path, notes: list[str]) -> None:
    """Process ID, device and stream as whole numbers (float, NaN where blank), in place;
    kernel names as text; compute capabilities as ``MAJOR.MINOR``.

    A cell that is no whole number from 0 to 2**53 (``x``, ``-3``, a 400-digit number)
    or no compute capability (``9.0.1``) is left blank with a note naming the launch,
    rather than refusing the file.
    """
    if "kernel_name" in kernels:
        kernels["kernel_name"] = kernels["kernel_name"].fillna("").astype(str)
    if "cc" in kernels and len(kernels):
        cc = kernels["cc"].fillna("").astype(str)
        if all(value == "" or _CC.match(value) for value in cc.unique()):
            kernels["cc"] = cc  # every cell is one (most reports: one or two distinct values)
        else:
            _blank_bad_cc(kernels, cc, notes)
    for column in IDENTITY_NUMBERS:
        if column not in kernels:
            continue
        whole = _whole_numbers(kernels[column])
        if whole is not None:
            kernels[column] = whole
        else:
            _blank_bad_numbers(kernels, column, notes)


def _whole_numbers(values: pd.Series) -> np.ndarray | None:
    """``values`` as float64 where every cell is blank or a whole number from 0 to 2**53,
    as ``_blank_bad_numbers`` reads it, without its text round trip (~1 ms a column,
    whatever its length); None for any other column, which it reads.

    Taken: a column pandas parsed as numbers (a whole float's text, read back, is that
    float), or one of text (the details page's) whose distinct cells, stripped, are each
    blank, ``n/a`` or up to 15 ASCII digits (exact however they are parsed)."""
    kind = values.dtype.kind
    if kind in "iuf":
        numbers = values.to_numpy(dtype=np.float64, copy=True)
        with np.errstate(invalid="ignore"):
            bad = ~np.isnan(numbers) & ((numbers < 0) | (numbers > 2**53) | (numbers % 1 != 0))
        return None if bad.any() else numbers
    if kind == "b":  # "True" is no number
        return None
    of: dict[str, float] = {}
    for cell in values.unique():
        if not isinstance(cell, str):
            if pd.isna(cell):
                continue
            return None
        text = cell.strip()
        if text in _NOT_A_NUMBER:
            of[cell] = np.nan
        elif text.isascii() and text.isdigit() and len(text) <= 15:
            of[cell] = float(text)
        else:
            return None
    cells = (of.get(cell, np.nan) if isinstance(cell, str) else np.nan for cell in values)
    return np.fromiter(cells, dtype=np.float64, count=len(values))


def _blank_bad_cc(kernels: pd.DataFrame, cc: pd.Series, notes: list[str]) -> None:
    """``cc`` into ``kernels``, each cell that is no ``MAJOR.MINOR`` blanked, with a note."""
    bad = (~cc.str.match(_CC) & (cc != "")).to_numpy()
    if bad.any():
        notes.append(_left_blank("CC", "compute capability", bad, kernels, cc))
    kernels["cc"] = cc.where(~bad, "")


def _blank_bad_numbers(kernels: pd.DataFrame, column: str, notes: list[str]) -> None:
    """``column`` of ``kernels`` read from its text as float64, each cell that is no whole
    number from 0 to 2**53 blanked, with a note naming the first."""
    values = kernels[column]
    text = values.astype(str).str.strip()
    absent = values.isna() | text.isin(_NOT_A_NUMBER)
    numbers = pd.to_numeric(text.where(~absent), errors="coerce").astype(np.float64)
    with np.errstate(invalid="ignore"):
        bad = (~absent & (numbers.isna() | (numbers < 0) | (numbers > 2**53) | (numbers % 1 != 0))).to_numpy()
    if bad.any():
        notes.append(_left_blank(column, "whole number", bad, kernels, text))
    kernels[column] = numbers.where(~bad).to_numpy()


def _left_blank(label: str, what: str, bad: np.ndarray, kernels: pd.DataFrame, cells: pd.Series) -> str:
    """The note for the cells ``bad`` marks, left blank: how many, and the first's ID and text."""
    row = int(np.flatnonzero(bad)[0])
    return (
        f"{label}: {int(bad.sum())} value(s) that are no {what} left blank "
        f"(first: ID {kernels['ncu_id'].iloc[row]}, {_quote(str(cells.iloc[row]))})"
    )


def unit_factor(unit: str, column: str, path: str | Path) -> float:
    """The factor to base units for ``unit``; a unit rooftui does not know refuses the file.

    Taking an unknown unit as x1 would silently give wrong times or bytes.
    """
    factor = units.factor(unit)
    if factor is None:
        raise InputError(
            f"{column} is in unit {_quote(unit)}, which rooftui does not know",
            path,
            "re-export with `ncu --import REPORT.ncu-rep --csv --print-units base ...`, or report the unit",
        )
    return factor


def check_last_row(tail: bytes | None, header_fields: int, path: str | Path, hint: str) -> None:
    """Refuse a CSV whose last row was cut (a killed export, a partial copy).

    A missing final newline alone is accepted (the last row is whole); trailing
    ``==PROF==`` lines are skipped. ``tail`` is the end of the file as the reader saw it
    (its last 64 KB): a quoted newline inside the last row is read as CSV reads it, and a
    last row that began before the tail is not judged from its end alone (the raw and
    details readers see every row whole: ``rooftui.ingest.csv_structure``).
    """
    if not tail:
        return
    text = tail.decode("utf-8", errors="replace")
    if len(tail) >= TAIL_BYTES:  # the tail may start inside a row: from the next line on
        newline = text.find("\n")
        if newline < 0 or not text[newline + 1 :].strip():
            return
        text = text[newline + 1 :]
    try:
        records = [
            r
            for r in csv.reader(io.StringIO(text, newline=""), strict=True)
            if r and not TOOL_LINE.match(r[0])
        ]
        ends_in_quote = False
    except csv.Error:  # the text ends inside a quoted field
        records, ends_in_quote = [], True
    last = records[-1] if records else []
    if ends_in_quote or (last and len(last) < header_fields):
        what = (
            "it ends inside a quoted field of its last row"
            if ends_in_quote
            else f"its last row has {len(last)} of {header_fields} fields"
        )
        raise InputError(f"the CSV is truncated: {what}", path, f"re-export the whole report; {hint}")


def check_metric_counts(ids: pd.Series, path: str | Path) -> None:
    """Details page: refuse a file whose last kernel has fewer metric rows than every other.

    ncu writes the same sections and metrics for every launch of one export, so a cut
    at a row boundary shows as a short last kernel.
    """
    counts = ids.value_counts(sort=False).reindex(pd.unique(ids))
    if len(counts) < 2:
        return
    others, last = counts.iloc[:-1], int(counts.iloc[-1])
    if others.nunique() == 1 and last < int(others.iloc[0]):
        raise InputError(
            f"the CSV is truncated: the last kernel (ID {counts.index[-1]}) has "
            f"{last} of {int(others.iloc[0])} metric rows",
            path,
            "re-export the whole report; `ncu --import REPORT.ncu-rep --csv "
            "--page details --print-units base`",
        )


def check_duplicate_metrics(ids: pd.Series, names: pd.Series, values: pd.Series, path: str | Path) -> None:
    """Details page: the same metric of the same launch twice with two values is refused."""
    if not _some_pair_repeats(ids, names):  # most exports: no metric twice in a launch
        return
    frame = pd.DataFrame({"id": ids.to_numpy(), "name": names.to_numpy(), "value": values.to_numpy()})
    repeated = frame[frame.duplicated(["id", "name"], keep=False)]
    if repeated.empty:
        return
    clashing = repeated.groupby(["id", "name"], sort=False)["value"].nunique()
    clashing = clashing[clashing > 1]
    if len(clashing):
        kernel, name = clashing.index[0]
        raise InputError(
            f"kernel ID {kernel} has two different values of {_quote(name)} (a duplicated or edited row)",
            path,
            REEXPORT,
        )


def _some_pair_repeats(ids: pd.Series, names: pd.Series) -> bool:
    """Whether some (ID, metric name) pair is on more than one row: ``DataFrame.duplicated``
    of the two columns, on one int64 code per pair (~4x quicker on a details export)."""
    id_codes, _ = pd.factorize(ids)
    name_codes, distinct = pd.factorize(names)  # -1 for a blank name, as duplicated pairs blanks
    pairs = id_codes.astype(np.int64) * (len(distinct) + 1) + name_codes
    return bool(pd.Series(pairs).duplicated().any())


def _quote(text: str) -> str:
    shown = text if len(text) <= 60 else text[:59] + "…"
    return f"'{shown}'"  # escaped for the terminal where it is printed (rooftui.cli.errors)
