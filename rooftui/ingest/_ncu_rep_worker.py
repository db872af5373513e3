"""Child process that reads one ``.ncu-rep`` with NVIDIA's ``ncu_report``.

``python -m rooftui.ingest._ncu_rep_worker REPORT`` writes one pickle to stdout
(see ``rooftui.ingest.ncu_rep`` for the parent). ``ncu_report`` is native code
that can crash on a damaged report; running it here keeps the parent alive.

What is read is decided once per report: the identity facts of each launch and
the metrics of ``rooftui.model.metrics.metrics_read()``, each fetched by name
(a report holds ~400-500 metrics per launch, rooftui reads ~30 of them). The
pickle holds builtins only (the parent refuses any other type), column by column::

    {"launches": N,
     "identity": {"kernel_name": [N str], "device_index": [N int|None], "stream": [...],
                  "grid": [N "(x, y, z)"], "block": [...], "device": [...], "cc": [N "9.0"],
                  "nvtx": [N "outer > inner"],
                  "register_moves": [N int|None: HFMA2 register moves (ingest.sass_moves)]},
     "metrics": [names found in at least one launch], "units": [ncu's unit of each],
     "values": bytes: len(metrics) × N float64, one metric after another, NaN where absent}

Values are as ncu_report stores them (integers converted to the nearest double);
the parent scales them to base units. This module imports no pandas: the child
starts in a few tens of milliseconds.
Exit codes: 0 done, 1 the reader raised (message on stderr), 3 ncu_report missing.
"""

from __future__ import annotations

import math
import pickle
import sys
from array import array

from rooftui.ingest.sass_moves import MoveCounter
from rooftui.model.metrics import metrics_read

EXIT_READER_FAILED = 1
EXIT_NO_NCU_REPORT = 3

# Launch facts ncu's CSV shows as identity columns ("Stream", "Grid Size", ...).
_IDENTITY_METRICS = (
    "launch__device_id", "launch__stream_id",
    "launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z",
    "launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z",
    "device__attribute_display_name",
    "device__attribute_compute_capability_major", "device__attribute_compute_capability_minor",
)
IDENTITY_FIELDS = ("kernel_name", "device_index", "stream", "grid", "block", "device", "cc", "nvtx",
                   "register_moves")


class LaunchTable:
    """The launches of one report, filled one launch at a time, column by column."""

    def __init__(self, launches: int, metric_names: tuple[str, ...]) -> None:
        self.launches = launches
        self.metric_names = metric_names
        self.identity: dict[str, list] = {name: [] for name in IDENTITY_FIELDS}
        self.values = [array("d", [math.nan]) * launches for _ in metric_names]
        self.units: list[str | None] = [None] * len(metric_names)  # None: in no launch yet
        self.row = 0
        self.moves = MoveCounter()

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


def read(path: str) -> dict:
    import ncu_report

    context = ncu_report.load_report(path)
    ranges = [context.range_by_idx(i) for i in range(context.num_ranges())]
    table = LaunchTable(sum(r.num_actions() for r in ranges), metrics_read())
    demangled, mangled = ncu_report.IAction.NameBase_DEMANGLED, ncu_report.IAction.NameBase_MANGLED
    # ncu numbers launches across the whole report, from 0, in this order.
    for result_range in ranges:
        for action_index in range(result_range.num_actions()):
            table.add(result_range.action_by_idx(action_index), demangled, mangled)
    return table.document()


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
    if len(argv) != 1:
        print("usage: python -m rooftui.ingest._ncu_rep_worker REPORT.ncu-rep", file=sys.stderr)
        return 2
    try:
        import ncu_report  # noqa: F401
    except ImportError as err:
        print(f"cannot import ncu_report ({err})", file=sys.stderr)
        return EXIT_NO_NCU_REPORT
    try:
        document = read(argv[0])
    except Exception as err:  # noqa: BLE001 - the parent turns any reader failure into one line
        print(f"{type(err).__name__}: {err}".splitlines()[0], file=sys.stderr)
        return EXIT_READER_FAILED
    sys.stdout.buffer.write(pickle.dumps(document, protocol=pickle.HIGHEST_PROTOCOL))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
