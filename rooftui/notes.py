"""Notes: what a user should know about a run (a missing counter, an inferred phase, an
approximate count), as data. Each has a kind that tools and tests match, the sentence a
user reads, and the fix when there is one (an option or a command).

A ``Note`` is a ``str`` (its sentence), so code that prints, joins or appends notes as
plain strings keeps working; a plain string in a list of notes has kind ``"other"``
(``kind_of``). Imports nothing, so every layer may use it.
"""

from __future__ import annotations

from typing import Any

# Every kind, and what it says. JSON's "notes_detail" gives each note's kind.
KINDS = {
    "missing_metrics": "counters the report lacks; their quantities are blank",
    "time_source": "some launches' time comes from elapsed cycles / clock or gpu__time_active",
    "derived_from_rates": "counts rebuilt from rates × elapsed cycles or time",
    "respelled": "counts read under another spelling of the same metric",
    "byte_sources": "bytes at a level read from another quantity the report holds",
    "l2_partitions": "L2 bytes from lts__t_bytes on a GPU with two L2 partitions (far lookups twice)",
    "flops_partial": "FLOP totals of only the known terms; names what is missing and its fix",
    "tensor_uncounted": "Tensor instructions issued but no Tensor FLOP counter: Tensor FLOPs blank",
    "unknown_arch": "the GPU is not named: Tensor FLOPs blank where Tensor instructions ran",
    "zero_ai_judged_without": "zero-AI judged without some counters",
    "fp16_approximate": "FP16 CUDA-core FLOPs are approximate",
    "register_moves": "HFMA2 register moves taken out of (or left in) FP16 FLOPs",
    "deduplicated": "profile --dedup: launches profiled, launches given a twin's counters, the self-check",
    "partial_report": "a report cut short by a stop; it holds only the kernels profiled before",
    "dedup_subset": "a profile --dedup .ncu-rep: only the launches profiled in full; REPORT.raw.csv has all",
    "report": "what reading one report found (ingest)",
    "gpu_given": "the GPU or compute capability given differs from or fills the report's",
    "left_out": "kernels left out (--skip-invalid)",
    "ceilings_device": "a ceilings file for another GPU than the kernels ran on",
    "ceilings_match": "none or several of the ceilings files given match a GPU",
    "missing_roof": "a roof no source has; kernels with traffic there have no binding roof",
    "several_gpus": "several GPUs in the input, each against its own ceilings",
    "phases_inferred": "launches without an NVTX phase had it inferred from launch order",
    "different_gpus": "rooftui diff: A and B ran on different GPUs, each against its own ceilings",
    "alignment": "rooftui diff: how many launches were aligned per phase",
    "other": "a note not given a kind (plain text)",
}


class Note(str):
    """A note's sentence, with its ``kind`` (one of ``KINDS``) and ``fix`` ("" if none)."""

    kind: str
    fix: str

    def __new__(cls, kind: str, text: str, fix: str = "") -> Note:
        if kind not in KINDS:
            raise ValueError(f"unknown note kind {kind!r} (rooftui.notes.KINDS)")
        note = super().__new__(cls, text)
        note.kind, note.fix = kind, fix
        return note

    def __reduce__(self) -> tuple[Any, ...]:  # pickled with its kind (the report cache, workers)
        return (Note, (self.kind, str(self), self.fix))


def kind_of(note: str) -> str:
    """``note``'s kind: its own for a ``Note``, "other" for a plain string."""
    return note.kind if isinstance(note, Note) else "other"


def as_dict(note: str) -> dict[str, str]:
    """``{"kind", "text", "fix"}`` for JSON."""
    return {"kind": kind_of(note), "text": str(note), "fix": getattr(note, "fix", "")}


def prefixed(prefix: str, note: str) -> Note:
    """``note`` with ``prefix`` before its sentence (a report's path), keeping kind and fix;
    a plain string (what a reader noted) becomes a note of kind "report"."""
    kind = note.kind if isinstance(note, Note) else "report"
    return Note(kind, f"{prefix}{note}", getattr(note, "fix", ""))
