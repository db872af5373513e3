"""Notes are data: a kind tools and tests match, the sentence a user reads, the fix."""

import json
import pickle

import pytest

from rooftui.cli import main
from rooftui.model.byte_sources import L2_FROM_L1_WHAT
from rooftui.notes import KINDS, Note, kind_of, prefixed
from rooftui.sample import sample_paths


def test_a_note_is_its_sentence_and_keeps_its_kind_and_fix():
    note = Note("phases_inferred", "88 launches ... inferred", "--no-infer-phases")
    assert note == "88 launches ... inferred" and f"note: {note}" == "note: 88 launches ... inferred"
    assert (note.kind, note.fix) == ("phases_inferred", "--no-infer-phases")
    again = pickle.loads(pickle.dumps(note))  # how notes cross the report cache and worker pipes
    assert (again, again.kind, again.fix) == (note, "phases_inferred", "--no-infer-phases")
    moved = prefixed("run.csv: ", note)
    assert (moved, moved.kind, moved.fix) == (
        "run.csv: 88 launches ... inferred",
        "phases_inferred",
        "--no-infer-phases",
    )
    assert kind_of("a plain string") == "other" and kind_of(prefixed("a: ", "plain")) == "report"


def test_a_kind_not_in_the_list_is_refused():
    with pytest.raises(ValueError, match="unknown note kind"):
        Note("typo", "text")
    assert set(KINDS) >= {"missing_metrics", "phases_inferred", "missing_roof", "other"}


def test_summary_json_gives_each_notes_kind_text_and_fix(capsys):
    main(["summary", str(sample_paths()[0]), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    # The bundled AMP step: FP16 on CUDA cores (approximate, no SourceCounters to take the
    # register moves out) and 88 backward launches whose phase is inferred (README, docs/method.md);
    # on its H200 (two L2 partitions), L2 bytes from lts__t_bytes unless it holds the L1-sourced
    # sectors (docs/l2-bytes.md).
    kinds = [note["kind"] for note in doc["notes_detail"]]
    from_l1 = {k["provenance"]["bytes"]["l2"] for k in doc["kernels"]} == {L2_FROM_L1_WHAT}
    usual = ["fp16_approximate", "register_moves", "phases_inferred"]
    assert kinds == ["l2_partitions"] * (not from_l1) + usual
    assert [note["text"] for note in doc["notes_detail"]] == doc["notes"]
    assert doc["notes_detail"][-1]["fix"] == "--no-infer-phases"
    assert doc["notes"][-1].startswith("88 launches without an NVTX phase")


def test_diff_json_gives_kinds_and_keeps_each_sides_kind(capsys):
    from rooftui.sample import sample_pair

    main(["diff", *map(str, sample_pair()), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    kinds = [note["kind"] for note in doc["notes_detail"]]
    assert [note["text"] for note in doc["notes_detail"]] == doc["notes"]
    # each side's notes keep their kind behind "A: "/"B: "/"A and B: "; the alignment is diff's own
    assert kinds[-1] == "alignment" and "phases_inferred" in kinds and "other" not in kinds
    assert "different_gpus" not in kinds  # both runs on the same H200
