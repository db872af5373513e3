"""Older ncu CSV layouts, rewritten from today's known-answer exports.

What changed since ncu 2019.5 / 2020.1 (``nv-nsight-cu-cli``), as seen in the public
files of the paper (cyanguwa/DeepLearningProfiling) and others' parsers: a
``Kernel Time`` column (a launch timestamp) after ``Kernel Name``; no ``Block Size``,
``Grid Size``, ``Device`` or ``CC``; no device display name; the program's output and
``==PROF==`` lines before the header; the ``sm__sass_*`` spelling of the instruction
counters; and in some versions unquoted rows with empty cells.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

DROPPED = ("Block Size", "Grid Size", "Device", "CC")
PROLOGUE = (
    "step is 1\n==PROF== Connected to process 548 (./known_answer)\n==PROF== Disconnected from process 548\n"
)


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text())))


def _old_header_and_rows(rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    header = rows[0]
    keep = [i for i, name in enumerate(header) if name not in DROPPED]
    after_name = header.index("Kernel Name") + 1
    out = []
    for row in rows:
        kept = [row[i] for i in keep]
        kept.insert(after_name, "Kernel Time" if row is header else "2020-Jun-10 01:58:21" if row[0] else "")
        out.append(kept)
    return out[0], out[1:]


def _write(path: Path, header: list[str], rows: list[list[str]], quoting: int = csv.QUOTE_ALL) -> Path:
    out = io.StringIO()
    out.write(PROLOGUE)
    writer = csv.writer(out, quoting=quoting, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(out.getvalue())
    return path


def old_details(
    source: Path,
    target: Path,
    sm_spelling: bool = True,
    quoting: int = csv.QUOTE_ALL,
    display_name: bool = False,
) -> Path:
    """The details export as ncu 2020.1 wrote it (``display_name``: with the device's name)."""
    header, rows = _old_header_and_rows(_rows(source))
    name, value = header.index("Metric Name"), header.index("Metric Value")
    rows = [row for row in rows if display_name or row[name] != "device__attribute_display_name"]
    if sm_spelling:
        for row in rows:
            row[name] = row[name].replace("smsp__sass_", "sm__sass_")
    if quoting == csv.QUOTE_MINIMAL:  # unquoted numbers keep no thousands separators
        for row in rows:
            row[value] = row[value].replace(",", "")
    return _write(target, header, rows, quoting)


def old_raw(source: Path, target: Path) -> Path:
    """The raw export (with its units row) as ncu 2020.1 wrote it, sm__sass_* spelling."""
    header, rows = _old_header_and_rows(_rows(source))
    header = [name.replace("smsp__sass_", "sm__sass_") for name in header]
    drop = [i for i, name in enumerate(header) if name == "device__attribute_display_name"]
    header = [h for i, h in enumerate(header) if i not in drop]
    rows = [[c for i, c in enumerate(row) if i not in drop] for row in rows]
    return _write(target, header, rows)
