"""Signature-deduplicated profiling: every launch probed once, each distinct piece of work
profiled in full once, every other launch given its twin's counters and its own time.

Seen on an H200 (ncu 2025.3.1, benchmarks/profile_dedup_explore.sh, results in
benchmarks/results/2026-12-01-profile-dedup.md):
- The probe below is one replay pass per launch (time, launch attributes, warp and
  Tensor-pipe instructions, on tests/profile/pass_probe.cu). ncu's SASS-patched hfma
  counter makes it three, and so does sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.
- HFMA2 (FP16 math and ptxas's HFMA2.MMA register moves) is issued to the Tensor pipe:
  of the step's 175 launches, none with 0 Tensor-pipe instructions had any hfma, and in
  54 of the 55 with hfma it was exactly 32 x sm__inst_executed_pipe_tensor.sum (layer
  norm: 5,242,880 = 32 x 163,840). So a launch with no Tensor-pipe instruction has no
  register moves, and one with some may have.
- A launch configuration does not determine the work: one nvjet persistent GEMM
  (grid 132, block 384, 213,188 bytes of shared memory) ran four different products in
  each block of the transformer step (8.59, 2.95, 11.42 and 8.67 M warp instructions).
  The instructions executed tell them apart; between launches of the same work they
  differ by under 1e-5 (GEMMs) or not at all (elementwise kernels).
- ``--kernel-id :::N`` profiles the N-th launch *of each kernel name* counted from the
  start of profiling (cudaProfilerStart), not of each launch configuration: ":::1"
  picked exactly the first launch of each of the step's 37 function names. ncu takes one
  --kernel-id per run (given two, it exited 1 before starting the program), so the one
  full run profiles the same invocation numbers of every name (``choose_invocations``);
  launches it profiles beyond the one needed per signature are kept, and they are the
  self-check. Also seen (benchmarks/ncu_filters.cu, results in
  benchmarks/results/2026-12-01-profile-dedup-onerun.md): --kernel-name-base demangled
  numbers per demangled name, --filter-mode per-launch-config per launch configuration,
  and a name expression in --kernel-id narrows the functions without renumbering.

Which full-run row belongs to which launch is read from ncu's log (it names each
profiled launch by function and invocation under --kernel-id); failing that, from the
order of the rows when it is the order predicted from the probe; otherwise each row is
matched to a signature by its name, launch configuration and instruction counts
(collected in the full run too).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from rooftui.errors import RooftuiError
from rooftui.ingest.csv_common import RAW_IDENTITY_COLUMNS
from rooftui.ingest.deduplicated import PROVENANCE_COLUMNS, SelfCheck
from rooftui.model import metrics as m
from rooftui.model.byte_sources import L2_FROM_L1, SECTOR_BYTES

# read_export/write_export live in raw_export; kept importable here, where the benchmarks
# that compare dedup.py across commits (profile_dedup_post_ncu.py --dedup-from) find them.
from rooftui.profile.raw_export import Export, read_export, write_export  # noqa: F401

INSTRUCTIONS = "smsp__inst_executed.sum"  # warp instructions executed [NCU]
TENSOR_INSTRUCTIONS = m.TENSOR_PIPE_INSTRUCTIONS  # sm__inst_executed_pipe_tensor.sum [NCU]
LAUNCH = ("launch__grid_size", "launch__block_size", "launch__shared_mem_per_block_dynamic")
# What tells two launches' work apart, collected for every launch in one pass.
SIGNATURE_COUNTERS = (INSTRUCTIONS, TENSOR_INSTRUCTIONS)
# What tells their data traffic apart: the same instructions can move twice the bytes
# (a backward elementwise add of the DeepCAM step read 3.57 MB from DRAM where the forward
# add with the same name, grid and instruction counts read 1.80 MB, data it reuses in L1).
TRAFFIC = m.BYTES["hbm"]  # dram__bytes.sum [NCU]
PROBE_METRICS = (m.TIME, *LAUNCH, *SIGNATURE_COUNTERS, TRAFFIC)
# Two launches are the same work when every signature counter agrees within this
# fraction (launches of one GEMM differ by < 1e-5 in instructions executed).
TOLERANCE = 1e-3
# ... and their DRAM bytes within this fraction of the larger, or within TRAFFIC_FLOOR
# bytes. DRAM bytes depend on cache state: measured on the H200
# (benchmarks/results/2026-12-02-profile-dedup-signature.md), launches of the same work in
# one run differ by up to 8.9 % of the larger (34.4 against 37.7 MB, one kernel's 64
# launches at 16 blocks), one launch between two runs by up to 1.2 % above 1 MB and 1.6x
# on a 14 KB launch; the twins that broke the 1 % byte totals differ 2x (50 % of the
# larger). The probe stays one replay pass with this counter (ncu 2025.3.1, H200).
TRAFFIC_TOLERANCE = 0.25
TRAFFIC_FLOOR = 64 * 1024  # bytes: 0.04 % of the DeepCAM step's backward DRAM bytes


# Bytes per unit of each byte counter the self-check compares: the level counters, and the
# L2 sectors L1 requested, which the summary reads for L2 wherever a launch has them
# (rooftui.model.byte_sources.PREFERRED_BYTE_SOURCES).
BYTES_PER_COUNT = {**{c: 1.0 for c in m.BYTES.values()}, L2_FROM_L1: float(SECTOR_BYTES)}


def checked_counters(metrics: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """What the self-check compares: the FLOP counters among ``metrics`` and the byte
    counters the summary reads (for L2 the L1-requested sectors where ``metrics`` has them,
    not the tag lookups they replace)."""
    counts = {metric for terms in m.CUDA_CORE_TERMS.values() for metric, _ in terms}
    counts |= {t.metric for arch in m.ARCHITECTURES for t in arch.tensor} | set(m.BYTES.values())
    if L2_FROM_L1 in metrics:
        counts = (counts - {m.BYTES["l2"]}) | {L2_FROM_L1}
    return tuple(c for c in metrics if c in counts)


def full_metrics(required: list[str]) -> tuple[str, ...]:
    """The full run's list: rooftui's, plus what matches a row to its signature."""
    return tuple(dict.fromkeys([*required, *LAUNCH, *SIGNATURE_COUNTERS, TRAFFIC]))


@dataclass
class Launch:
    index: int  # position among the probed launches (the probe's ID)
    name: str  # as ncu exports it (demangled)
    function: str  # ncu's function name, what --kernel-id and -k match
    config: tuple[str, ...]  # name, grid, block, dynamic shared memory
    counters: tuple[float, ...]  # SIGNATURE_COUNTERS
    invocation: int  # the how-many-th launch of this function (ncu's --kernel-id numbering)
    traffic: float = math.nan  # TRAFFIC, NaN where the probe has none


def launches(probe: Export, functions: list[str] | None = None) -> list[Launch]:
    """The probed launches in launch order, numbered per function as --kernel-id counts
    (``functions``: each launch's function name, ncu's default --kernel-name-base)."""
    seen: Counter[str] = Counter()
    found = []
    name_at = probe.column("Kernel Name")
    if functions is not None and len(functions) != len(probe.rows):
        raise RooftuiError("the probe's two exports list different launches", fix="profile again")
    for i, row in enumerate(probe.rows):
        name = row[name_at]
        function = functions[i] if functions is not None else name
        seen[function] += 1
        config = (name, *(row[probe.column(c)] for c in LAUNCH))
        counters = tuple(probe.number(row, c) for c in SIGNATURE_COUNTERS)
        traffic = probe.number(row, TRAFFIC)
        found.append(Launch(i, name, function, config, counters, seen[function], traffic))
    return found


def _same(a: tuple[float, ...], b: tuple[float, ...], tolerance: float) -> bool:
    return all(
        (math.isnan(x) and math.isnan(y)) or abs(x - y) <= tolerance * max(abs(x), abs(y), 1.0)
        for x, y in zip(a, b)
    )


def same_traffic(a: float, b: float) -> bool:
    """Whether two launches' DRAM bytes are within the spread of one piece of work
    (TRAFFIC_TOLERANCE of the larger, or TRAFFIC_FLOOR bytes). NaN, not collected, tells
    no launch apart."""
    if math.isnan(a) or math.isnan(b):
        return True
    return abs(a - b) <= max(TRAFFIC_TOLERANCE * max(abs(a), abs(b)), TRAFFIC_FLOOR)


@dataclass
class Signature:
    number: int
    config: tuple[str, ...]
    counters: tuple[float, ...]
    members: list[int] = field(default_factory=list)  # launch indices, in launch order
    traffic: float = math.nan  # the first launch's TRAFFIC

    @property
    def label(self) -> str:
        return f"S{self.number}"

    def matches(
        self,
        config: tuple[str, ...],
        counters: tuple[float, ...],
        tolerance: float,
        traffic: float = math.nan,
    ) -> bool:
        return (
            config == self.config
            and _same(counters, self.counters, tolerance)
            and same_traffic(traffic, self.traffic)
        )


def signatures(found: list[Launch], tolerance: float = TOLERANCE) -> list[Signature]:
    """Launches grouped by the work they do: same name and launch configuration, every
    signature counter within ``tolerance`` of the group's first launch, and DRAM bytes
    within its spread (``same_traffic``)."""
    groups: list[Signature] = []
    by_config: dict[tuple[str, ...], list[Signature]] = {}
    for launch in found:
        for group in by_config.get(launch.config, []):
            if group.matches(launch.config, launch.counters, tolerance, launch.traffic):
                group.members.append(launch.index)
                break
        else:
            group = Signature(len(groups) + 1, launch.config, launch.counters, [launch.index], launch.traffic)
            groups.append(group)
            by_config.setdefault(launch.config, []).append(group)
    return groups


def choose_invocations(found: list[Launch], groups: list[Signature]) -> tuple[int, ...]:
    """Invocation numbers such that each of ``groups`` has a member with one of them, chosen
    to profile few launches. ncu takes one --kernel-id per run, whose invocation expression
    applies to every function, so a number costs one launch of each function launched that
    often: greedily the number that covers the most signatures still uncovered per launch it
    adds (the smaller number on a tie), then any number the others made redundant is dropped,
    the costliest first."""
    cost = Counter(launch.invocation for launch in found)  # launches a number profiles
    at = [{found[i].invocation for i in group.members} for group in groups]
    numbers: set[int] = set()
    uncovered = list(range(len(groups)))
    while uncovered:
        votes: Counter[int] = Counter()
        for g in uncovered:
            votes.update(at[g])
        best = max(votes, key=lambda n: (votes[n] / cost[n], -n))
        numbers.add(best)
        uncovered = [g for g in uncovered if best not in at[g]]
    for n in sorted(numbers, key=lambda n: (-cost[n], -n)):
        if all(invocations & (numbers - {n}) for invocations in at):
            numbers.remove(n)
    return tuple(sorted(numbers))


def kernel_id(invocations: tuple[int, ...]) -> str:
    """ncu's --kernel-id for those invocation numbers of every function (no ':' inside)."""
    return ":::^(" + "|".join(str(n) for n in invocations) + ")$"


def may_have_hfma2(group: Signature) -> bool:
    """Whether this work may hold HFMA2 instructions (math or register moves): HFMA2 is
    issued to the Tensor pipe, so a launch with no Tensor-pipe instruction has none."""
    value = group.counters[SIGNATURE_COUNTERS.index(TENSOR_INSTRUCTIONS)]
    return math.isnan(value) or value > 0


@dataclass(frozen=True)
class FullRun:
    """One run of the program with rooftui's whole list on some launches."""

    invocations: tuple[int, ...]
    source_counters: bool = False  # instruction-level data (instruction_section), for HFMA2 register moves

    def predicted(self, found: list[Launch]) -> list[int]:
        """The launches this run profiles, in order."""
        wanted = set(self.invocations)
        return [launch.index for launch in found if launch.invocation in wanted]


@dataclass
class Plan:
    launches: list[Launch]
    signatures: list[Signature]
    run: FullRun  # the one run of the program with rooftui's whole list


def plan(
    probe: Export,
    functions: list[str] | None = None,
    tolerance: float = TOLERANCE,
    register_moves: bool = True,
) -> Plan:
    """Signatures of the probed launches, and the one full run that covers each.

    One run, not one per kind of launch: each run starts the program again, which costs
    about as much as profiling 60 launches of the transformer step in full (15.9 s of
    61.9 s, benchmarks/results/2026-12-01-profile-dedup.md), and the measured two-run
    plan took 2.28x the every-launch profile. The run profiles the invocation numbers
    ``choose_invocations`` picks, of every function: ncu 2025.3 takes one --kernel-id
    per run and ignores -k beside it (seen on the H200: a second run profiled 81 launches
    of 17 functions, not 7), so launches it profiles beyond one per signature are kept,
    and they are the self-check. With ``register_moves``, the run adds instruction-level
    data (rooftui.profile.instruction_section), which tells HFMA2 register moves from FP16
    math, when some
    signature's probe shows Tensor-pipe instructions (HFMA2 is issued there)."""
    found = launches(probe, functions)
    if not found:
        raise RooftuiError(
            "the probe run profiled no launch",
            fix="with --profile-from-start off the program must call cudaProfilerStart()",
        )
    groups = signatures(found, tolerance)
    run = FullRun(
        choose_invocations(found, groups),
        source_counters=register_moves and any(may_have_hfma2(g) for g in groups),
    )
    return Plan(found, groups, run)


# Under --kernel-id ncu names each profiled launch "context:stream:function:invocation"
# in its log ('==PROF== Profiling "1:7:vectorized_gather_kernel:1"', ncu 2025.3.1).
_LOGGED = re.compile(r"^[^:]*:[^:]*:(?P<function>.+):(?P<invocation>\d+)$")


def assign_from_log(plan_: Plan, logged: list[str], full: Export) -> dict[int, int]:
    """{launch index: row number} for the rows whose launch ncu's log names, when that
    launch's name and launch configuration are the row's (rows in the log's order)."""
    where = {(launch.function, launch.invocation): launch.index for launch in plan_.launches}
    assigned: dict[int, int] = {}
    if len(logged) != len(full.rows):
        return assigned
    for r, (text, row) in enumerate(zip(logged, full.rows)):
        match = _LOGGED.match(text)
        i = where.get((match["function"], int(match["invocation"]))) if match else None
        if i is None:
            continue
        config = (row[full.column("Kernel Name")], *(row[full.column(c)] for c in LAUNCH))
        if config == plan_.launches[i].config:
            assigned[i] = r
    return assigned


def assign_rows(
    plan_: Plan, run: FullRun, full: Export, tolerance: float = TOLERANCE, logged: list[str] | None = None
) -> dict[int, int]:
    """Which of ``run``'s rows holds which launch's counters: {launch index: row number}.

    By ncu's log when it names every row's launch (``logged``: the names in its
    ==PROF== lines); else in the predicted order when the rows are exactly the launches
    predicted (names line up); else each row is matched to the first member of its
    signature not yet given a row (name, launch configuration and signature counters:
    a kernel whose instruction count changes from run to run, a radix sort's spinning
    look-back, can then go unmatched)."""
    rows = full.rows
    if logged is not None:
        by_log = assign_from_log(plan_, logged, full)
        if len(by_log) == len(rows):
            return by_log
    order = run.predicted(plan_.launches)
    names = [row[full.column("Kernel Name")] for row in rows]
    if len(rows) == len(order) and all(plan_.launches[i].name == n for i, n in zip(order, names)):
        return {i: r for r, i in enumerate(order)}
    assigned: dict[int, int] = {}
    for r, row in enumerate(rows):
        config = (names[r], *(row[full.column(c)] for c in LAUNCH))
        counters = tuple(full.number(row, c) for c in SIGNATURE_COUNTERS)
        traffic = full.number(row, TRAFFIC)
        for group in plan_.signatures:
            if group.matches(config, counters, tolerance, traffic):
                free = [i for i in group.members if i not in assigned]
                if free:
                    assigned[free[0]] = r
                break
    return assigned


Sources = dict[int, tuple[Export, list[str]]]  # launch index -> the export and row of its full profile


def value(source: tuple[Export, list[str]], column: str) -> str:
    export, row = source
    at = export.where.get(column)
    return "" if at is None else row[at]


def number(source: tuple[Export, list[str]], column: str) -> float:
    export, row = source
    return export.number(row, column)


@dataclass
class Merged:
    export: Export  # one row per probed launch, in the full run's columns
    source: list[dict]  # per launch: what it is and where its counters came from
    missing: list[Signature]  # signatures with no fully profiled launch (blank counters)


def _identity(column: str) -> bool:
    """A column that says which launch a row is (not a counter of its work)."""
    return column in _IDENTITY or column.startswith(
        ("thread Domain:", "Id:Domain:", "launch__", "device__attribute")
    )


_IDENTITY = set(RAW_IDENTITY_COLUMNS)


def twins(plan_: Plan, sources: Sources) -> dict[int, int | None]:
    """Whose full counters each launch gets: its own, else the first fully profiled
    launch of its signature; None when no launch of its signature was profiled."""
    twin_of: dict[int, int | None] = {}
    for group in plan_.signatures:
        profiled = [i for i in group.members if i in sources]
        for i in group.members:
            twin_of[i] = i if i in sources else (profiled[0] if profiled else None)
    return twin_of


def merge(
    plan_: Plan, probe: Export, header: Export, sources: Sources, extra: dict[str, list[str]] | None = None
) -> Merged:
    """Every probed launch with full counters, in ``header``'s columns: its own where it
    was profiled in full, else its twin's, with its own time and identity (ID, NVTX
    ranges, stream, ...) from the probe either way. ``extra``: more columns, a value per
    launch."""
    extra = extra or {}
    columns = [*header.header, *extra, *PROVENANCE_COLUMNS]
    units = [*header.units, *([""] * len(extra)), "", ""]
    signature_of = {i: g for g in plan_.signatures for i in g.members}
    twin_of = twins(plan_, sources)
    # Where each column comes from, decided once per column, not once per cell.
    from_probe = {
        n: probe.where[c]
        for n, c in enumerate(header.header)
        if c != "ID" and c in probe.where and (c == m.TIME or _identity(c))
    }
    rows, source = [], []
    for launch in plan_.launches:
        twin = twin_of[launch.index]
        probe_row = probe.rows[launch.index]
        own = None if twin is None else sources[twin]
        row = []
        for n, column in enumerate(header.header):
            if column == "ID":
                row.append(str(launch.index))
            elif n in from_probe:
                row.append(probe_row[from_probe[n]])
            else:
                row.append("" if own is None else value(own, column))
        counters_from = "own" if twin == launch.index else ("" if twin is None else str(twin))
        group = signature_of[launch.index]
        rows.append([*row, *(values[launch.index] for values in extra.values()), group.label, counters_from])
        source.append(
            {
                "id": launch.index,
                "name": launch.name,
                "signature": group.label,
                "profiled": twin == launch.index,
                "counters_from": twin,
                "time_from": "probe",
            }
        )
    missing = [g for g in plan_.signatures if twin_of[g.members[0]] is None]
    return Merged(Export(columns, units, rows), source, missing)


def self_check(plan_: Plan, sources: Sources, counters: tuple[str, ...]) -> SelfCheck:
    """Compare every launch profiled in full, but not first of its signature, with that first."""
    pairs, worst, worst_what = 0, 0.0, ""
    sums = {"flops": [0.0, 0.0], "bytes": [0.0, 0.0]}
    for group in plan_.signatures:
        profiled = [i for i in group.members if i in sources]
        for i in profiled[1:]:
            pairs += 1
            for c in counters:
                a, b = number(sources[i], c), number(sources[profiled[0]], c)
                if math.isnan(a) or math.isnan(b):
                    continue
                kind = "bytes" if c in BYTES_PER_COUNT else "flops"
                scale = BYTES_PER_COUNT.get(c, 1.0)  # FLOP counters are summed as counted
                sums[kind][0] += scale * (a - b)
                sums[kind][1] += scale * a
                diff = abs(a - b) / max(abs(a), abs(b)) if max(abs(a), abs(b)) > 0 else 0.0
                if diff > worst:
                    worst, worst_what = diff, f"{c} of launch {i} against {profiled[0]}, {group.label}"
    ratio = {k: abs(d) / t if t > 0 else 0.0 for k, (d, t) in sums.items()}
    return SelfCheck(
        pairs=pairs, flops=ratio["flops"], bytes=ratio["bytes"], worst=worst, worst_what=worst_what
    )


def _launch_key(export: Export, row: list[str]) -> tuple[str, ...]:
    return tuple(
        row[export.column(c)] if c in export.header else ""
        for c in ("Kernel Name", "Grid Size", "Block Size")
    )


def rank_from_twin(counters: Export, times: Export, twin_rank: str) -> tuple[Export, str | None]:
    """One rank's launches (``times``: a time-only run) with the counters of another rank's
    full profile (``counters``) launch by launch, for the ranks of a data-parallel job,
    which run the same kernels in the same order. Only when both list the same kernels
    (name, grid, block) in the same order; otherwise the counters stay blank (not
    collected) and the reason is returned."""
    reason = None
    if len(counters.rows) != len(times.rows):
        reason = f"{len(times.rows)} launches against rank {twin_rank}'s {len(counters.rows)}"
    else:
        for n, (mine, twin) in enumerate(zip(times.rows, counters.rows)):
            if _launch_key(times, mine) != _launch_key(counters, twin):
                reason = (
                    f"launch {n} is {mine[times.column('Kernel Name')]!r}, rank {twin_rank}'s is "
                    f"{twin[counters.column('Kernel Name')]!r}"
                )
                break
    header = [*counters.header, PROVENANCE_COLUMNS[1]]
    units = [*counters.units, ""]
    rows = []
    for n, mine in enumerate(times.rows):
        row = []
        for column in counters.header:
            if column in times.header and (column == m.TIME or _identity(column)):
                row.append(mine[times.column(column)])
            else:
                row.append("" if reason is not None else counters.rows[n][counters.column(column)])
        rows.append([*row, "" if reason is not None else f"rank {twin_rank}:{n}"])
    return Export(header, units, rows), reason
