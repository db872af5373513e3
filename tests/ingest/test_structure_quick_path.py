"""The CSV structure check reads most lines by index (``StructureCheck._quick_records``)
and the rest line by line with the csv module (``_records``): on every text, cut into
chunks anywhere, both must see the same rows, say the same notes and refuse with the
same line. Each text is checked twice, once with the quick path turned off."""

import random

from rooftui.errors import InputError
from rooftui.ingest.csv_structure import StructureCheck

RAW = ["ID", "Process ID", "Kernel Name", "thread Domain:Push/Pop_Range", "Grid Size", "m1", "m2", "m3"]
DETAILS = ["ID", "Kernel Name", "thread Domain:Push/Pop_Range", "Metric Name", "Metric Unit", "Metric Value"]
# Cells as ncu writes them, and what damaged or hand-made exports hold instead.
CELLS = [
    "1",
    "",
    "n/a",
    "(128, 1, 1)",  # commas inside a field
    '12  "<default domain>:forward:none"',  # ncu's NVTX cell: quotes, doubled when written
    '"',
    '""',
    'a,"",b',  # looks like an empty field between two others
    '","',
    "x\ny",  # a line end inside a field
    "é",
    "==PROF== x",
    "1,234",
]
BREAKS = ["\r", "\x0b", "\x1c", "\x00", "\u2028", "\x85"]


def _quoted(cells):
    return ",".join('"' + cell.replace('"', '""') + '"' for cell in cells)


def _row(rng, header, launch, name):
    cells = [str(launch)] + [rng.choice(CELLS) if rng.random() < 0.3 else "7" for _ in header[1:]]
    if "Metric Name" in header:
        cells[header.index("Metric Name")] = name
    return cells


def _export(rng):
    """A raw or details export, mostly as ncu writes it, with some of the damage seen in
    the field: log lines above the header, short or long rows, a repeated header or ID,
    unquoted cells, other line ends, a row cut short."""
    header = rng.choice([RAW, DETAILS])
    lines = []
    log = rng.choice([0, 0, 1, 3])
    for _ in range(log):
        lines.append(rng.choice(['==PROF== Profiling "k" - 0: 0%', "log", 'odd "quote', "1,2,3,4,5,6,7,8"]))
    lines.append(_quoted(header))
    if header is RAW and rng.random() < 0.9:
        lines.append(_quoted([""] * len(header)))
    names = ["a__x", "b__y", "c__z"]
    launches = rng.randint(1, 12)
    for launch in range(launches):
        for name in names if header is DETAILS else [""]:
            if header is DETAILS and rng.random() < 0.05:
                continue  # a kernel without one of its metric rows
            cells = _row(rng, header, launch if rng.random() > 0.03 else 0, name)
            damage = rng.random()
            if damage < 0.03:
                cells = cells[:-1]
            elif damage < 0.05:
                cells = [*cells, "extra"]
            elif damage < 0.07:
                cells = header
            line = _quoted(cells)
            if rng.random() < 0.05:
                line = ",".join(cells)  # not quoted
            if rng.random() < 0.04:
                line = line[: rng.randint(0, len(line))]
            lines.append(line)
    if rng.random() < 0.2:
        lines.append("==WARNING== done")
    end = "\r\n" if rng.random() < 0.2 else "\n"
    text = end.join(lines) + ("" if rng.random() < 0.1 else end)
    if rng.random() < 0.15:
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(BREAKS) + text[at:]
    return header, log, text


def _check(header, skip, text, chunks, quick, monkeypatch):
    """Feed ``text`` to a StructureCheck in ``chunks``; every row it saw, then its notes
    or its refusal, and how many characters the quick path read."""
    seen = []
    read = [0]
    check = StructureCheck("export.csv", skip, header, "HINT", units_row="Metric Name" not in header)
    row = check._row

    def recorded(fields, cells, line, record):
        wanted = max(check.id_at, check.kernels.name_at or 0) + 1
        seen.append((fields, cells[:wanted], line, record()))
        row(fields, cells, line, record)

    monkeypatch.setattr(check, "_row", recorded)
    quick_records = check._quick_records

    def counted(text):
        taken = quick_records(text) if quick else 0
        read[0] += taken
        return taken

    monkeypatch.setattr(check, "_quick_records", counted)
    try:
        for at in range(0, len(text), chunks):
            check.feed(text[at : at + chunks])
        check.finish()
    except InputError as err:
        return seen, str(err), read[0]
    return seen, check.notes, read[0]


def test_the_quick_path_sees_the_rows_and_says_what_the_line_by_line_path_says(monkeypatch):
    rng = random.Random(2026)
    compared = refused = quick_read = fed = 0
    for _ in range(360):
        header, skip, text = _export(rng)
        for chunks in (len(text) + 1, rng.randint(1, 40), rng.randint(40, 400)):
            quick = _check(header, skip, text, chunks, True, monkeypatch)
            by_line = _check(header, skip, text, chunks, False, monkeypatch)
            assert quick[:2] == by_line[:2], (text, chunks)
            compared += 1
            refused += isinstance(quick[1], str)
            quick_read += quick[2]
            fed += len(text)
    assert compared == 1080 and 0 < refused < compared  # both kinds of outcome were compared
    assert quick_read > 0.1 * fed  # and much of it went the quick way
