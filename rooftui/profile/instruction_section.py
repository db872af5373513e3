"""Which ncu section gives ``rooftui profile`` the instruction-level data it needs to tell
HFMA2.MMA register moves from FP16 math (rooftui.ingest.sass_moves): per SASS instruction,
its predicated-on thread executions, and the SASS.

rooftui ships its own section, ``sections/RooftuiRegisterMoves.section``: those two
metrics alone (``thread_inst_executed_true``, one of ncu's SourceCounters metrics, and
``sass__thread_inst_executed_true_per_opcode``, which lets the reader skip kernels with no
HFMA2), with no PC sampling, branch or memory source metrics. Measured on an H200 (ncu
2025.3.1, benchmarks/results/2026-12-02-profile-lean.md), on the first launch of every
function of the 4-block transformer step (37 launches) with rooftui's whole list: 9 replay
passes without instruction-level data, 10 with rooftui's section, 11 with SourceCounters;
the register moves read from the two reports are the same launch by launch.

An ncu that does not list the section (an older or newer section format, a package whose
files are not on disk) gets SourceCounters instead, and the run says so in one line.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

SECTION = "RooftuiRegisterMoves"
FALLBACK = "SourceCounters"  # ncu's own section: the same metric, and much more
LIST_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class InstructionSection:
    name: str  # ncu's --section
    folder: str | None  # ncu's --section-folder; None: ncu's own sections
    note: str | None = None  # why rooftui fell back to SourceCounters


def section_folder() -> Path | None:
    """The folder holding rooftui's section file, when it is a folder on disk."""
    folder = Path(str(files("rooftui.profile") / "sections"))
    return folder if (folder / f"{SECTION}.section").is_file() else None


def instruction_section(ncu: str) -> InstructionSection:
    """rooftui's lean section when ``ncu`` lists it from rooftui's folder, else SourceCounters
    with the reason (one line, for the run's messages)."""
    folder = section_folder()
    if folder is None:
        reason = f"{SECTION}.section is not on disk beside rooftui.profile"
    else:
        argv = [ncu, "--section-folder", str(folder), "--list-sections"]
        try:
            listed = subprocess.run(argv, capture_output=True, text=True, timeout=LIST_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            reason = f"ncu --list-sections failed: {error}"
        else:
            if listed.returncode == 0 and SECTION in listed.stdout:
                return InstructionSection(SECTION, str(folder))
            said = (listed.stderr.strip() or listed.stdout.strip()).splitlines()
            reason = f"ncu did not list it ({said[-1] if said else f'exit code {listed.returncode}'})"
    note = (
        f"rooftui: its own {SECTION} section cannot be used ({reason}): the full run takes HFMA2 "
        f"register moves from ncu's {FALLBACK} section instead (one replay pass more on an H200)"
    )
    return InstructionSection(FALLBACK, None, note)
