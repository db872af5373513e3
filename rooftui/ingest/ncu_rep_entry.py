"""A read ``.ncu-rep`` as the cache entry its reader child writes (no pandas here).

The reader (``_ncu_rep_worker``) gathers a document, column by column, of what
``ncu_report`` stores; this makes it the RawReport's columns in
``rooftui.ingest.cache_entry``'s format: identity columns as every reader fills them,
``process_id`` NaN (``ncu_report`` does not expose it), then each metric scaled to
rooftui's base units (``rooftui.ingest.units``; an unknown unit is kept as stored and
named in a note), and the note for launches ncu failed to replay
(``rooftui.ingest.report.failed_launch_note``). The parent decodes the entry as it
decodes any other (``rooftui.ingest.cache.decode_report``).
"""

from __future__ import annotations

import math
import sys
from array import array

from rooftui.ingest import units
from rooftui.ingest.cache_entry import TEXT, Column, Entry
from rooftui.ingest.report import failed_launch_note, is_measured
from rooftui.model.metrics import REGISTER_MOVES

FORMAT = "ncu-rep"
_TEXT_IDENTITY = ("kernel_name", "device", "cc", "grid", "block", "nvtx")


def entry_of_document(document: dict, key: str) -> Entry:
    """The entry, made for ``key``, of a reader's ``document`` (see ``_ncu_rep_worker``)."""
    launches, identity = document["launches"], document["identity"]
    names, unit_of = document["metrics"], document["units"]
    text = {name: Column(name, TEXT, values=list(identity[name])) for name in _TEXT_IDENTITY}
    columns = [
        Column("ncu_id", "int64", _little(array("q", range(launches)))),  # ncu's IDs: launch order from 0
        text["kernel_name"],
        Column("process_id", "float64", _little(array("d", [math.nan]) * launches)),
        _integers("device_index", identity["device_index"]),
        text["device"],
        text["cc"],
        text["grid"],
        text["block"],
        _integers("stream", identity["stream"]),
        text["nvtx"],
        Column(REGISTER_MOVES, "float64", _little(_doubles(identity["register_moves"]))),
    ]
    notes = []
    values = memoryview(document["values"])
    metrics = []
    for at, (name, unit) in enumerate(zip(names, unit_of)):
        column = array("d")
        column.frombytes(values[8 * launches * at : 8 * launches * (at + 1)])
        factor = units.factor(unit)
        if factor is None:
            notes.append(f"{name}: unknown unit {unit!r}, values taken as stored")
        elif factor != 1.0:
            column = array("d", [value * factor for value in column])
        metrics.append(column)
        columns.append(Column(name, "float64", _little(column)))
    notes += _failed_launch_notes(names, metrics, identity["kernel_name"], launches)
    return Entry(key, FORMAT, True, launches, columns, notes)


def _failed_launch_notes(
    names: list[str], metrics: list[array], kernel_names: list, launches: int
) -> list[str]:
    """The note on launches with every measured metric blank, where some, not all, are:
    a report where all are is refused by the parent (``report.failed_launch_notes``)."""
    measured = [column for name, column in zip(names, metrics) if is_measured(name)]
    if not measured:
        return []
    failed = [row for row in range(launches) if all(math.isnan(column[row]) for column in measured)]
    if not failed or len(failed) == launches:
        return []
    return [failed_launch_note([(row, kernel_names[row]) for row in failed[:3]], len(failed))]


def _integers(name: str, values: list) -> Column:
    """An int64 column, or int64 with a mask (pandas' nullable Int64) where some launch lacks it."""
    if all(value is not None for value in values):
        return Column(name, "int64", _little(array("q", [int(value) for value in values])))
    filled = array("q", [0 if value is None else int(value) for value in values])
    missing = bytes(value is None for value in values)
    return Column(name, "int64+mask", _little(filled) + missing)


def _doubles(values: list) -> array:
    return array("d", [math.nan if value is None else float(value) for value in values])


def _little(column: array) -> bytes:
    """The column's bytes, little-endian as the entry format stores them."""
    if sys.byteorder == "big":
        column = array(column.typecode, column)
        column.byteswap()
    return column.tobytes()
