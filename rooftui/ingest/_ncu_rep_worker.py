"""Child process that reads one ``.ncu-rep`` with NVIDIA's ``ncu_report``.

``python -m rooftui.ingest._ncu_rep_worker --entry-fd FD --key KEY REPORT`` writes the
report, as read, to the file open as descriptor FD: one report-cache entry made for KEY
(``rooftui.ingest.cache_entry``'s format, by ``rooftui.ingest.ncu_rep_entry``), which the
parent (``rooftui.ingest.ncu_rep``) decodes and checks as it decodes any cache entry, then
moves into the cache. ``ncu_report`` is native code that can crash on a damaged report;
running it here keeps the parent alive.

What is read is decided once per report: the identity facts of each launch and
the metrics of ``rooftui.model.metrics.metrics_read()``, each fetched by name
(a report holds ~400-500 metrics per launch, rooftui reads ~30 of them). They are
gathered, before the entry is made, into a document of builtins, column by column::

    {"launches": N,
     "identity": {"kernel_name": [N str], "device_index": [N int|None], "stream": [...],
                  "grid": [N "(x, y, z)"], "block": [...], "device": [...], "cc": [N "9.0"],
                  "nvtx": [N "outer > inner"],
                  "register_moves": [N int|None: HFMA2 register moves (ingest.sass_moves)]},
     "metrics": [names found in at least one launch], "units": [ncu's unit of each],
     "values": bytes: len(metrics) x N float64, one metric after another, NaN where absent}

Values are as ncu_report stores them (integers converted to the nearest double);
the entry holds them scaled to base units. This module imports no pandas: the child
starts in a few tens of milliseconds.

Memory: ``ncu_report`` keeps every launch it has parsed until its process ends;
deleting the report object frees nothing. How much depends on its version: the PyPI
ncu_report 2026.3.1 keeps ~0.44 MB per launch of the 942-launch DeepLabv3 AMP report
(160 KB on disk each), on top of ~115 MB it sets up at the first launch; ncu
2025.3.1's own (on the GPU machine) reads the whole report in 148 MB. So this process
loads the report, does that setup once, and reads launches itself for as long as its
growth, extrapolated to every launch, fits ``CHILD_GROWTH_BYTES`` (everything, with
ncu 2025.3.1). The rest is read by forked reader children, up to ``--children`` at once
(the parent gives its free cores; at most ``MAX_CHILDREN_AT_ONCE``), sharing what is
left of that growth: each is given a range of launches and stops early once it has
grown by its share (after at least ``MIN_LAUNCHES_PER_CHILD``); what it leaves goes
back to be read by another. Peak memory is the setup plus that growth, not the whole
report (the children share the setup's pages with this process), and the parts are
merged in launch order, so the result is a one-process read's. A forked child costs
~10 ms of CPU on this project's 2-core machine, plus its exit (far more on the GPU
machine, where every page a child writes is copied slowly); forking, the pipe and the
reaping are ``rooftui.ingest.forked``'s.
Forking a process that has threads can deadlock the child, so this process forks only
while it has one thread (else it reads the rest itself, as one process would), and it
never disassembles code (ncu_report's disassembler starts a thread): it stops reading
at the first launch with instruction-level data; the children disassemble, and pass
the register moves they found on to later children (``MoveCounter.learn``). Reports with
instruction-level data cost ~25% more CPU read this way (the disassembler's setup,
once per child) and take ~0.4x the memory (DeepCAM AMP with SourceCounters, 189 MB:
the largest process peaks at 440 MB RSS against 1,132 MB).
Where there is no ``fork`` or no ``/proc/self/statm``, one process reads everything.
``--child-bytes 0`` reads everything here; a small value with ``--min-launches 1`` and
``--children-only`` forces many children (tests).

Exit codes: 0 done, 5 the reader raised (message on stderr), 3 ncu_report missing, 4 the
entry could not be written (a full disk; message on stderr). ``main`` lets no exception
out, so Python's own 1 means this module never ran: its imports failed (an environment
the user cannot read), which the parent reports as the reader not starting.
A reader child killed by a signal ends this process with the same signal.
"""

from __future__ import annotations

import bisect
import gc
import math
import os
import selectors
import sys
from array import array
from functools import partial

from rooftui.ingest.forked import (
    EXIT_FAILED,
    Child,
    ChildFailed,
    ChildKilled,
    can_fork,
    end_by,
    resident_bytes,
    threads,
)
from rooftui.ingest.ncu_rep_entry import entry_of_document
from rooftui.ingest.sass_moves import PER_INSTRUCTION, MoveCounter
from rooftui.model.metrics import metrics_read

EXIT_READER_FAILED = EXIT_FAILED  # the parent (ingest.ncu_rep) reads the message on stderr
EXIT_NO_NCU_REPORT = 3
EXIT_ENTRY_UNWRITABLE = 4
# How much the reader's processes may grow beyond the setup, together (see above): the
# DeepLabv3 AMP report (151 MB, 942 launches) is read by ~14 children, 2 at a time, the
# reader's processes taking ~230 MB together at their peak (PSS;
# benchmarks/_common.tree_memory).
CHILD_GROWTH_BYTES = 64 << 20
# ... and one that has disassembled code (register moves, ingest.sass_moves): the first
# disassembly of a process costs ~1 s and ~90 MB, each kernel's 20-80 MB more, so
# such a child reads on to 4x the growth rather than pay that setup per kernel.
SASS_GROWTH_FACTOR = 4
# ... but each child reads at least this many launches, whatever it grew by. On the GPU
# machine (2 x H200, ncu_report 2025.3.1) a child's memory grew past its share at its very
# first launch (copy-on-write of the parent's pages; 12 s of system time in all), so the
# DeepCAM AMP report (179 launches) took 179 children and 16.5 s instead of 0.42 s in one
# process. A child costs 10-80 ms; this bounds that to ~1/32 of the launches.
MIN_LAUNCHES_PER_CHILD = 32
# Children reading at once (``--children``, the parent's free cores) share the growth
# above, so the reader's peak memory stays what it is with one child. Each child takes
# at least 1/4 of it (16 MB, ~36 launches of the DeepLabv3 report), so that the minimum
# above still fits a child's share, whatever the number of cores.
MAX_CHILDREN_AT_ONCE = 4
# Launches read here, before forking, to learn how much ncu_report keeps of each.
PROBE_LAUNCHES = 8

# Launch facts ncu's CSV shows as identity columns ("Stream", "Grid Size", ...).
_IDENTITY_METRICS = (
    "launch__device_id",
    "launch__stream_id",
    "launch__grid_dim_x",
    "launch__grid_dim_y",
    "launch__grid_dim_z",
    "launch__block_dim_x",
    "launch__block_dim_y",
    "launch__block_dim_z",
    "device__attribute_display_name",
    "device__attribute_compute_capability_major",
    "device__attribute_compute_capability_minor",
)
IDENTITY_FIELDS = (
    "kernel_name",
    "device_index",
    "stream",
    "grid",
    "block",
    "device",
    "cc",
    "nvtx",
    "register_moves",
)


class LaunchTable:
    """The launches of one report, filled one launch at a time, column by column."""

    def __init__(self, launches: int, metric_names: tuple[str, ...], moves: MoveCounter) -> None:
        self.launches = launches
        self.metric_names = metric_names
        self.identity: dict[str, list] = {name: [] for name in IDENTITY_FIELDS}
        self.values = [array("d", [math.nan]) * launches for _ in metric_names]
        self.units: list[str | None] = [None] * len(metric_names)  # None: in no launch yet
        self.row = 0
        self.moves = moves

    def add(self, action, demangled: int, mangled: int) -> None:
        """Read one launch: its identity facts, then each wanted metric by name."""
        for name, value in _identity(action, demangled).items():
            self.identity[name].append(value)
        self.identity["register_moves"].append(self.moves.count(action, action.name(mangled)))
        row = self.row
        for column, name in enumerate(self.metric_names):
            metric = action.metric_by_name(name)
            if metric is None or not metric.has_value():
                continue
            value = _number(metric)
            if value is None:  # a string (the device name): an identity fact, not a column
                continue
            self.values[column][row] = value
            if self.units[column] is None:
                self.units[column] = metric.unit()
        self.row += 1

    def document(self) -> dict:
        found = [i for i, unit in enumerate(self.units) if unit is not None]
        return {
            "launches": self.row,
            "identity": self.identity,
            "metrics": [self.metric_names[i] for i in found],
            "units": [self.units[i] for i in found],
            "values": b"".join(self.values[i][: self.row].tobytes() for i in found),
        }


def read(
    path: str,
    child_bytes: int = CHILD_GROWTH_BYTES,
    min_launches: int = MIN_LAUNCHES_PER_CHILD,
    at_once: int = 1,
    here_first: bool = True,
) -> dict:
    """The document of the report at ``path`` (see the module's docstring): read here
    while this process's growth, extrapolated to every launch, fits ``child_bytes``
    (``here_first``), the rest by up to ``at_once`` children at a time."""
    import ncu_report

    context = ncu_report.load_report(path)
    # ncu numbers launches across the whole report, from 0, in this order.
    ranges = [context.range_by_idx(i) for i in range(context.num_ranges())]
    launches = [(r, i) for r in ranges for i in range(r.num_actions())]
    names = metrics_read()
    moves = MoveCounter()
    if not child_bytes or not launches or not can_fork():
        return _read_launches(launches, 0, len(launches), names, moves, None)[0]
    launches[0][0].action_by_idx(launches[0][1])  # ncu_report's one-time setup, shared by the children
    first, grown, disassembles = (
        _read_while_it_fits(launches, names, moves, child_bytes) if here_first else (None, 0, False)
    )
    if first is not None and first["launches"] == len(launches):
        return first
    # A child that disassembles pays the disassembler's setup (~1 s, ~90 MB) once: two at
    # once took 15% more CPU and 1.3x the memory (DeepCAM AMP with SourceCounters).
    at_once = 1 if disassembles else max(1, min(at_once, MAX_CHILDREN_AT_ONCE))
    share = max(1, (child_bytes - grown) // at_once)
    # The children share this process's pages until they write to them: a garbage
    # collection in a child would write to every object here (12 MB copied in all, for
    # the DeepLabv3 report), so the objects made so far are left out of collections.
    gc.freeze()
    return _read_in_children(launches, names, moves, share, min_launches, at_once, first)


def _read_while_it_fits(
    launches: list, names: tuple[str, ...], moves: MoveCounter, budget: int
) -> tuple[dict, int, bool]:
    """Read launches from the first, here, for as long as this process's growth,
    extrapolated to every launch at its rate so far, stays within ``budget`` and no
    launch needs its code disassembled (that starts a thread, after which this process
    cannot fork): the document of those read, the bytes this process grew by, and
    whether it stopped at a launch with instruction-level data.

    Where ncu_report keeps little of each launch (ncu 2025.3.1's on the GPU machine: the
    whole DeepLabv3 report in 148 MB), that is every launch, and no child is forked;
    where it keeps ~0.44 MB a launch (ncu_report 2026.3.1 from PyPI), it stops after
    ``PROBE_LAUNCHES``."""
    import ncu_report

    demangled, mangled = ncu_report.IAction.NameBase_DEMANGLED, ncu_report.IAction.NameBase_MANGLED
    table = LaunchTable(len(launches), names, moves)
    base = resident_bytes()
    grown = 0
    for result_range, index in launches:
        action = result_range.action_by_idx(index)
        if _has_instruction_data(action):
            return table.document(), max(0, grown), True
        table.add(action, demangled, mangled)
        grown = resident_bytes() - base
        projected = grown * len(launches) // table.row
        if projected > budget and (table.row >= PROBE_LAUNCHES or grown > budget // 4):
            break
    return table.document(), max(0, grown), False


def _has_instruction_data(action) -> bool:
    metric = action.metric_by_name(PER_INSTRUCTION)
    return metric is not None and metric.has_correlation_ids()


def _read_in_children(
    launches: list,
    names: tuple[str, ...],
    moves: MoveCounter,
    share: int,
    min_launches: int,
    at_once: int,
    first: dict | None,
) -> dict:
    """Every launch after those of ``first`` (read already, from the first launch) read
    by forked children, up to ``at_once`` at a time, each given a range of launches and
    stopping early once it has grown by ``share`` bytes; what a child left of its range
    goes back to be read by another. The parts are merged in launch order, so the
    document is the one a single process would read."""
    parts: dict[int, dict] = {0: first} if first and first["launches"] else {}  # by first launch
    pending = [(first["launches"] if first else 0, len(launches))]  # launches not read yet
    running: dict[int, tuple[Child, int, int]] = {}  # by the child's pipe: (child, start, stop)
    # Launches to give each child: at first an even split (each child stops on its
    # share anyway), then what the children so far found their share holds. That
    # estimate counts a child's fixed growth (its first launch, the pages it copies) as
    # if every launch grew so, so it is low (58 where 66 fit, DeepLabv3), and few
    # children stop short of their range, leaving a small remainder to another.
    per_child = -(-(pending[0][1] - pending[0][0]) // at_once)
    held = found = 0  # launches read, and what the shares would hold, weighted by them
    with selectors.DefaultSelector() as ready:
        try:
            while pending or running:
                while pending and len(running) < at_once:
                    start, end = pending.pop(0)
                    pieces = -(-(end - start) // per_child)  # cut evenly: no small last piece
                    stop = start + -(-(end - start) // pieces)
                    if stop < end:
                        pending.insert(0, (stop, end))
                    if threads() != 1:  # forking now could deadlock the child: read them here
                        parts[start] = _read_launches(launches, start, stop, names, moves, None)[0]
                        continue
                    child = Child(
                        partial(_read_launches, launches, start, stop, names, moves, share, min_launches)
                    )
                    running[child.pipe] = (child, start, stop)
                    ready.register(child.pipe, selectors.EVENT_READ)
                if not running:
                    continue
                child, start, stop = _next_finished(ready, running)
                part, learned, fits = child.result()
                read_count = part["launches"]
                if not read_count:
                    raise RuntimeError("a reader child read no launch")
                moves.learn(learned)  # later children need not disassemble these kernels again
                parts[start] = part
                if start + read_count < stop:
                    _put_back(pending, start + read_count, stop)
                held, found = held + read_count, found + fits * read_count
                per_child = max(min_launches, found // held)
        except ChildKilled as killed:
            _stop_all(running)
            end_by(killed.signal)
        except BaseException:
            _stop_all(running)
            raise
    return merge([parts[start] for start in sorted(parts)], names)


def _next_finished(ready: selectors.BaseSelector, running: dict) -> tuple:
    """Read the running children's pipes until one is closed: that child's entry."""
    while True:
        for key, _ in ready.select():
            child, start, stop = running[key.fd]
            if child.read_some():
                ready.unregister(key.fd)
                del running[key.fd]
                return child, start, stop


def _put_back(pending: list[tuple[int, int]], start: int, stop: int) -> None:
    """Return launches ``start:stop`` to ``pending``, in order, joined to a range that
    follows them."""
    at = bisect.bisect(pending, (start, stop))
    if at < len(pending) and pending[at][0] == stop:
        stop = pending.pop(at)[1]
    pending.insert(at, (start, stop))


def _read_launches(
    launches: list,
    start: int,
    stop: int,
    names: tuple[str, ...],
    moves: MoveCounter,
    growth: int | None,
    min_launches: int = 1,
) -> tuple[dict, dict, int]:
    """Read ``launches[start:stop]`` in order, stopping once this process has grown by
    ``growth`` bytes (None: read them all) and has read at least ``min_launches``: the
    document of those read, the kernels whose register moves were found meanwhile, and
    how many launches like these the growth allowed would hold (0 when unbounded)."""
    import ncu_report

    demangled, mangled = ncu_report.IAction.NameBase_DEMANGLED, ncu_report.IAction.NameBase_MANGLED
    table = LaunchTable(stop - start, names, moves)
    base = resident_bytes() if growth is not None else 0
    for read_count, (result_range, index) in enumerate(launches[start:stop], 1):
        table.add(result_range.action_by_idx(index), demangled, mangled)
        if growth is not None and read_count >= min_launches:
            if resident_bytes() >= base + _allowed(growth, moves):
                break
    fits = 0
    if growth is not None:
        grown = max(1, resident_bytes() - base)
        fits = table.row * _allowed(growth, moves) // grown
    return table.document(), moves.learned(), fits


def _allowed(growth: int, moves: MoveCounter) -> int:
    return growth * (SASS_GROWTH_FACTOR if moves.disassembled else 1)


def merge(parts: list[dict], names: tuple[str, ...]) -> dict:
    """One document from those of consecutive runs of launches, as if read in one go:
    metrics in ``names`` order, each with the unit of the first launch that has it."""
    launches = sum(part["launches"] for part in parts)
    unit_of: dict[str, str] = {}
    for part in parts:
        for name, unit in zip(part["metrics"], part["units"]):
            unit_of.setdefault(name, unit)
    found = [name for name in names if name in unit_of]
    columns = []
    for name in found:
        for part in parts:
            rows = part["launches"]
            if name in part["metrics"]:
                at = 8 * rows * part["metrics"].index(name)
                columns.append(part["values"][at : at + 8 * rows])
            else:
                columns.append((array("d", [math.nan]) * rows).tobytes())
    return {
        "launches": launches,
        "identity": {
            field: [value for part in parts for value in part["identity"][field]] for field in IDENTITY_FIELDS
        },
        "metrics": found,
        "units": [unit_of[name] for name in found],
        "values": b"".join(columns),
    }


def _stop_all(running: dict) -> None:
    for child, _, _ in running.values():
        child.stop()
    running.clear()


def _number(metric) -> float | None:
    kind = metric.kind()
    if kind in (metric.ValueKind_UINT64, metric.ValueKind_UINT32):
        return float(metric.as_uint64())  # the nearest double, as a float64 column holds it
    if kind == metric.ValueKind_STRING:
        return None
    return metric.as_double()


def _fact(action, name: str) -> object:
    metric = action.metric_by_name(name)
    if metric is None or not metric.has_value():
        return None
    if metric.kind() == metric.ValueKind_STRING:
        return metric.as_string()
    if metric.kind() in (metric.ValueKind_UINT64, metric.ValueKind_UINT32):
        return metric.as_uint64()
    return metric.as_double()


def _identity(action, demangled: int) -> dict:
    facts = {name: _fact(action, name) for name in _IDENTITY_METRICS}
    major = facts["device__attribute_compute_capability_major"]
    minor = facts["device__attribute_compute_capability_minor"]
    return {
        "kernel_name": action.name(demangled),
        "device_index": facts["launch__device_id"],
        "stream": facts["launch__stream_id"],
        "grid": _dims(facts, "launch__grid_dim"),
        "block": _dims(facts, "launch__block_dim"),
        "device": facts["device__attribute_display_name"] or "",
        "cc": f"{major}.{minor}" if major is not None and minor is not None else "",
        "nvtx": " > ".join(_push_pop_ranges(action)),
    }


def _dims(facts: dict, prefix: str) -> str:
    dims = [facts[f"{prefix}_{axis}"] for axis in "xyz"]
    return "" if None in dims else "({}, {}, {})".format(*dims)


def _push_pop_ranges(action) -> list[str]:
    """Open push/pop ranges of the launching thread, outermost first.

    Domains in ncu's order (the default domain first), each domain's ranges in
    stack order, as ncu's CSV lists them. Checked on a report with nested ranges
    in two domains (tests/ingest/data/nested_nvtx.ncu-rep.xz).
    """
    state = action.nvtx_state()
    if state is None:
        return []
    names = []
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        if domain is not None:
            names.extend(domain.push_pop_ranges())
    return names


def main(argv: list[str]) -> int:
    argv = list(argv)
    child_bytes = _int_option(argv, "--child-bytes", CHILD_GROWTH_BYTES)
    min_launches = _int_option(argv, "--min-launches", MIN_LAUNCHES_PER_CHILD)
    at_once = _int_option(argv, "--children", 1)
    entry_fd = _int_option(argv, "--entry-fd", -1)
    key = _text_option(argv, "--key")
    here_first = "--children-only" not in argv[:-1]
    if not here_first:
        argv.remove("--children-only")
    if len(argv) != 1 or child_bytes < 0 or min_launches < 1 or at_once < 1 or entry_fd < 0 or not key:
        print(
            "usage: python -m rooftui.ingest._ncu_rep_worker --entry-fd FD --key KEY "
            "[--child-bytes N] [--min-launches N] [--children N] [--children-only] REPORT.ncu-rep",
            file=sys.stderr,
        )
        return 2
    try:
        import ncu_report  # noqa: F401
    except ImportError as err:
        print(f"cannot import ncu_report ({err})", file=sys.stderr)
        return EXIT_NO_NCU_REPORT
    try:
        entry = entry_of_document(read(argv[0], child_bytes, min_launches, at_once, here_first), key)
    except ChildFailed:  # its message is on stderr already
        return EXIT_READER_FAILED
    except Exception as err:  # noqa: BLE001 - the parent turns any reader failure into one line
        print(f"{type(err).__name__}: {err}".splitlines()[0], file=sys.stderr)
        return EXIT_READER_FAILED
    try:
        with os.fdopen(entry_fd, "wb") as out:
            entry.write(out)
    except OSError as err:
        print(f"{type(err).__name__}: {err}".splitlines()[0], file=sys.stderr)
        return EXIT_ENTRY_UNWRITABLE
    return 0


def _int_option(argv: list[str], option: str, default: int) -> int:
    """Take ``option N`` out of ``argv``: N, ``default`` when absent, -1 when not a number."""
    value = _text_option(argv, option)
    if value is None:
        return default
    return int(value) if value.isdigit() else -1


def _text_option(argv: list[str], option: str) -> str | None:
    """Take ``option VALUE`` out of ``argv``: VALUE, None when absent."""
    if option not in argv[:-1]:
        return None
    at = argv.index(option)
    value = argv.pop(at + 1)
    argv.pop(at)
    return value


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
