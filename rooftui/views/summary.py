"""``rooftui summary`` output: a rich table for people, CSV and JSON for tools.

The JSON layout is a contract (README, "JSON output"): keys may be added, none
removed or renamed.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rooftui.analysis import Run, instruction_roofline, zero_ai
from rooftui.analysis.ceilings import source_text
from rooftui.analysis.deduplicated import counters_from
from rooftui.analysis.ranks import communication_sidecar, per_rank
from rooftui.analysis.summary import phase_label, zero_ai_table
from rooftui.model.columns import (
    FLOAT_PIPELINES,
    LEVEL_LABELS,
    LEVELS,
    OPTIONAL_LEVELS,
    PARTIAL_MARK,
    PIPELINE_LABELS,
    flop_column,
)
from rooftui.model.flop_states import provenance
from rooftui.notes import as_dict as note_dict
from rooftui.views.formats import approximate_mark, intensity, json_safe, percent, seconds, si
from rooftui.views.instruction_table import render_instruction_table
from rooftui.views.json_text import dumps_indented
from rooftui.views.name_table import print_name_table
from rooftui.views.text import distinct_labels, markup_escaped, plain, printable

CSV_COLUMNS = (
    "id",
    "report",
    "device",
    "cc",
    "name",
    "demangled",
    "count",
    "launches",
    "time_s",
    "time_mean_s",
    "time_source",
    "flops",
    "flops_fp64",
    "flops_fp32",
    "flops_fp16",
    "flops_tensor_fp64",
    "flops_tensor_tf32",
    "flops_tensor_fp16",
    "flops_tensor_bf16",
    "flops_tensor_fp8",
    "ops_tensor_int8",
    "flops_tensor",
    "bytes_l1",
    "bytes_l2",
    "bytes_hbm",
    "ai_l1",
    "ai_l2",
    "ai_hbm",
    "flop_rate",
    "pipeline",
    "zero_ai",
    "zero_ai_launches",
    "fp16_approximate",
    "register_moves",
    "phase",
    "phase_inferred",
    "nvtx",
    "bound",
    "roof_fraction",
    "bound_l1",
    "bound_l2",
    "bound_hbm",
    "rank",
    "communication",  # last, so that earlier columns keep their places
    "flops_partial",
    "label",  # the name as every view shows it, whole (views.text.kernel_label)
    "bound_reason",  # why bound is blank ("" where it is given)
    "bound_basis",  # what a bound rests on (analysis.capped_bounds.BASES; "" where none)
    # The instruction roofline's (rooftui.model.instruction_columns); blank: not collected.
    "warp_instructions",
    "thread_instructions",
    "warp_efficiency",
    "transactions_l1",
    "transactions_l2",
    "transactions_hbm",
    "instruction_intensity_l1",
    "instruction_intensity_l2",
    "instruction_intensity_hbm",
    "sectors_per_request",
    "wavefronts_per_request",
    "warp_instruction_rate",
    # rooftui profile --dedup (rooftui.analysis.deduplicated); absent for other reports
    "counters_from",
    "counters_twin",
    "counters_twin_ncu_id",
    "counters_signature",
)


def to_json(run: Run, rows: pd.DataFrame, per_name: bool = False) -> dict[str, Any]:
    """The documented JSON document for ``rows`` (invocations or groups) of ``run``."""
    first = run.ceilings
    kernels = []
    labels = distinct_labels(rows["name"].astype(str).unique(), 0)
    rows = instruction_roofline.with_bounds(run, rows)
    for row in rows.to_dict("records"):
        entry = {
            "id": row.get("id"),
            "name": row["name"],
            "label": labels[str(row["name"])],
            "demangled": row.get("demangled"),
            "device": row.get("device"),
            "report": row.get("report"),
            "rank": row.get("rank") or None,
            "communication": row.get("communication"),
            "time_s": row["time_s"],
            "flops": {
                "fp64": row["flops_fp64"],
                "fp32": row["flops_fp32"],
                "fp16": row["flops_fp16"],
                "tensor": row["flops_tensor"],
                "by_pipeline": {p: row[flop_column(p)] for p in FLOAT_PIPELINES},
                "tensor_int8_ops": row["ops_tensor_int8"],
            },
            "bytes": {level: row[f"bytes_{level}"] for level in LEVELS},
            "ai": {level: row[f"ai_{level}"] for level in LEVELS},
            "flop_rate": row["flop_rate"],
            "time_source": row.get("time_source"),
            "launches": row["count"] if "count" in row else row.get("launches", 1),
            "pipeline": row["pipeline"],
            "zero_ai": row["zero_ai"],
            "fp16_approximate": row["fp16_approximate"],
            "register_moves": row.get("register_moves"),
            "phase": row.get("phase") or None,
            "phase_inferred": row.get("phase_inferred"),
            "nvtx": row.get("nvtx"),
            "bound": row.get("bound"),
            "roof_fraction": row.get("roof_fraction"),
            "bound_reason": row.get("bound_reason") or None,
            "bound_basis": row.get("bound_basis") or None,
            "flops_partial": bool(row.get("flops_partial", False)),
            "tma_bytes": row.get("bytes_tma"),  # part of bytes.smem: written by TMA
            "l1_bypassed": bool(row.get("l1_bypassed", False)),  # ai.l1 says nothing about reuse
            "provenance": provenance(row),
            "instructions": instruction_roofline.kernel_json(row),
            "counters_from": counters_from(row),  # rooftui profile --dedup: own or a twin's
        }
        if "count" in row:
            entry["count"] = row["count"]
            entry["time_mean_s"] = row["time_mean_s"]
            entry["zero_ai_launches"] = row.get("zero_ai_launches")
        kernels.append(entry)
    table3 = table_iii(run, per_name)
    overall = table3.iloc[-1]
    phases = run.kernels["phase"].fillna("")
    doc = {
        "device": {"name": first.device.name, "cc": first.device.cc},
        "devices": [{"name": name, "cc": c.device.cc} for name, c in run.ceilings_by_device.items()],
        "ceilings": [c.to_dict() for c in first.ceilings],  # the first GPU's, as before
        "ceilings_by_device": {
            name: [c.to_dict() for c in ceilings.ceilings]
            for name, ceilings in run.ceilings_by_device.items()
        },
        "missing_roofs": [miss.to_dict() for miss in run.missing_roofs],
        "instruction_ceilings_by_device": instruction_roofline.ceilings_json(run),
        "kernels": kernels,
        "summary": {
            "kernels": int(overall["kernels"]),
            "zero_ai": int(overall["zero_ai"]),
            "zero_ai_time_share": float(overall["zero_ai_time_share"]),
            "zero_ai_unknown": zero_ai.unknown_launches(run.kernels),
            # per launch (the one definition); --zero-ai-by name: per kernel name, as the
            # paper's authors counted their Table III
            "zero_ai_counted": zero_ai_counted(run, per_name),
            "time_s": float(run.kernels["time_s"].sum()),
            "phases": {str(p): int(n) for p, n in phases[phases != ""].value_counts(sort=False).items()},
            "no_phase": int((phases == "").sum()),
            "table3": [{**row, "phase": row["phase"] or None} for row in table3.to_dict("records")],
        },
        "notes": run.notes,
        # the same notes as data: {"kind" (rooftui.notes.KINDS), "text", "fix"}, in that order
        "notes_detail": [note_dict(note) for note in run.notes],
        "fp16_rule": run.fp16_rule,
    }
    if _has_ranks(run):
        doc["ranks"] = per_rank(run.kernels, _sidecar(run)).to_dict("records")
    return json_safe(doc)


def _sidecar(run: Run) -> pd.DataFrame | None:
    return communication_sidecar(sorted(set(run.kernels["report"].astype(str))))


def _has_ranks(run: Run) -> bool:
    return "rank" in run.kernels and bool((run.kernels["rank"] != "").any())


def _several_ranks(run: Run) -> bool:
    return _has_ranks(run) and run.kernels["rank"].nunique() > 1


RANKS_TITLE = "Per rank (kernel times summed, NCCL time runs included; overlap not seen)"
RANK_COLUMNS = (
    "rank",
    "device",
    "launches",
    "time",
    "zero-AI time",
    "NCCL launches",
    "NCCL time",
    "communication",
)


def rank_rows(run: Run) -> list[tuple[str, ...]]:
    """One row of text per rank of a multi-GPU run (``analysis.ranks.per_rank``), under
    ``RANK_COLUMNS``: what ``rooftui summary`` prints and the explorer's summary screen shows.
    A device name comes from a file: printable."""
    return [
        (
            row["rank"] or "?",
            printable(row["device"]),
            str(row["kernels"]),
            seconds(row["time_s"]),
            percent(row["zero_ai_time_share"]),
            str(row["communication_kernels"]),
            seconds(row["communication_time_s"]),
            percent(row["communication_time_share"]),
        )
        for row in per_rank(run.kernels, _sidecar(run)).to_dict("records")
    ]


def _render_ranks(run: Run, console: Console) -> None:
    """One line per rank of a multi-GPU run (reports named REPORT.rankN)."""
    table = Table(title=RANKS_TITLE, box=None, header_style="bold", title_justify="left")
    for title in RANK_COLUMNS:
        table.add_column(title, justify="left" if title in ("rank", "device") else "right")
    for row in rank_rows(run):
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)


def table_iii(run: Run, per_name: bool = False) -> pd.DataFrame:
    """Table III of the run: zero-AI per launch, or with ``per_name`` per kernel name (a
    launch counts as zero-AI when its kernel's launches together did no FLOP)."""
    if not per_name:
        return zero_ai_table(run.kernels)
    from rooftui.analysis.grouping import group_by_name

    return zero_ai_table(run.kernels, group_by_name(run.kernels))


# An L1 AI the kernel's traffic went around (TMA: model.shared_memory.l1_bypassed): its
# number (1e5-1e8 FLOP/byte) means nothing, so the text table says why instead (JSON keeps it).
BYPASSED_CELL = "TMA"


def _is_true(flag: Any) -> bool:
    """A flag column's cell: True only for a true value (not None, not NaN)."""
    return flag is not None and flag == flag and bool(flag)


def _ai_cell(ai: float, partial: str) -> str:
    """An AI for the text table, marked as a lower bound on a partial FLOP total."""
    return intensity(ai) + (partial if ai == ai else "")


def zero_ai_counted(run: Run, per_name: bool) -> str:
    """How Table III counted: "per launch", or "per kernel name" (asked for, or a per-name
    join of runs whose launches cannot be told apart)."""
    joined = "launches" in run.kernels and bool((run.kernels["launches"] > 1).any())
    return "per kernel name" if per_name or joined else "per launch"


def dumps_json(run: Run, rows: pd.DataFrame, per_name: bool = False) -> str:
    return dumps_indented(to_json(run, rows, per_name))


def to_csv(rows: pd.DataFrame) -> str:
    """The one CSV layout of the kernel table, for every export (``summary --format csv``,
    ``plot --csv``, the explorer's ``c``): the JSON contract's fields, flattened, in base
    units, in ``CSV_COLUMNS`` order; a column the rows lack (``count`` for invocations) is
    left out. Text is kept exact."""
    rows = with_labels(rows)
    columns = [c for c in CSV_COLUMNS if c in rows]
    return rows[columns].to_csv(index=False)


def with_labels(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with a ``label`` column: each kernel name as a person recognises it
    (operator, element types, conv direction, tile), as the views show it when there is
    room, told apart from every other name in ``rows``."""
    names = rows["name"].astype(str)
    return rows.assign(label=names.map(distinct_labels(names.unique(), 0)))


_SHORT_PIPE = {
    "tensor_fp64": "TC FP64",
    "tensor_tf32": "TC TF32",
    "tensor_fp16": "TC FP16",
    "tensor_bf16": "TC BF16",
    "tensor_fp8": "TC FP8",
    "tensor_int8": "TC INT8",
    "tensor_uncounted": "TC (uncounted)",
}


def short_pipeline(pipeline: str) -> str:
    return _SHORT_PIPE.get(pipeline, PIPELINE_LABELS.get(pipeline, pipeline))


# What a row of the text table reads: a row of these few columns of the wide kernel table
# costs far less than a row of every column (DataFrame.to_dict).
TABLE_COLUMNS = (
    "name",
    "rank",
    "count",
    "ncu_id",
    "time_s",
    "flop_rate",
    *(f"ai_{level}" for level in LEVELS),
    "pipeline",
    "fp16_approximate",
    "phase",
    "phase_inferred",
    "bound",
    "roof_fraction",
    "flops_partial",
    "l1_bypassed",
)


def render_table(
    run: Run, rows: pd.DataFrame, console: Console, grouped: bool, per_name: bool = False
) -> None:
    """The kernel table in the console's width, then Table III and the ceilings used.
    Every column but the name is as wide as its longest cell, so no number is ever
    cut; the name gets the rest of the width (and no more than its longest)."""
    total = float(run.kernels["time_s"].sum())
    # Several ranks: each row says its rank, and its time as a share of that rank's.
    ranked = _several_ranks(run) and "rank" in rows.columns
    rank_totals = run.kernels.groupby("rank")["time_s"].sum().to_dict() if ranked else {}
    # An optional level (SMEM) gets a column only where some row has it.
    levels = [lv for lv in LEVELS if lv not in OPTIONAL_LEVELS or rows[f"ai_{lv}"].notna().any()]
    level_titles = [("AI " if i == 0 else "") + LEVEL_LABELS[lv] for i, lv in enumerate(levels)]
    titles = ["time", "%rank" if ranked else "%", "FLOP/s", *level_titles, "pipe", "phase", "bound"]
    # One row per launch: ncu's launch ID tells apart the launches of one kernel, whose
    # names read the same (a name stands for the kernel, told apart from the others').
    launch_ids = not grouped and "ncu_id" in rows.columns
    lines = []
    for row in rows[[c for c in TABLE_COLUMNS if c in rows.columns]].to_dict("records"):
        pipe = short_pipeline(row["pipeline"]) + approximate_mark(row["pipeline"], row["fp16_approximate"])
        phase = phase_label(row.get("phase")) + ("*" if row.get("phase_inferred") else "")
        bound = row.get("bound") or ""
        for long, short in _SHORT_PIPE.items():
            bound = bound.replace(PIPELINE_LABELS[long], short)
        fraction = row.get("roof_fraction")
        if bound and fraction == fraction and fraction is not None:
            bound = f"{bound} {100 * fraction:.0f}%"
        cells: list[Text | str] = [plain(row["name"])]
        if ranked:
            cells.append(str(row["rank"]))
        if grouped:
            cells.append(str(row["count"]))
        elif launch_ids:
            cells.append(str(row["ncu_id"]))
        partial = PARTIAL_MARK * bool(row.get("flops_partial"))  # FLOP/s and AI: lower bounds
        bypassed_l1 = _is_true(row.get("l1_bypassed"))
        whole = float(rank_totals.get(row["rank"], 0.0)) if ranked else total
        share = row["time_s"] / whole if whole else float("nan")
        cells += [
            seconds(row["time_s"]).replace(" ", ""),
            f"{100 * share:.0f}%" if share == share else "",
            si(row["flop_rate"], "").replace(" ", "") + partial,
            *(
                BYPASSED_CELL if level == "l1" and bypassed_l1 else _ai_cell(row[f"ai_{level}"], partial)
                for level in levels
            ),
            plain(pipe),
            plain(phase),
            plain(bound),
        ]
        lines.append(cells)
    bypassed = any(line_has == BYPASSED_CELL for line in lines for line_has in line)
    counts = ["n"] if grouped else ["ID"] if launch_ids else []
    titles = ["kernel", *(["rank"] if ranked else []), *counts, *titles]
    shown = print_name_table(console, titles, lines, rows["name"], left=("pipe", "phase", "bound"))
    console.print(
        "[dim]"
        + ("ID: ncu's launch ID; " if launch_ids else "")
        + ("%rank: share of the row's rank's kernel time; " if ranked else "")
        + "AI in FLOP/byte; "
        + (f"AI L1 {BYPASSED_CELL}: L1 bypassed by TMA, its AI not shown; " if bypassed else "")
        + "pipe: pipeline with most FLOPs (TC = Tensor Cores, ~ FP16 "
        f"approximate); FLOP/s, AI {PARTIAL_MARK}: lower bounds, some FLOPs not collected (notes say which); "
        "phase * inferred; bound: binding roof and % of it reached (blank: unknown)[/dim]"
    )
    render_instruction_table(run, rows, console, counts)  # only with the instruction counters
    if grouped:
        _render_mixed_groups(rows, console, shown)
    _render_table3(run, console, per_name)
    if _has_ranks(run):
        _render_ranks(run, console)
    _render_ceilings(run, console)


def _render_mixed_groups(rows: pd.DataFrame, console: Console, shown: dict[str, str]) -> None:
    """Groups holding both zero-AI launches and others: how many of each."""
    zero, count = zero_ai.launches(rows), zero_ai.launch_counts(rows)
    for name, n, m in zip(rows["name"], zero, count):
        if 0 < n < m:
            console.print(
                f"[dim]{markup_escaped(shown[name])}: zero-AI launches {zero_ai.share_text(n, m)}[/dim]"
            )


def _render_table3(run: Run, console: Console, per_name: bool = False) -> None:
    counted = zero_ai_counted(run, per_name)
    title = "Zero-AI launches (Table III" + (f", zero-AI {counted})" if counted != "per launch" else ")")
    table = Table(title=title, box=None, header_style="bold", title_justify="left")
    for title in ("phase", "launches", "zero-AI", "share", "time", "zero-AI time", "share"):
        table.add_column(title, justify="left" if title == "phase" else "right")
    for row in table_iii(run, per_name).to_dict("records"):
        table.add_row(
            plain(phase_label(row["phase"])),
            str(row["kernels"]),
            str(row["zero_ai"]),
            percent(row["zero_ai_share"]),
            seconds(row["time_s"]),
            seconds(row["zero_ai_time_s"]),
            percent(row["zero_ai_time_share"]),
        )
    console.print(table)
    console.print(f"[dim]{zero_ai.tally(run.kernels).text()} (integer Tensor work is never zero-AI)[/dim]")
    unknown = zero_ai.unknown_launches(run.kernels)
    if unknown:
        console.print(
            f"[yellow]zero-AI unknown for {unknown} launches: no work counted, but a FLOP "
            "counter is missing from the report (see the note); not counted above[/yellow]"
        )


def _render_ceilings(run: Run, console: Console) -> None:
    """Per GPU, its roofs grouped by where they came from, then the roofs it lacks and
    the caveats of report peaks no kernel can reach."""
    for device, ceilings in run.ceilings_by_device.items():
        by_source: dict[str, list[str]] = {}
        for c in ceilings.ceilings:
            by_source.setdefault(source_text(c), []).append(f"{c.label} {si(c.value, c.unit)}")
        parts = [f"{', '.join(roofs)} [dim]({source})[/dim]" for source, roofs in by_source.items()]
        cc = "" if device.endswith(f"(cc {ceilings.device.cc})") else f" (cc {ceilings.device.cc})"
        console.print(f"[bold]Ceilings[/bold] {markup_escaped(device)}{cc}: " + "; ".join(parts))
        for c in ceilings.ceilings:
            if c.caveat:
                console.print(f"[yellow]{markup_escaped(c.name)}:[/yellow] {markup_escaped(c.caveat)}")
        for message in run.missing_roof_messages(device):
            console.print(f"[yellow]{markup_escaped(message)}[/yellow]")
