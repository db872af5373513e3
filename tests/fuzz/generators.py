"""Seeded generators of damaged and hostile inputs for every kind rooftui reads.

``cases(seed, count)`` yields ``Case``s: files to write (name -> bytes) and the command
line to run on them. The same seed gives the same cases on every machine (plain
``random.Random``), so a failure is reproduced by its seed and index alone.

Kinds: raw CSV, details CSV, ``.ncu-rep`` bytes, ceilings JSON (rooftui's and ERT's),
Kineto traces; each optionally ``.gz``/``.xz``/``.bz2`` compressed (and the compressed
bytes damaged in turn). Mutations: truncation at any byte and exactly at a row/record
boundary, byte flips, structural edits (duplicated header/row/ID, ``==PROF==`` lines,
short rows, BOM, CRLF, no final newline), hostile names (escape sequences, OSC 52,
rich markup, newlines, empty), hostile values (negative, inf, NaN, huge digit strings,
booleans, wrong types, deep nesting) and small bombs (a low ``ROOFTUI_MAX_INPUT_BYTES``
is set by the runners, so a bomb of a few MB proves the cap without using memory).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import random
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KNOWN = ROOT / "sample_data" / "known_answer"
CEILINGS = ROOT / "sample_data" / "ceilings"

# Names that must never reach a terminal raw, nor be read as markup.
HOSTILE_NAMES = [
    "k\x1b]52;c;cm0gLXJmIH4=\x07(int)",  # OSC 52: write the clipboard
    "k\x1b]0;pwned\x07",  # OSC 0: window title
    "k\x1b[2J\x1b[H",  # clear the screen
    "[lambda(int) (instance 1)]",
    "a[/x]b",
    "[bold red]x[/bold red]",
    "line\nbreak",
    "tab\there\rcr",
    "\x9b31m c1 csi",
    "",
    ":fire: emoji code",
    "é ünïcode ✓ 名前",
    "x" * 300,
]
HOSTILE_VALUES = [
    "-1",
    "-5e9",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "1e400",
    "9" * 400,
    "abc",
    "",
    "n/a",
    "1,2,3",
    "0x10",
    " 12 ",
    "1e-400",
    "true",
]
BOMB_BYTES = 3 << 20  # the runners set ROOFTUI_MAX_INPUT_BYTES below this
TRACE_EVENT_LIMIT = 2000  # ROOFTUI_MAX_TRACE_EVENTS of the trace cases (their base has ~200)


@dataclass
class Case:
    kind: str
    label: str
    files: dict[str, bytes]
    argv: list[str]  # "{name}" is replaced by the written file's path
    exact_stdout: bool = False  # CSV/JSON output: names kept exactly, escapes included
    env: dict[str, str] = field(default_factory=dict)
    must_fail: bool = False  # damage rooftui can detect: loading it is silent damage
    must_succeed: bool = False  # nothing wrong with the input: an error is a wrong refusal
    setup: Callable[[Path], None] | None = None  # after the files are written (links, the cache)
    check_stdout: Callable[[str], str | None] | None = None  # a problem with the output, or None


# ---------------------------------------------------------------- bases


@cache
def _raw_base() -> bytes:
    return (KNOWN / "known_answer.raw-base.csv").read_bytes()


@cache
def _raw_scaled() -> bytes:
    return (KNOWN / "known_answer.raw.csv").read_bytes()


@cache
def _details_base() -> bytes:
    return (KNOWN / "known_answer.details-base.csv").read_bytes()


@cache
def _ncu_rep() -> bytes:
    return (KNOWN / "known_answer.ncu-rep").read_bytes()


@cache
def _ceilings() -> dict:
    return json.loads((CEILINGS / "h200.json").read_text())


@cache
def _ert() -> dict:
    return json.loads((CEILINGS / "h200.roofline.json").read_text())


def _trace() -> dict:
    events: list[dict] = [
        {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python3"}},
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "main"}},
    ]
    t = 1_000_000.0
    for step in range(3):
        events.append(
            {
                "ph": "X",
                "cat": "user_annotation",
                "name": f"ProfilerStep#{step}",
                "pid": 1,
                "tid": 1,
                "ts": t,
                "dur": 900.0,
            }
        )
        for k in range(4):
            corr = step * 10 + k
            events.append(
                {
                    "ph": "X",
                    "cat": "cuda_runtime",
                    "name": "cudaLaunchKernel",
                    "pid": 1,
                    "tid": 1,
                    "ts": t + 10 + 100 * k,
                    "dur": 5.0,
                    "args": {"correlation": corr},
                }
            )
            events.append(
                {
                    "ph": "X",
                    "cat": "kernel",
                    "name": f"kernel_{k}",
                    "pid": 0,
                    "tid": 7,
                    "ts": t + 20 + 100 * k,
                    "dur": 60.0,
                    "args": {"device": 0, "stream": 7, "correlation": corr},
                }
            )
        events.append(
            {
                "ph": "X",
                "cat": "cuda_runtime",
                "name": "cudaStreamSynchronize",
                "pid": 1,
                "tid": 1,
                "ts": t + 500,
                "dur": 300.0,
                "args": {"correlation": 999 + step},
            }
        )
        t += 1000.0
    return {"schemaVersion": 1, "traceEvents": events}


# ---------------------------------------------------------------- CSV edits


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def _write_rows(rows: list[list[str]], quote_all: bool = True) -> bytes:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL, lineterminator="\n").writerows(
        rows
    )
    return out.getvalue().encode("utf-8")


def _line_starts(data: bytes) -> list[int]:
    return [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A and i + 1 < len(data)]


def _first_data_row(rows: list[list[str]]) -> int:
    return 2 if len(rows) > 1 and rows[1] and rows[1][0] == "" else 1


@cache
def _live_log() -> bytes:
    """ncu's own log of the known-answer run: a 'Profiling "k" - ID:' line per launch."""
    return (KNOWN / "known_answer.ncu.log").read_bytes()


def csv_mutations(base: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One structural, byte-level or value mutation of an ncu CSV export."""
    rows = _rows(base)
    header = rows[0]
    first = _first_data_row(rows)
    data_rows = range(first, len(rows))
    r = rng.choice(list(data_rows))
    name_col = header.index("Kernel Name")
    choice = rng.randrange(23)
    if choice == 0:
        return "truncate-any-byte", base[: rng.randrange(1, len(base))]
    if choice == 22:  # as ncu run live writes it (its log above the table), cut at a row
        cut = rng.choice(_line_starts(base)[1:])
        return "live-log-truncate-row-boundary", _live_log() + base[:cut]
    if choice == 1:
        cut = rng.choice(_line_starts(base)[1:])
        return "truncate-row-boundary", base[:cut]
    if choice == 2:
        flipped = bytearray(base)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(flipped))
            flipped[i] = rng.randrange(256)
        return "byte-flips", bytes(flipped)
    if choice == 3:
        rows[r][name_col] = rng.choice(HOSTILE_NAMES)
        return "hostile-kernel-name", _write_rows(rows)
    if choice == 4:
        column = rng.randrange(len(header))
        rows[r][column] = rng.choice(HOSTILE_VALUES)
        return f"hostile-cell:{header[column][:40]}", _write_rows(rows)
    if choice == 5:
        j = rng.randrange(len(header))
        header.insert(j, header[rng.randrange(len(header))])
        for row in rows[1:]:
            row.insert(j, row[j] if j < len(row) else "")
        return "duplicated-header", _write_rows(rows)
    if choice == 6:
        rows.insert(r, list(rows[r]))
        return "duplicated-row", _write_rows(rows)
    if choice == 7:
        lines = base.split(b"\n")
        lines.insert(rng.randrange(first + 1, len(lines)), b"==PROF== Disconnected from process 1234")
        return "prof-line-inside", b"\n".join(lines)
    if choice == 8:
        return "prof-line-at-end", base + b"==PROF== Disconnected from process 1234\n"
    if choice == 9:
        rows[r] = rows[r][: rng.randrange(1, len(rows[r]))]
        return "short-row", _write_rows(rows)
    if choice == 10:
        return "bom", b"\xef\xbb\xbf" + base
    if choice == 11:
        return "no-final-newline", base.rstrip(b"\n")
    if choice == 12:
        return "crlf", base.replace(b"\n", b"\r\n")
    if choice == 13:
        id_col = header.index("ID")
        rows[r][id_col] = rng.choice(["", "x", "-1", "1.5", "9" * 40, "99999999999999999999", "0"])
        return "bad-id", _write_rows(rows)
    if choice == 14 and "CC" in header:
        rows[r][header.index("CC")] = rng.choice(["9.0.1", "", "x", "1e999", "90"])
        return "odd-cc", _write_rows(rows)
    if choice == 15:
        for column in ("Stream", "Device", "Process ID"):
            if column in header:
                rows[r][header.index(column)] = rng.choice(["9" * 400, "-3", "x", ""])
        return "odd-identity-ints", _write_rows(rows)
    if choice == 16:
        rows[r][name_col] = "k" * rng.choice([131073, 200000])
        return "huge-field", _write_rows(rows)
    if choice == 17 and first == 2:
        column = rng.randrange(len(header))
        rows[1][column] = rng.choice(["furlong", "Kfurlong", "byte/fortnight", "%%", "x"])
        return f"unknown-unit:{header[column][:40]}", _write_rows(rows)
    if choice == 18:
        return "long-line", base + b"x" * (BOMB_BYTES // 2)
    if choice == 19:
        return "only-header", b"\n".join(base.split(b"\n")[:first]) + b"\n"
    if choice == 20:
        return "rows-bomb", base + b"\n" * BOMB_BYTES
    time_col = next((i for i, h in enumerate(header) if h.startswith("gpu__time_duration")), None)
    if time_col is not None:
        for row in rows[first:]:
            row[time_col] = rng.choice(["0", "-1", "inf", ""])
        return "every-kernel-invalid", _write_rows(rows)
    return "unchanged", base


def details_mutations(base: bytes, rng: random.Random) -> tuple[str, bytes]:
    rows = _rows(base)
    header = rows[0]
    choice = rng.randrange(8)
    if choice == 0:
        column = header.index("Metric Unit")
        rows[rng.randrange(1, len(rows))][column] = rng.choice(["furlong", "Ms", "xbyte", "1/x"])
        return "details-unknown-unit", _write_rows(rows)
    if choice == 1:
        drop = rng.choice(["Kernel Name", "Metric Unit", "Metric Value", "ID"])
        j = header.index(drop)
        return f"details-no-{drop}", _write_rows([row[:j] + row[j + 1 :] for row in rows])
    if choice == 2:
        column = header.index("Metric Value")
        rows[rng.randrange(1, len(rows))][column] = rng.choice(HOSTILE_VALUES)
        return "details-hostile-value", _write_rows(rows)
    if choice == 3:
        r = rng.randrange(1, len(rows))
        copy = list(rows[r])
        copy[header.index("Metric Value")] = "12345"
        rows.insert(r + 1, copy)
        return "details-duplicated-metric", _write_rows(rows)
    if choice == 4:  # cut exactly at a row boundary inside the last kernel
        lines = base.split(b"\n")
        return "details-truncate-row-boundary", b"\n".join(lines[: rng.randrange(2, len(lines) - 1)]) + b"\n"
    return csv_mutations(base, rng)


# ---------------------------------------------------------------- .ncu-rep


def record_offsets(data: bytes) -> list[int]:
    """Where each record of an ``.ncu-rep`` starts, after its 4-byte signature: the plain
    walk of length prefixes (``rooftui.ingest.ncu_rep_records`` says the layout)."""
    offsets, offset = [], 4
    while offset + 4 <= len(data):
        offsets.append(offset)
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4 + length
    return offsets


def ncu_rep_mutations(base: bytes, rng: random.Random) -> tuple[str, bytes]:
    choice = rng.randrange(7)
    if choice == 0:
        return "rep-truncate-any-byte", base[: rng.randrange(1, len(base))]
    if choice == 1:
        cut = rng.choice(record_offsets(base)[1:])
        return "rep-truncate-record-boundary", base[:cut]
    if choice == 2:
        flipped = bytearray(base)
        for _ in range(rng.randint(1, 16)):
            i = rng.randrange(4, len(flipped))
            flipped[i] = rng.randrange(256)
        return "rep-byte-flips", bytes(flipped)
    if choice == 3 and rng.random() < 0.5:
        return "rep-zero-records-bomb", b"NVR\0" + b"\0" * (4 * 1_100_000)
    if choice == 3:  # damage inside one record's body: a result ncu_report cannot parse
        offsets = record_offsets(base)
        offset = rng.choice(offsets[1:])
        (length,) = struct.unpack_from("<I", base, offset)
        flipped = bytearray(base)
        for _ in range(rng.randint(1, 8)):
            if length:
                flipped[offset + 4 + rng.randrange(length)] ^= 0xFF
        return "rep-flips-in-one-record", bytes(flipped)
    if choice == 4:
        return "rep-signature-only", b"NVR\0"
    if choice == 5:
        offset = rng.choice(record_offsets(base))
        patched = bytearray(base)
        struct.pack_into("<I", patched, offset, rng.choice([0, 1, 0xFFFFFFFF, 7]))
        return "rep-bad-record-length", bytes(patched)
    return "rep-not-a-report", bytes(rng.randrange(256) for _ in range(rng.randint(1, 4096)))


# ---------------------------------------------------------------- JSON


def _set_random_leaf(doc, rng: random.Random, value) -> str:
    """Replace one value somewhere in ``doc`` by ``value``; the path it took."""
    path, node = [], doc
    while True:
        if isinstance(node, dict) and node:
            key = rng.choice(list(node))
        elif isinstance(node, list) and node:
            key = rng.randrange(len(node))
        else:
            return "/".join(map(str, path))
        path.append(key)
        if not isinstance(node[key], (dict, list)) or rng.random() < 0.3:
            node[key] = value
            return "/".join(map(str, path))
        node = node[key]


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


JSON_VALUES = [
    0,
    -1,
    -1e300,
    True,
    False,
    None,
    "x",
    "\x1b]52;c;aGk=\x07",
    [],
    {},
    1e308,
    [[1, 2]],
    {"a": 1},
    "[/x]",
]


def json_mutations(doc: dict, rng: random.Random, limit_bytes: int = 0) -> tuple[str, bytes]:
    text = json.dumps(doc, indent=1)
    choice = rng.randrange(9)
    if choice == 0:
        return "json-truncate", text.encode()[: rng.randrange(1, len(text))]
    if choice == 1:
        flipped = bytearray(text.encode())
        for _ in range(rng.randint(1, 6)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        return "json-byte-flips", bytes(flipped)
    if choice == 2:
        return "json-deep-nesting", (
            text[:-1] + ', "deep": ' + _deep(rng.choice([1000, 5000, 50000])) + "}"
        ).encode()
    if choice == 3:
        copy = json.loads(text)
        if rng.random() < 0.5:  # a 400- or 5,000-digit integer, written by hand
            where = _set_random_leaf(copy, rng, "HUGE-INTEGER")
            digits = "9" * rng.choice([400, 5000])
            return f"json-huge-int:{where}", json.dumps(copy).replace('"HUGE-INTEGER"', digits).encode()
        where = _set_random_leaf(copy, rng, rng.choice(JSON_VALUES))
        return f"json-value:{where}", json.dumps(copy).encode()
    if choice == 4:
        copy = json.loads(text)
        where = _set_random_leaf(copy, rng, float(rng.choice(["nan", "inf", "-inf"])))
        return f"json-nonfinite:{where}", json.dumps(copy).encode()  # NaN/Infinity literals
    if choice == 5:
        return "json-whitespace-bomb", b" " * BOMB_BYTES + text.encode()
    if choice == 6:
        return "json-not-object", rng.choice([b"[]", b"1", b"null", b'"x"', b"{}"])
    if choice == 7:
        return "json-bom", b"\xef\xbb\xbf" + text.encode()
    copy = json.loads(text)
    where = _set_random_leaf(copy, rng, rng.choice(HOSTILE_NAMES))
    return f"json-hostile-string:{where}", json.dumps(copy).encode()


def trace_mutations(rng: random.Random) -> tuple[str, bytes]:
    doc = _trace()
    events = doc["traceEvents"]
    choice = rng.randrange(11)
    event = rng.choice([e for e in events if e.get("ph") == "X"])
    if choice == 0:
        event["name"] = rng.choice([1, None, [], {"a": 1}, 2.5, True])
        return "trace-non-string-name", json.dumps(doc).encode()
    if choice == 1:
        key = rng.choice(["ts", "dur"])
        event[key] = rng.choice([2**63, 2**64 + 1, -(2**63) - 1, 10**30])
        return f"trace-huge-int-{key}", json.dumps(doc).encode()
    if choice == 2:
        for e in events:
            if str(e.get("name", "")).startswith("ProfilerStep"):
                e["dur"] = 0
        return "trace-zero-length-steps", json.dumps(doc).encode()
    if choice == 3:
        event["dur"] = rng.choice([-1e9, -1, 1e15, float("nan"), float("inf")])
        return "trace-bad-duration", json.dumps(doc).encode()
    if choice == 4:
        event.setdefault("args", {})[rng.choice(["correlation", "stream", "device", "bytes"])] = rng.choice(
            [2**63, "x", [], None, -(2**70)]
        )
        return "trace-bad-args", json.dumps(doc).encode()
    if choice == 5:
        text = json.dumps(doc)
        return "trace-deep-nesting", text.replace(
            '"traceEvents": [', '"traceEvents": [' + _deep(rng.choice([1000, 5000, 20000])) + ",", 1
        ).encode()
    if choice == 6:
        event["name"] = rng.choice(HOSTILE_NAMES)
        return "trace-hostile-name", json.dumps(doc).encode()
    if choice == 7:
        text = json.dumps(doc).encode()
        return "trace-truncate", text[: rng.randrange(1, len(text))]
    if choice == 8:
        return "trace-events-bomb", json.dumps({"traceEvents": [{}] * (BOMB_BYTES // 3)}).encode()
    if choice == 9:  # more kept events than the limit the case sets (TRACE_EVENT_LIMIT)
        events.extend(dict(event, ts=event["ts"] + i) for i in range(TRACE_EVENT_LIMIT))
        return "trace-over-event-limit", json.dumps(doc).encode()
    text = bytearray(json.dumps(doc).encode())
    for _ in range(rng.randint(1, 6)):
        text[rng.randrange(len(text))] = rng.randrange(256)
    return "trace-byte-flips", bytes(text)


# ---------------------------------------------------------------- compression

COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": lambda data: gzip.compress(data, mtime=0),
    ".xz": lzma.compress,
    ".bz2": bz2.compress,
}


def compress(name: str, data: bytes, rng: random.Random) -> tuple[str, str, bytes]:
    """Maybe compress ``data`` (and maybe damage the compressed bytes)."""
    roll = rng.random()
    if roll < 0.6:
        return name, "", data
    suffix = rng.choice(list(COMPRESSORS))
    packed = COMPRESSORS[suffix](data)
    how = suffix
    damage = rng.random()
    if damage < 0.25:
        packed = packed[: rng.randrange(1, len(packed))]
        how += "-truncated"
    elif damage < 0.4:
        flipped = bytearray(packed)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        packed = bytes(flipped)
        how += "-flipped"
    elif damage < 0.5:
        packed = data  # a plain file named .xz
        how += "-not-compressed"
    return name + suffix, how, packed


# ---------------------------------------------------------------- cases

REPORT_COMMANDS = [
    (["summary", "{a}"], False),
    (["summary", "{a}", "--group"], False),
    (["summary", "{a}", "--format", "json"], True),
    (["summary", "{a}", "--format", "csv"], True),
    (["summary", "{a}", "--skip-invalid"], False),
    (["diff", "{a}", "{b}"], False),
    (["plot", "{a}", "--csv", "{out}/rows.csv"], False),
    (["plot", "{a}", "--svg", "{out}/roofline.svg", "--csv", "{out}/rows.csv"], False),
]


ROUND_THREE_KINDS = ("sidecar", "structure", "profile-args")  # issue #25
ROUND_FOUR_KINDS = ("cache", "duplicates")  # issue #25, tests/fuzz/cache_and_duplicates.py


def cases(seed: int, count: int, kinds: tuple[str, ...] | None = None) -> Iterator[Case]:
    """``count`` cases from ``seed``, cycling over the input kinds."""
    rng = random.Random(seed)
    every = (
        "raw-csv",
        "raw-csv-scaled",
        "details-csv",
        "ncu-rep",
        "ceilings",
        "ert",
        "trace",
        *ROUND_THREE_KINDS,
        *ROUND_FOUR_KINDS,
    )
    chosen = kinds or every
    for index in range(count):
        kind = chosen[index % len(chosen)]
        yield _case(kind, rng)


# ---------------------------------------------------------------- round three (issue #25)

MULTIGPU = ROOT / "sample_data" / "multigpu"


def sidecar_mutations(rng: random.Random) -> tuple[str, bytes, bool]:
    """A damaged ``REPORT.communication.csv``: (label, bytes, whether it must be refused)."""
    base = (MULTIGPU / "ddp.communication.csv").read_bytes()
    rows = _rows(base)
    header = rows[0]
    r = rng.randrange(1, len(rows))
    choice = rng.randrange(10)
    if choice == 0:
        rows[r][header.index("time_s")] = rng.choice(["-4.99", "-1e-9", "inf", "nan", "-inf"])
        return "sidecar-bad-time", _write_rows(rows, quote_all=False), True
    if choice == 1:
        rows[r][header.index("time_s")] = rng.choice(["fast", "", "1,5", "0x10", "9" * 5000])
        return "sidecar-text-time", _write_rows(rows, quote_all=False), rows[r][3] != "9" * 5000
    if choice == 2:
        column = rng.choice(["rank", "ncu_id", "name", "time_s"])
        at = header.index(column)
        kept = [row[:at] + row[at + 1 :] for row in rows]
        return f"sidecar-no-{column}", _write_rows(kept, quote_all=False), True
    if choice == 3:
        return "sidecar-empty", b"", True
    if choice == 4:
        return "sidecar-truncate-any-byte", base[: rng.randrange(1, len(base))], False
    if choice == 5:
        flipped = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        return "sidecar-byte-flips", bytes(flipped), False
    if choice == 6:
        rows[r][header.index("name")] = rng.choice(HOSTILE_NAMES)
        return "sidecar-hostile-name", _write_rows(rows, quote_all=False), False
    if choice == 7:
        rows[r][header.index("rank")] = rng.choice(["x", "-1", "", "1.5"])
        return "sidecar-bad-rank", _write_rows(rows, quote_all=False), True
    if choice == 8:
        return "sidecar-bomb", base + b"0,1,nccl,1e-6,true,x\n" * (BOMB_BYTES // 20), False
    return "sidecar-unchanged", base, False


def structure_mutations(base: bytes, rng: random.Random) -> tuple[str, bytes, bool]:
    """The structure damage a human sees in a raw export: (label, bytes, must be refused)."""
    rows = _rows(base)
    header = rows[0]
    first = _first_data_row(rows)
    middle = rng.randrange(first, len(rows) - 1)
    choice = rng.randrange(7)
    if choice == 0:
        del rows[middle][rng.randrange(len(header))]
        return "middle-row-one-field-short", _write_rows(rows), True
    if choice == 1:
        rows[middle].insert(rng.randrange(len(header)), "0")
        return "middle-row-one-field-long", _write_rows(rows), True
    if choice == 2 and first == 2:
        del rows[1]
        return "units-row-dropped", _write_rows(rows), True
    if choice == 3:
        moved = [*rows[first : middle + 1], *rows[:first], *rows[middle + 1 :]]
        return "header-below-data", _write_rows(moved), True
    if choice == 4:
        text = base.rstrip(b"\n")
        return "cut-inside-last-field", text[: -rng.randint(1, 2)], True  # its quote left open
    if choice == 5:
        rows[-1][header.index("Kernel Name")] = "k" + "x" * (70 << 10) + "\nnext line"
        return "long-last-row-with-newline", _write_rows(rows), False
    del rows[first]
    return "first-launch-missing", _write_rows(rows), False


def _cut_short_note(rng: random.Random) -> tuple[str, bytes]:
    return rng.choice(
        [
            (
                "note-plain",
                b"stopped on a stall\nThis report holds only the kernels profiled before the stop.\n",
            ),
            ("note-escape", b"stopped \x1b]52;c;cm0gLXJmIH4=\x07 early\n"),
            ("note-bomb", b"x" * BOMB_BYTES),
            ("note-binary", bytes(range(256)) * 64),
            ("note-empty", b""),
        ]
    )


PROFILE_OUTPUTS = ["afile/run", "", ".", "..", "out/", "r" * 300, "run", "nodir/run", "é\x1b[2J"]
PROFILE_COMMANDS = [
    ["true"],
    ["torchrun", "--nproc_per_node", "100000000", "t.py"],
    ["torchrun", "--nproc_per_node", "9" * 5000, "t.py"],
    ["mpirun", "-np", "1e8", "a"],
    ["mpirun", "-N", "100", "-H", ",".join(f"h{i}" for i in range(2000)), "a"],
    ["srun", "--nodes", "100000", "--ntasks-per-node", "8", "a"],
    ["srun", "-n-3", "a"],
]
PROFILE_RANKS = [None, "0-9999999999", "0-3", "x", "3-1", "0," * 1000 + "0", "1" * 5000]


def _profile_case(rng: random.Random) -> Case:
    """``profile`` with hostile arguments, none of which may run ncu (a fake that would
    leave ``ncu-ran`` behind, as a file left behind, if it ran)."""
    output = rng.choice(PROFILE_OUTPUTS)
    command = rng.choice(PROFILE_COMMANDS)
    ranks = rng.choice(PROFILE_RANKS)
    argv = ["profile", "--ncu", "{dir}/missing-ncu", "--arch", "sm_90"]
    if rng.random() < 0.8:
        argv += ["-o", output if output in ("", "r" * 300, "é\x1b[2J") else "{dir}/" + output]
    if ranks is not None:
        argv += ["--ranks", ranks]
    env = {"SLURM_NTASKS": "1e8"} if command[0] == "srun" and rng.random() < 0.5 else {}
    files = {"afile": b"", "run.ncu.log/keep": b""}
    return Case(
        "profile-args",
        f"profile:{output[:12]!r}:{command[0]}:{(ranks or '')[:12]}",
        files,
        [*argv, "--", *command],
        env=env,
    )


def _round_three_case(kind: str, rng: random.Random) -> Case:
    if kind == "profile-args":
        return _profile_case(rng)
    if kind == "structure":
        base = _raw_base() if rng.random() < 0.5 else _raw_scaled()
        label, data, refuse = structure_mutations(base, rng)
        name, how, data = compress("run.raw.csv", data, rng)
        argv, exact = rng.choice(REPORT_COMMANDS)
        files = {"a": (name, data), "b": ("good.raw.csv", _raw_base())}
        return Case(
            kind,
            label + how,
            {n: d for n, d in files.values()},
            [_fill(a, files) for a in argv],
            exact,
            must_fail=refuse or _must_fail(label, how),
        )
    label, data, refuse = sidecar_mutations(rng)
    files = {n: (MULTIGPU / n).read_bytes() for n in ("ddp.rank0.raw.csv.xz", "ddp.rank1.raw.csv.xz")}
    files["ddp.communication.csv"] = data
    if rng.random() < 0.3:
        note, text = _cut_short_note(rng)
        files["ddp.rank1.cut-short.txt"] = text
        label += "+" + note
    argv, exact = rng.choice(
        [
            (["summary"], False),
            (["summary", "--format", "json"], True),
            (["summary", "--group"], False),
            (["summary", "--format", "csv"], True),
        ]
    )
    reports = ["{dir}/ddp.rank0.raw.csv.xz", "{dir}/ddp.rank1.raw.csv.xz"]
    # the CSV of the kernel table has no per-rank rows: it does not read the sidecar
    uses_sidecar = "csv" not in argv
    return Case(
        kind, label, files, [*argv[:1], *reports, *argv[1:]], exact, must_fail=refuse and uses_sidecar
    )


def _case(kind: str, rng: random.Random) -> Case:
    if kind in ROUND_FOUR_KINDS:
        from tests.fuzz.cache_and_duplicates import cache_case, duplicate_case

        return cache_case(rng) if kind == "cache" else duplicate_case(rng)
    if kind in ROUND_THREE_KINDS:
        return _round_three_case(kind, rng)
    good = KNOWN / "known_answer.raw-base.csv"
    if kind in ("raw-csv", "raw-csv-scaled", "details-csv", "ncu-rep"):
        if kind == "ncu-rep":
            label, data = ncu_rep_mutations(_ncu_rep(), rng)
            name = "run.ncu-rep"
        elif kind == "details-csv":
            label, data = details_mutations(_details_base(), rng)
            name = "run.details.csv"
        else:
            label, data = csv_mutations(_raw_base() if kind == "raw-csv" else _raw_scaled(), rng)
            name = "run.raw.csv"
        name, how, data = compress(name, data, rng)
        argv, exact = rng.choice(REPORT_COMMANDS)
        files = {"a": (name, data), "b": ("good.raw.csv", good.read_bytes())}
        return Case(
            kind,
            label + how,
            {n: d for n, d in files.values()},
            [_fill(a, files) for a in argv],
            exact,
            must_fail=_must_fail(label, how),
        )
    if kind in ("ceilings", "ert"):
        label, data = json_mutations(_ceilings() if kind == "ceilings" else _ert(), rng)
        name, how, data = compress("ceilings.json", data, rng)
        files = {"a": ("good.raw.csv", good.read_bytes()), "c": (name, data)}
        argv = (
            ["measure", "--show", "{c}"]
            if kind == "ceilings" and rng.random() < 0.5
            else ["summary", "{a}", "--ceilings", "{c}"]
        )
        return Case(
            kind,
            label + how,
            {n: d for n, d in files.values()},
            [_fill(a, files) for a in argv],
            must_fail=_must_fail(label, how),
        )
    label, data = trace_mutations(rng)
    name, how, data = compress("trace.json", data, rng)
    if how and not how.startswith(".gz"):
        name = name.rsplit(".", 1)[0]  # traces are .json or .json.gz: keep the content odd
    files = {"t": (name, data)}
    argv, exact = rng.choice([(["timeline", "{t}"], False), (["timeline", "{t}", "--format", "json"], True)])
    return Case(
        kind,
        label + how,
        {name: data},
        [_fill(a, files) for a in argv],
        exact,
        env={"ROOFTUI_MAX_TRACE_EVENTS": str(TRACE_EVENT_LIMIT)},
        must_fail=_must_fail(label, how),
    )


# Damage rooftui must refuse whatever else the case does: a compressed stream cut
# short (the container's end-of-stream marker is missing), a live-run CSV cut at a row
# (ncu's log names the launches the table lacks), a trace over the event limit.
_ALWAYS_REFUSED = ("live-log-truncate-row-boundary", "trace-over-event-limit")


def _must_fail(label: str, how: str) -> bool:
    return how.endswith("-truncated") or label in _ALWAYS_REFUSED


def _fill(arg: str, files: dict[str, tuple[str, bytes]]) -> str:
    for key, (name, _) in files.items():
        arg = arg.replace("{" + key + "}", "{dir}/" + name)
    return arg.replace("{out}", "{dir}/out")
