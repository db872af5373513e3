"""The record chain of an ``.ncu-rep`` (``rooftui.ingest.ncu_rep_records``), checked in the
parent before any reader starts: empty records, the record cap and the results its blocks
hold, on the known-answer report (15 launches) with records added by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftui.errors import InputError
from rooftui.ingest.ncu_rep_records import RecordChain
from tests.conftest import KNOWN
from tests.fuzz.generators import record_offsets

REPORT = KNOWN / "known_answer.ncu-rep"
EMPTY = b"\0\0\0\0"  # a record of no bytes: its length prefix alone


def chained(data: bytes, chunk: int, max_records: int = 1_000_000) -> RecordChain:
    chain = RecordChain(Path("r.ncu-rep"), max_records)
    for at in range(0, len(data), chunk):
        chain.feed(data[at : at + chunk])
    chain.finish()
    return chain


def test_empty_records_between_blocks_are_counted_and_leave_the_results_as_they_are():
    data = REPORT.read_bytes()
    offsets = record_offsets(data)
    after_file_header = offsets[1]  # the first block's header starts here
    padded = data[:after_file_header] + EMPTY * 1000 + data[after_file_header:]
    for chunk in (len(padded), 1 << 16, 4096, 7, 1):  # prefixes split across chunks too
        chain = chained(padded, chunk)
        assert (chain.records, chain.results) == (len(offsets) + 1000, 15), chunk
    with pytest.raises(InputError, match=f"more than {len(offsets) + 999:,} records"):
        chained(padded, 1 << 16, max_records=len(offsets) + 999)
    assert chained(padded, 1 << 16, max_records=len(offsets) + 1000).records == len(offsets) + 1000


def test_an_empty_record_inside_a_block_is_counted_as_one_of_its_records():
    data = REPORT.read_bytes()
    offsets = record_offsets(data)
    inside = offsets[16]  # kernel ID 1's result, in the block whose header is record 15
    padded = data[:inside] + EMPTY + data[inside:]
    chain = chained(padded, 1 << 16)
    # one record more than the block announces: its layout is not the one known, so no
    # result count is claimed
    assert (chain.records, chain.results) == (len(offsets) + 1, None)
    assert chained(data, 1 << 16).results == 15
