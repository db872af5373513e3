"""Nsight Compute ``.ncu-rep`` reports (optionally ``.xz``/``.gz``/``.bz2`` compressed).

NVIDIA's ``ncu_report`` package (PyPI ``ncu-report``; no Nsight Compute install
needed) does the reading, in a child process (``_ncu_rep_worker``): it is native
code, and a damaged report must cost the user a one-line error, not the process.

Two things ``ncu_report`` does not do, done here:
- a report cut short (a partial copy, a killed ncu) loads without complaint, with
  the kernels before the cut only; ``ncu_rep_records.checked_report`` walks the
  file's records (while decompressing, if compressed) and refuses it;
- it has no process ID, so ``process_id`` is NaN.

``kernel_name`` is ``ncu_report``'s demangled name. For plain C functions and
simple templates it is the CSV's "Kernel Name"; for deeper C++ names ncu's CSV
export prints a shortened form instead (``at::native::foo<(int)8>`` there reads
``at::foo<8>``), which no public API produces.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest import units
from rooftui.ingest._ncu_rep_worker import EXIT_NO_NCU_REPORT
from rooftui.ingest.files import check_readable
from rooftui.ingest.ncu_rep_records import checked_report
from rooftui.ingest.report import RawReport

WORKER = [sys.executable, "-m", "rooftui.ingest._ncu_rep_worker"]
_RERUN = "re-copy the report or re-run ncu"


def read_ncu_rep(path: str | Path, *, timeout_s: float | None = None) -> RawReport:
    """Read one ``.ncu-rep`` (or ``.ncu-rep.xz``/``.gz``/``.bz2``) into a RawReport.

    ``timeout_s`` bounds the reader (default: 60 s plus 1 s per MB of report).
    Raises InputError for a missing, empty, truncated, corrupt or kernel-less report.
    """
    path = Path(path)
    check_readable(path)
    if importlib.util.find_spec("ncu_report") is None:
        raise InputError("cannot read .ncu-rep reports: the ncu-report package is missing", path,
                         "pip install ncu-report, or export the report to CSV with "
                         "`ncu --import REPORT.ncu-rep --csv --page raw`")
    with checked_report(path) as (report, has_signature):
        if timeout_s is None:
            timeout_s = 60.0 + report.stat().st_size / 1e6
        document = _run_worker(WORKER, report, path, timeout_s)
    return _to_raw_report(document, path, has_signature)


def _run_worker(command: Sequence[str], report: Path, path: Path, timeout_s: float) -> dict:
    """Run the reader on ``report`` in a child process; its JSON document, or InputError."""
    try:
        done = subprocess.run([*command, str(report)], capture_output=True, timeout=timeout_s,
                              env=_worker_env())
    except subprocess.TimeoutExpired:
        raise InputError(f"the ncu_report reader took more than {timeout_s:.0f} s", path,
                         "the report may be corrupt; " + _RERUN + ", or export it to CSV") from None
    stderr = done.stderr.decode("utf-8", errors="replace").strip()
    if done.returncode < 0:
        raise InputError(f"the report is truncated or corrupt (the ncu_report reader crashed "
                         f"with {_signal_name(-done.returncode)})", path, _RERUN)
    if done.returncode == EXIT_NO_NCU_REPORT:
        raise InputError(f"cannot load the ncu_report package ({_last_line(stderr)})", path,
                         "reinstall it: pip install --force-reinstall ncu-report")
    if done.returncode != 0:
        raise InputError(f"the ncu_report reader failed on it ({_last_line(stderr)})", path,
                         "the report is probably corrupt; " + _RERUN)
    if "Can't parse message" in stderr:  # protobuf skipped a damaged record and went on
        raise InputError(f"the report is corrupt (ncu_report: {_last_line(stderr)})", path, _RERUN)
    try:
        document = json.loads(done.stdout)
        if not isinstance(document, dict):
            raise ValueError("not a JSON object")
        document["columns"], document["units"], document["kernels"]  # noqa: B018
    except (ValueError, KeyError) as err:
        raise InputError(f"the ncu_report reader gave unreadable output ({_one_line(err)})", path,
                         "the report is probably corrupt; " + _RERUN) from None
    return document


def _worker_env() -> dict[str, str]:
    # The child must import this rooftui even when it runs from a source checkout.
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _to_raw_report(document: dict, path: Path, has_signature: bool) -> RawReport:
    rows = document["kernels"]
    if not rows:
        if has_signature:
            raise InputError("the report holds no profiled kernels (cut short before its first "
                             "result, or ncu profiled none)", path,
                             "if it was copied, copy it whole; else check ncu's filters "
                             "(-k, --launch-count, --profile-from-start) and re-run it")
        raise InputError("not an Nsight Compute report (no kernels could be read from it)", path,
                         "pass an .ncu-rep written by `ncu -o`, or its CSV export")
    kernels = pd.DataFrame({
        "ncu_id": np.array([r["ncu_id"] for r in rows], dtype=np.int64),
        "kernel_name": [r["kernel_name"] for r in rows],
        "process_id": np.full(len(rows), np.nan),  # ncu_report does not expose it
        "device_index": _integers([r["device_index"] for r in rows]),
        "device": [r["device"] for r in rows],
        "cc": [r["cc"] for r in rows],
        "grid": [r["grid"] for r in rows],
        "block": [r["block"] for r in rows],
        "stream": _integers([r["stream"] for r in rows]),
        "nvtx": [" > ".join(r["nvtx"]) for r in rows],
    })

    notes: list[str] = []
    columns, unit_of = document["columns"], document["units"]
    # Rows written before a metric first appeared are shorter; None becomes NaN.
    padding = [[None] * (len(columns) - len(r["values"])) for r in rows]
    values = np.array([r["values"] + pad for r, pad in zip(rows, padding)], dtype=np.float64)
    values = values.reshape(len(rows), len(columns))
    metrics = {}
    for j, (name, unit) in enumerate(zip(columns, unit_of)):
        f = units.factor(unit)
        if f is None:
            notes.append(f"{name}: unknown unit {unit!r}, values taken as stored")
            f = 1.0
        metrics[name] = values[:, j] * f if f != 1.0 else values[:, j]
    kernels = pd.concat([kernels, pd.DataFrame(metrics)], axis=1)
    return RawReport(str(path), "ncu-rep", kernels, True, notes)


def _integers(values: list) -> np.ndarray | pd.arrays.IntegerArray:
    if any(v is None for v in values):
        return pd.array(values, dtype="Int64")
    return np.array(values, dtype=np.int64)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


def _one_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__
