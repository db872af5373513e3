"""``rooftui summary`` output: a rich table for people, CSV and JSON for tools.

The JSON layout is a contract (README, "JSON output"): keys may be added, none
removed or renamed.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from rooftui.analysis import Run
from rooftui.analysis.summary import zero_ai_table
from rooftui.model.columns import FLOAT_PIPELINES, LEVELS, PIPELINE_LABELS, flop_column
from rooftui.views.formats import intensity, percent, seconds, si

CSV_COLUMNS = (
    "id", "report", "device", "cc", "name", "demangled", "count", "time_s", "time_mean_s",
    "flops", "flops_fp64", "flops_fp32", "flops_fp16", "flops_tensor_fp64", "flops_tensor_tf32",
    "flops_tensor_fp16", "flops_tensor_bf16", "flops_tensor_fp8", "ops_tensor_int8",
    "flops_tensor", "bytes_l1", "bytes_l2", "bytes_hbm", "ai_l1", "ai_l2", "ai_hbm",
    "flop_rate", "pipeline", "zero_ai", "fp16_approximate", "phase", "phase_inferred", "nvtx",
    "bound", "roof_fraction", "bound_l1", "bound_l2", "bound_hbm",
)


def _clean(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):
        return _clean(value.item())
    return value


def to_json(run: Run, rows: pd.DataFrame) -> dict[str, Any]:
    """The documented JSON document for ``rows`` (invocations or groups) of ``run``."""
    first = run.ceilings
    kernels = []
    for row in rows.to_dict("records"):
        entry = {
            "id": row.get("id"), "name": row["name"], "demangled": row.get("demangled"),
            "device": row.get("device"), "report": row.get("report"),
            "time_s": row["time_s"],
            "flops": {"fp64": row["flops_fp64"], "fp32": row["flops_fp32"], "fp16": row["flops_fp16"],
                      "tensor": row["flops_tensor"],
                      "by_pipeline": {p: row[flop_column(p)] for p in FLOAT_PIPELINES},
                      "tensor_int8_ops": row["ops_tensor_int8"]},
            "bytes": {level: row[f"bytes_{level}"] for level in LEVELS},
            "ai": {level: row[f"ai_{level}"] for level in LEVELS},
            "flop_rate": row["flop_rate"],
            "pipeline": row["pipeline"], "zero_ai": row["zero_ai"],
            "fp16_approximate": row["fp16_approximate"],
            "phase": row.get("phase"), "phase_inferred": row.get("phase_inferred"),
            "nvtx": row.get("nvtx"),
            "bound": row.get("bound"), "roof_fraction": row.get("roof_fraction"),
        }
        if "count" in row:
            entry["count"] = row["count"]
            entry["time_mean_s"] = row["time_mean_s"]
        kernels.append(entry)
    table3 = zero_ai_table(run.kernels)
    overall = table3.iloc[-1]
    doc = {
        "device": {"name": first.device.name, "cc": first.device.cc},
        "devices": [{"name": name, "cc": c.device.cc} for name, c in run.ceilings_by_device.items()],
        "ceilings": [c.to_dict() for c in first.ceilings],
        "kernels": kernels,
        "summary": {
            "kernels": int(len(run.kernels)),
            "zero_ai": int(overall["zero_ai"]),
            "zero_ai_time_share": float(overall["zero_ai_time_share"]),
            "time_s": float(run.kernels["time_s"].sum()),
            "phases": {str(p): int(n) for p, n in run.kernels["phase"].value_counts(sort=False).items()},
            "table3": table3.to_dict("records"),
        },
        "notes": run.notes,
    }
    return _nan_to_none(doc)


def dumps_json(run: Run, rows: pd.DataFrame) -> str:
    return json.dumps(to_json(run, rows), indent=1)


def _nan_to_none(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _nan_to_none(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_nan_to_none(v) for v in obj]
    return _clean(obj)


def to_csv(rows: pd.DataFrame) -> str:
    columns = [c for c in CSV_COLUMNS if c in rows]
    return rows[columns].to_csv(index=False)


_SHORT_PIPE = {"tensor_fp64": "TC FP64", "tensor_tf32": "TC TF32", "tensor_fp16": "TC FP16",
               "tensor_bf16": "TC BF16", "tensor_fp8": "TC FP8", "tensor_int8": "TC INT8"}


def short_pipeline(pipeline: str) -> str:
    return _SHORT_PIPE.get(pipeline, PIPELINE_LABELS.get(pipeline, pipeline))


def render_table(run: Run, rows: pd.DataFrame, console: Console, grouped: bool) -> None:
    """The kernel table in the console's width, then Table III and the ceilings used.
    Every column but the name is as wide as its longest cell, so no number is ever
    cut; the name gets the rest of the width (and no more than its longest)."""
    total = float(run.kernels["time_s"].sum())
    titles = ["time", "%", "FLOP/s", "AI L1", "L2", "HBM", "pipe", "phase", "bound"]
    lines = []
    for row in rows.to_dict("records"):
        approximate = row["fp16_approximate"] and row["pipeline"] == "fp16"
        pipe = short_pipeline(row["pipeline"]) + ("~" if approximate else "")
        phase = (row.get("phase") or "") + ("*" if row.get("phase_inferred") else "")
        bound = row.get("bound") or ""
        for long, short in _SHORT_PIPE.items():
            bound = bound.replace(PIPELINE_LABELS[long], short)
        fraction = row.get("roof_fraction")
        if bound and fraction == fraction and fraction is not None:
            bound = f"{bound} {100 * fraction:.0f}%"
        cells = [row["name"]]
        if grouped:
            cells.append(str(row["count"]))
        share = row["time_s"] / total if total else float("nan")
        cells += [seconds(row["time_s"]).replace(" ", ""), f"{100 * share:.0f}%" if share == share else "",
                  si(row["flop_rate"], "").replace(" ", ""), intensity(row["ai_l1"]),
                  intensity(row["ai_l2"]), intensity(row["ai_hbm"]), pipe, phase, bound]
        lines.append(cells)
    titles = ["kernel", *(["n"] if grouped else []), *titles]
    widths = [max([len(title)] + [len(line[i]) for line in lines]) for i, title in enumerate(titles)]
    others = sum(width + 1 for width in widths[1:])
    name_width = max(9, min(widths[0], console.width - others - 1))
    table = Table(box=None, pad_edge=False, header_style="bold", show_edge=False,
                  collapse_padding=True, padding=(0, 1, 0, 0))
    table.add_column("kernel", overflow="ellipsis", no_wrap=True, width=name_width)
    for title, width in zip(titles[1:], widths[1:]):
        table.add_column(title, justify="left" if title in ("pipe", "phase", "bound") else "right",
                         no_wrap=True, width=width)
    for cells in lines:
        table.add_row(*cells)
    console.print(table, width=max(console.width, name_width + others + 1), crop=False)
    console.print(
        "[dim]AI in FLOP/byte; pipe: pipeline with most FLOPs (TC = Tensor Cores, ~ FP16 "
        "approximate); phase * inferred; bound: binding roof and % of it reached[/dim]")
    _render_table3(run, console)
    _render_ceilings(run, console)


def _render_table3(run: Run, console: Console) -> None:
    table = Table(title="Zero-AI kernels (Table III)", box=None, header_style="bold", title_justify="left")
    for title in ("phase", "kernels", "zero-AI", "share", "time", "zero-AI time", "share"):
        table.add_column(title, justify="left" if title == "phase" else "right")
    for row in zero_ai_table(run.kernels).to_dict("records"):
        table.add_row(row["phase"] or "(none)", str(row["kernels"]), str(row["zero_ai"]),
                      percent(row["zero_ai_share"]), seconds(row["time_s"]),
                      seconds(row["zero_ai_time_s"]), percent(row["zero_ai_time_share"]))
    console.print(table)


def _render_ceilings(run: Run, console: Console) -> None:
    for device, ceilings in run.ceilings_by_device.items():
        parts = [f"{c.name.split(' (')[0]} {si(c.value, c.unit)}[dim] {c.method}[/dim]"
                 for c in ceilings.ceilings]
        console.print(f"[bold]Ceilings[/bold] {device} (cc {ceilings.device.cc}): " + ", ".join(parts))
