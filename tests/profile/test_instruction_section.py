"""rooftui's own instruction-level section: what it asks ncu for is exactly what the
register-move reader reads, and an ncu that cannot list it gets SourceCounters."""

from __future__ import annotations

import re

from rooftui.ingest import sass_moves
from rooftui.profile import instruction_section


def test_the_shipped_section_asks_for_exactly_the_counts_the_register_move_reader_reads():
    folder = instruction_section.section_folder()
    assert folder is not None
    text = (folder / f"{instruction_section.SECTION}.section").read_text()
    assert re.search(r'^Identifier: "(\w+)"', text, re.MULTILINE)[1] == instruction_section.SECTION
    names = re.findall(r'^ *Name: "([^"]+)"', text, re.MULTILINE)
    assert names == [sass_moves.PER_INSTRUCTION, sass_moves.PER_OPCODE]
    assert "pcsamp" not in text  # no PC sampling: the point of a lean section


def test_an_ncu_that_cannot_be_started_gets_source_counters_with_the_reason(tmp_path):
    missing = str(tmp_path / "no-such-ncu")
    chosen = instruction_section.instruction_section(missing)
    assert (chosen.name, chosen.folder) == ("SourceCounters", None)
    assert chosen.note is not None and chosen.note.startswith(
        "rooftui: its own RooftuiRegisterMoves section cannot be used (ncu --list-sections failed: "
    )
    assert "\n" not in chosen.note
