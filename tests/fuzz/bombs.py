"""CSV bombs: ncu CSV exports that decompress to ~1 GiB of rows (issue #25).

Under the 4 GiB input cap, a CSV export of a million launches is not refused by its size;
what bounds rooftui's memory is the count of launches and rows a reader will hold
(``rooftui.ingest.csv_structure``). Each bomb is built by repeating a row of the known-answer
exports with a fresh launch ID, so it looks whole to every other check.

``csv_bomb(kind, total_bytes)`` gives the gzip-compressed bytes (one row repeated compresses
~100x, so a 1 GiB bomb is ~10 MB to hold and write); the tests use a few MB with a lowered
limit, ``benchmarks/fuzz_run.py --bombs`` the full size with rooftui's defaults.
"""

from __future__ import annotations

import csv
import io
import zlib

from tests.fuzz.generators import KNOWN

CSV_BOMB_KINDS = {
    "raw-launches": "raw CSV: one launch row repeated with IDs 0, 1, 2, ...",
    "raw-empty-cells": "raw CSV: rows of empty cells with IDs 0, 1, 2, ...",
    "details-launches": "details CSV: one launch's metric rows repeated with IDs 0, 1, 2, ...",
    "raw-same-launch": "raw CSV: one launch row repeated with the same ID",
}


def _lines(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def _row(fields: list[str]) -> bytes:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(fields)
    return out.getvalue().encode()


def csv_bomb(kind: str, total_bytes: int) -> bytes:
    """A gzip stream of an export of ``kind`` (CSV_BOMB_KINDS) with ~``total_bytes`` of rows."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip framing, fast
    if kind.startswith("details"):
        rows = _lines((KNOWN / "known_answer.details-base.csv").read_text())
        header, body = rows[0], rows[1:]
        one_launch = [row for row in body if row[0] == body[0][0]]
        top = [header]
    else:
        rows = _lines((KNOWN / "known_answer.raw-base.csv").read_text())
        header, units, body = rows[0], rows[1], rows[2:]
        one_launch = [body[0]]
        if kind == "raw-empty-cells":
            one_launch = [[body[0][0]] + [""] * (len(header) - 1)]
        top = [header, units]
    out = [packer.compress(b"".join(_row(r) for r in top))]
    template = b"".join(_row(["\0", *row[1:]]) for row in one_launch)  # the ID filled in below
    launch, written = 0, 0
    while written < total_bytes:
        block = template.replace(b"\0", b"0" if kind == "raw-same-launch" else str(launch).encode())
        out.append(packer.compress(block))
        written += len(block)
        launch += 1
    return b"".join(out) + packer.flush()
