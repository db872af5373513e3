"""``rooftui profile --dedup``: a one-pass probe of every launch, then rooftui's whole
metric list on one launch per signature (rooftui.profile.dedup says how and why).

Writes, beside each other:
  STEM.probe.ncu-rep     every launch: its time, launch configuration and signature counters
  STEM.ncu-rep           the launches that cover every signature, profiled in full in one
                         run of the program (--kernel-id :::^(1|4|...)$ of every function)
  STEM.raw.csv           every launch with full counters, its own time (what the summary reads)
  STEM.signatures.json   per launch: its signature, whether it was profiled, whose counters it has
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from rooftui.ingest.deduplicated import SIGNATURES_SUFFIX, SelfCheck
from rooftui.model.metrics import REGISTER_MOVES
from rooftui.profile import dedup, raw_export
from rooftui.profile.instruction_section import InstructionSection, instruction_section
from rooftui.profile.ncu import RAW_CSV_SUFFIX, NcuOptions, ncu_argv
from rooftui.profile.run import STDERR, NcuRun, check_run, exports_at_once, run_ncu, start_export

PROBE_SUFFIX = ".probe"


@dataclass
class DeduplicatedProfile:
    table: Path  # STEM.raw.csv: every launch
    sidecar: Path  # STEM.signatures.json
    lines: list[str]  # what the run says about itself, for stderr


# Below about this many launches a deduplicated profile costs more than profiling every launch:
# measured on an H200 with sample_data/make/transformer_step.py, one run each, the full run with
# rooftui's RooftuiRegisterMoves section (benchmarks/results/2026-12-02-profile-lean.md): 175
# launches 85.0 s vs 63.8 s exhaustive, 579 launches 117.1 s vs 193.4 s; the difference falls
# by (21.2 + 76.3) / (579 - 175) = 0.24 s per launch, so they cross near 263 launches. A step
# with little repetition crosses later: the DeepCAM step (179 launches, 128 signatures) took
# 110.2 s vs 62.5 s. (With SourceCounters, round 8, the crossing was near 360.)
SMALL_PROGRAM_LAUNCHES = 260


# A self-check beyond this says launches of one signature moved different bytes. Measured on
# an H200 (benchmarks/results/2026-12-02-profile-dedup-depth.md): on the DeepCAM step a forward
# and a backward add of one signature, one reusing its data through L1 and one not, were 49.8%
# apart in DRAM bytes (self-check 1.86%), and an inherited pair like it put a phase's HBM bytes
# 1.06% off; at 16 transformer blocks the self-check was 0.20% and every phase within 0.55%.
SELF_CHECK_WARNING = 0.01


def self_check_warning(check: SelfCheck) -> list[str]:
    """What the run adds when the self-check says inherited counters may be off by more than 1%."""
    totals = (("FLOPs", check.flops), ("bytes", check.bytes))
    over = [f"{what} {value:.2%}" for what, value in totals if value > SELF_CHECK_WARNING]
    if not over:
        return []
    return [
        f"rooftui: the self-check is above {SELF_CHECK_WARNING:.0%} ({', '.join(over)}): launches of one "
        "signature moved different bytes (the same instructions, with data reused through L1 in one "
        "and not in the other, or another cache state), so counters inherited from a twin may be off "
        "by as much; --exhaustive profiles every launch"
    ]


def _passes(run: NcuRun) -> str:
    return "/".join(str(p) for p in sorted(set(run.log.passes))) or "?"


def _full_options(options: NcuOptions, run: dedup.FullRun, section: InstructionSection | None) -> NcuOptions:
    """The full run's options; ``section``: the instruction-level data, where the run takes it."""
    return replace(
        options,
        metrics=dedup.full_metrics(list(options.metrics)),
        kernel_id=dedup.kernel_id(run.invocations),
        sections=(section.name,) if run.source_counters and section is not None else (),
        section_folder=section.folder if run.source_counters and section is not None else None,
    )


def read_register_moves(report: Path) -> list[float] | None:
    """HFMA2 register moves per row of ``report`` (instruction-level data), read by rooftui's
    .ncu-rep reader; None when it cannot read the report (no ncu_report package)."""
    from rooftui.errors import InputError
    from rooftui.ingest.ncu_rep import read_ncu_rep
    from rooftui.model.metrics import REGISTER_MOVES

    try:
        kernels = read_ncu_rep(report).kernels
    except InputError:
        return None
    if REGISTER_MOVES not in kernels:
        return None
    return [float(v) for v in kernels[REGISTER_MOVES]]


def moves_column(plan: dedup.Plan, moves_of: dict[int, float]) -> list[str]:
    """Each launch's HFMA2 register moves: 0 where its probe saw no HFMA2 instruction, its
    signature's count from a profile with instruction-level data, blank (not collected) otherwise."""
    column = [""] * len(plan.launches)
    for group in plan.signatures:
        known = [moves_of[i] for i in group.members if i in moves_of and not math.isnan(moves_of[i])]
        for i in group.members:
            if not dedup.may_have_hfma2(group):
                column[i] = "0"
            elif i in moves_of and not math.isnan(moves_of[i]):
                column[i] = repr(moves_of[i])
            elif known:
                column[i] = repr(known[0])
    return column


def profile_deduplicated(
    ncu: str,
    options: NcuOptions,
    stem: Path,
    command: list[str],
    force: bool,
    stall_timeout: float,
    stop_on_stall: bool,
    register_moves: bool = True,
    echo: TextIO | None = STDERR,
) -> DeduplicatedProfile:
    """Probe every launch, then profile in full, in one more run, launches that cover every
    signature, and merge; ``options.metrics`` is rooftui's full list for this GPU."""

    def run_program(run_options: NcuOptions, run_stem: Path) -> NcuRun:
        argv = ncu_argv(ncu, run_options, run_stem, command, force=force)
        return run_ncu(argv, run_stem, echo=echo, stall_timeout=stall_timeout, stop_on_stall=stop_on_stall)

    probe_stem = Path(f"{stem}{PROBE_SUFFIX}")
    probe_run = run_program(replace(options, metrics=dedup.PROBE_METRICS), probe_stem)
    probe_report = check_run(probe_run)
    # Both exports at once: each is a start of ncu (seconds), and neither needs the other.
    exported = exports_at_once(ncu, [(probe_report, "demangled"), (probe_report, "function")])
    probe, functions = (raw_export.read_export(text) for text in exported)
    plan = dedup.plan(
        probe, [row[functions.column("Kernel Name")] for row in functions.rows], register_moves=register_moves
    )

    section = instruction_section(ncu) if plan.run.source_counters else None
    run_options = _full_options(options, plan.run, section)
    if echo is not None:  # before the program's second run: a long wait can be cut short here
        predicted = len(plan.run.predicted(plan.launches))
        echo.write(
            f"rooftui: probe: {len(plan.signatures)} signatures in {len(plan.launches)} launches; the "
            f"full run profiles {predicted} of them with the whole list (--exhaustive: all "
            f"{len(plan.launches)})\n"
        )
        echo.flush()
    done = run_program(run_options, stem)
    report = check_run(done)
    exporting = start_export(ncu, report)  # ncu exports while rooftui reads the instruction-level data
    moves = read_register_moves(report) if plan.run.source_counters else None
    full = raw_export.read_export(exporting.text())
    moves = moves if moves is not None and len(moves) == len(full.rows) else None
    assigned = dedup.assign_rows(plan, plan.run, full, logged=done.log.kernels)
    sources: dedup.Sources = {i: (full, full.rows[r]) for i, r in assigned.items()}
    moves_of = {i: moves[r] for i, r in assigned.items()} if moves is not None else {}
    run_info = {
        "report": str(report),
        "seconds": round(done.seconds, 2),
        "passes": _passes(done),
        "launches": len(full.rows),
        "predicted": len(plan.run.predicted(plan.launches)),
        "kernel_id": run_options.kernel_id,
        "source_counters": plan.run.source_counters,  # instruction-level data, in this section:
        "instruction_section": None if section is None else section.name,
        "register_moves_read": moves is not None,
    }
    extra = {REGISTER_MOVES: moves_column(plan, moves_of)}
    merged = dedup.merge(plan, probe, full, sources, extra)
    check = dedup.self_check(plan, sources, dedup.checked_counters(options.metrics))

    table = Path(f"{stem}{RAW_CSV_SUFFIX}")
    table.write_text(raw_export.write_export(merged.export), encoding="utf-8")
    sidecar = Path(f"{stem}{SIGNATURES_SUFFIX}")
    launches = len(plan.launches)
    profiled = sum(1 for s in merged.source if s["profiled"])
    inherited = sum(1 for s in merged.source if not s["profiled"] and s["counters_from"] is not None)
    moves_blank = sum(1 for v in extra[REGISTER_MOVES] if v == "")
    sidecar.write_text(
        json.dumps(
            {
                "scheme": "signature-deduplicated: every launch probed once (time, launch configuration, "
                "signature counters), rooftui's metric list on the launches ncu's --kernel-id picks, "
                "every other launch given the counters of its signature's first fully profiled launch",
                "probe": {
                    "report": str(probe_report),
                    "metrics": list(dedup.PROBE_METRICS),
                    "seconds": round(probe_run.seconds, 2),
                    "passes": _passes(probe_run),
                },
                "signature": {
                    "same": ["Kernel Name", *dedup.LAUNCH],
                    "within": list(dedup.SIGNATURE_COUNTERS),
                    "tolerance": dedup.TOLERANCE,
                    "traffic": {
                        "counter": dedup.TRAFFIC,
                        "tolerance": dedup.TRAFFIC_TOLERANCE,
                        "floor_bytes": dedup.TRAFFIC_FLOOR,
                    },
                },
                "full_run": run_info,
                "table": str(table),
                "self_check": {
                    "launches_compared": check.pairs,
                    "flops": check.flops,
                    "bytes": check.bytes,
                    "worst": check.worst,
                    "worst_what": check.worst_what,
                },
                "signatures": [
                    {
                        "signature": g.label,
                        "name": g.config[0],
                        **dict(zip(dedup.LAUNCH, g.config[1:])),
                        **{
                            c: None if math.isnan(v) else v
                            for c, v in zip(dedup.SIGNATURE_COUNTERS, g.counters)
                        },
                        dedup.TRAFFIC: None if math.isnan(g.traffic) else g.traffic,
                        "launches": len(g.members),
                        "first": g.members[0],
                        "profiled": [i for i in g.members if i in sources],
                    }
                    for g in plan.signatures
                ],
                "launches": merged.source,
            },
            indent=1,
            allow_nan=False,
        ),
        encoding="utf-8",
    )

    lines = [
        f"rooftui: probe: {launches} launches, {_passes(probe_run)} replay pass(es) each, in "
        f"{probe_run.seconds:.0f} s: {len(plan.signatures)} signatures (same name and launch "
        f"configuration, instruction counts within {dedup.TOLERANCE:.1%}, DRAM bytes within "
        f"{dedup.TRAFFIC_TOLERANCE:.0%} or {dedup.TRAFFIC_FLOOR // 1024} KiB)",
    ]
    which = f"launches {','.join(map(str, plan.run.invocations))} of each function"
    if section is not None:
        which += f", with the {section.name} section (HFMA2 register moves)"
    lines += [section.note] if section is not None and section.note else []
    lines.append(
        f"rooftui: full run: {run_info['launches']} launches ({which}), {run_info['passes']} replay "
        f"passes each, in {run_info['seconds']:.0f} s: {run_info['report']}"
    )
    lines.append(
        f"rooftui: {profiled} launches profiled in full, {inherited} given their twin's counters "
        f"with their own time ({sidecar.name} says which, from which twin; --exhaustive profiles "
        "every launch)"
    )
    lines += [f"rooftui: self-check: {check.text()}", *self_check_warning(check)]
    subset = Path(str(run_info["report"])).name
    lines.append(
        f"rooftui: every launch is in {table}: open that ({subset} holds only the launches profiled in full)"
    )
    if launches < SMALL_PROGRAM_LAUNCHES:
        lines.append(
            f"rooftui: {launches} launches: for a program this small --exhaustive (every launch, one "
            "run of the program) is usually quicker, but keeps HFMA2 register moves in FP16 "
            "(docs/profile.md: on an H200, 175 launches took 85.0 s deduplicated, 63.8 s exhaustive)"
        )
    if moves_blank and not register_moves:
        lines.append(
            f"rooftui: HFMA2 register moves not collected for {moves_blank} launches "
            "(--no-register-moves): their FP16 FLOPs keep the moves"
        )
    elif moves_blank:
        lines.append(
            f"rooftui: HFMA2 register moves not read for {moves_blank} launches (their FP16 FLOPs "
            "keep the moves): rooftui reads the instruction-level data with the ncu-report package "
            "(pip install ncu-report, or ncu's extras/python on PYTHONPATH)"
        )
    if merged.missing:
        blank = sum(len(g.members) for g in merged.missing)
        lines.append(
            f"rooftui: {len(merged.missing)} signatures ({blank} launches) got no full profile: "
            "their counters are blank (not collected); profile with --exhaustive"
        )
    return DeduplicatedProfile(table, sidecar, lines)
