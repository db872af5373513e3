"""The structure check's quick read of a CSV line (``csv_structure._quoted_fields``) against
the csv module, which reads every other line: where the quick read answers, it is the csv
module's field count and fields."""

from __future__ import annotations

import csv
import io
import random

from rooftui.ingest.csv_structure import _quoted_fields, _whole

# Cells as exports hold them, and the ones that make a quick read give up.
CELLS = ["", "0", "1,234", "n/a", "sm__inst.sum", 'say ""hi""', '","', '"', '""', ",", 'a"b', " x "]


def _written(cells: list[str], quoting: int = csv.QUOTE_ALL, end: str = "\n") -> str:
    handle = io.StringIO()
    csv.writer(handle, quoting=quoting, lineterminator=end).writerow(cells)
    return handle.getvalue()


def test_a_quick_read_gives_the_csv_modules_fields_or_leaves_the_line_to_it():
    rows = random.Random(26)
    answered = 0
    for _ in range(3000):
        cells = [rows.choice(CELLS) for _ in range(rows.randint(1, 8))]
        quoting = rows.choice([csv.QUOTE_ALL, csv.QUOTE_ALL, csv.QUOTE_MINIMAL])
        line = _written(cells, quoting, rows.choice(["\n", "\r\n"]))
        quick = _quoted_fields(line)
        if quick is None:
            continue
        answered += 1
        [record] = list(csv.reader([line], strict=True))
        head, inside = quick
        assert len(head) + inside.count('","') + 1 == len(record), line
        assert _whole(head, inside) == record, line
    assert answered > 700  # a third are QUOTE_MINIMAL lines, for the csv module; most others


def test_lines_it_leaves_to_the_csv_module():
    assert _quoted_fields('"a","b"') is None  # no line end: the csv module decides
    assert _quoted_fields('"a"\r') is None  # a lone carriage return
    assert _quoted_fields('"\n') is None  # one quote: a field that goes on
    assert _quoted_fields('"a" ,"b"\n') is None  # a space after the closing quote
    assert _quoted_fields('a,"b"\n') is None  # an unquoted field first
    assert _quoted_fields('"a\0","b"\n') is None  # NUL
    assert _quoted_fields('"' + "x" * (csv.field_size_limit() + 1) + '"\n') is None
    assert _quoted_fields('"a","say ""hi"""\n') is None  # a quote inside the last field
    assert _quoted_fields('"a","x"",""y","b"\n') == (["a", 'x","y'], "b")  # "," inside a field
    assert _quoted_fields('"a","","b"\n') == ([], 'a","","b')  # an empty field is no quote inside
