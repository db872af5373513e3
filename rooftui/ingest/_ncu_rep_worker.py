"""Child process that reads one ``.ncu-rep`` with NVIDIA's ``ncu_report`` and prints it.

``python -m rooftui.ingest._ncu_rep_worker REPORT`` writes one JSON document to
stdout (see ``rooftui.ingest.ncu_rep`` for the parent). ``ncu_report`` is native
code that can crash on a damaged report; running it here keeps the parent alive.

The document::

    {"columns": [metric names], "units": [ncu's unit per column],
     "kernels": [{"ncu_id", "kernel_name", "device_index", "stream", "grid", "block",
                  "nvtx": [range names, outermost first], "device", "cc",
                  "register_moves": HFMA2 register moves (rooftui.ingest.sass_moves) or null,
                  "values": [one value per column, null where absent]}]}

Values are as ncu_report stores them (integers stay integers); the parent scales
them to base units. Only metrics ``is_relevant_metric`` keeps are written.
Exit codes: 0 done, 1 the reader raised (message on stderr), 3 ncu_report missing.
"""

from __future__ import annotations

import json
import sys

from rooftui.ingest.report import is_relevant_metric
from rooftui.ingest.sass_moves import MoveCounter

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


def read(path: str) -> dict:
    import ncu_report

    context = ncu_report.load_report(path)
    column_of: dict[str, int] = {}
    units: list[str] = []
    relevant: dict[str, bool] = {}  # metric names repeat across kernels: test each once
    kernels = []
    ncu_id = 0
    moves = MoveCounter()
    for range_index in range(context.num_ranges()):
        result_range = context.range_by_idx(range_index)
        for action_index in range(result_range.num_actions()):
            action = result_range.action_by_idx(action_index)
            values: dict[int, object] = {}
            for name in action.metric_names():
                keep = relevant.get(name)
                if keep is None:
                    keep = relevant[name] = is_relevant_metric(name)
                if not keep:
                    continue
                metric = action.metric_by_name(name)
                if metric is None or not metric.has_value():
                    continue
                value = _value(metric)
                if isinstance(value, str):  # the display name: an identity column
                    continue
                column = column_of.get(name)
                if column is None:
                    column = column_of[name] = len(units)
                    units.append(metric.unit())
                values[column] = value
            kernel = _identity(action, ncu_report.IAction.NameBase_DEMANGLED)
            kernel["ncu_id"] = ncu_id
            kernel["register_moves"] = moves.count(action, action.name(ncu_report.IAction.NameBase_MANGLED))
            kernel["values"] = [values.get(i) for i in range(len(units))]
            kernels.append(kernel)
            ncu_id += 1  # ncu numbers launches across the whole report, from 0
    return {"columns": list(column_of), "units": units, "kernels": kernels}


def _value(metric) -> object:
    kind = metric.kind()
    if kind in (metric.ValueKind_UINT64, metric.ValueKind_UINT32):
        return metric.as_uint64()  # exact, where a double would round past 2**53
    if kind == metric.ValueKind_STRING:
        return metric.as_string()
    return metric.as_double()


def _identity(action, demangled: int) -> dict:
    facts = {}
    for name in _IDENTITY_METRICS:
        metric = action.metric_by_name(name)
        facts[name] = _value(metric) if metric is not None and metric.has_value() else None
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
        "nvtx": _push_pop_ranges(action),
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
    json.dump(document, sys.stdout, separators=(",", ":"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
