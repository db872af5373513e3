"""``rooftui diff`` output: text for people (80 columns and up), CSV and JSON for tools.

The JSON layout (``rooftui.compare/1``, docs/compare.md) is a contract: keys may
be added, none removed or renamed.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rooftui.analysis import Run, zero_ai
from rooftui.analysis.compare import HOWS, METHODS, SIDE_COLUMNS, Comparison
from rooftui.model.columns import BOUND_LEVELS as LEVELS  # compared: the paper's three levels
from rooftui.model.columns import LEVEL_LABELS
from rooftui.notes import as_dict as note_dict
from rooftui.views.formats import intensity, json_safe, percent, seconds, si
from rooftui.views.summary import short_pipeline
from rooftui.views.text import markup_escaped, plain, short_names, shorten

SCHEMA = "rooftui.compare/1"
METHOD_WORDS = {"exact": "same", "parameters": "params", "operation": "op", "similar": "~name"}


# ---------------------------------------------------------------- numbers as text


def change(ratio: float | None) -> str:
    """B / A as a signed percentage: 0.34 -> "-66%", 2.1 -> "+110%"."""
    if ratio is None or not math.isfinite(ratio):
        return ""
    return f"{100 * (ratio - 1):+.0f}%"


def both(a: str, b: str) -> str:
    """ "a→b", or just "a" when nothing changed."""
    return a if a == b else f"{a or '–'}→{b or '–'}"


def rate_text(value: float | None) -> str:
    return si(value, "").replace(" ", "")


def time_text(value: float | None) -> str:
    return seconds(value).replace(" ", "")


def pipeline_text(value: Any) -> str:
    return short_pipeline(value) if isinstance(value, str) else ""


def finite(value: Any) -> float | None:
    """``value`` as a float where it is a finite number; None where it is missing (None,
    NA, NaN), infinite or text."""
    if value is None or value is pd.NA or isinstance(value, str):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


# ---------------------------------------------------------------- JSON and CSV


def to_json(comparison: Comparison) -> dict[str, Any]:
    """The documented ``rooftui.compare/1`` document."""
    kernels = comparison.kernels
    counts = kernels["method"].value_counts()
    doc = {
        "schema": SCHEMA,
        "a": _run_json(comparison.run_a, comparison.label_a),
        "b": _run_json(comparison.run_b, comparison.label_b),
        "time_ratio": ratio(comparison.total_time("b"), comparison.total_time("a")),
        "matching": {
            **{m: int(counts.get(m, 0)) for m in METHODS},
            **{f"by_{h}": int((kernels["how"] == h).sum()) for h in HOWS},
            "aligned_launches": len(comparison.launches),
            "only_a": len(comparison.only_a),
            "only_b": len(comparison.only_b),
        },
        "matched": [_pair_json(row) for row in comparison.matched.to_dict("records")],
        "only_a": [_side_json(row, "_a") for row in comparison.only_a.to_dict("records")],
        "only_b": [_side_json(row, "_b") for row in comparison.only_b.to_dict("records")],
        "launches": _launches_json(comparison.launches),
        "operations": _table_json(
            comparison.operations, ("phase", "operation"), ("kernels", "count", "time_s", "flops", "pipeline")
        ),
        "phases": _table_json(comparison.phases, ("phase",), ("kernels", "time_s", "time_share", "flops")),
        "pipelines": _table_json(
            comparison.pipelines, ("pipeline",), ("kernels", "time_s", "time_share", "flops")
        ),
        "table3": _table_json(
            comparison.zero_ai,
            ("phase",),
            ("kernels", "zero_ai", "zero_ai_share", "time_s", "zero_ai_time_s", "zero_ai_time_share"),
        ),
        "notes": comparison.notes,
        "notes_detail": [note_dict(note) for note in comparison.notes],  # {"kind", "text", "fix"}
    }
    return json_safe(doc)


def dumps_json(comparison: Comparison) -> str:
    from rooftui.views.json_text import dumps_indented  # json.dumps(indent=1)'s text, faster

    return dumps_indented(to_json(comparison))


def _run_json(run: Run, label: str) -> dict[str, Any]:
    return {
        "label": label,
        "reports": [report.path for report in run.reports],
        "devices": [{"name": name, "cc": c.device.cc} for name, c in run.ceilings_by_device.items()],
        "ceilings": {name: [c.to_dict() for c in s.ceilings] for name, s in run.ceilings_by_device.items()},
        "launches": int(zero_ai.launch_counts(run.kernels).sum()),
        "kernels": int(run.kernels.groupby(["device", "name"]).ngroups),
        "time_s": float(run.kernels["time_s"].sum()),
    }


def _side_json(row: dict, suffix: str) -> dict[str, Any]:
    value = {c: row.get(f"{c}{suffix}") for c in SIDE_COLUMNS if not c.startswith("ai_")}
    value["ai"] = {level: row.get(f"ai_{level}{suffix}") for level in LEVELS}
    value["operation"] = row.get(f"operation{suffix}")
    value["count"] = _int(value["count"])
    return value


def _pair_json(row: dict) -> dict[str, Any]:
    a, b = _side_json(row, "_a"), _side_json(row, "_b")
    return {
        "method": row["method"],
        "how": row["how"],
        "aligned_launches": _int(row["aligned"]),
        "key": row["key"],
        "rank": _int(row["rank"]),
        "candidates": {"a": _int(row["candidates_a"]), "b": _int(row["candidates_b"])},
        "a": a,
        "b": b,
        "change": {
            "time_ratio": row["time_ratio"],
            "time_s": _difference(b["time_s"], a["time_s"]),
            "flop_rate_ratio": ratio(b["flop_rate"], a["flop_rate"]),
            "ai_ratio": {level: ratio(b["ai"][level], a["ai"][level]) for level in LEVELS},
            "pipeline": None if a["pipeline"] == b["pipeline"] else {"a": a["pipeline"], "b": b["pipeline"]},
        },
    }


def _launches_json(launches: pd.DataFrame) -> list[dict[str, Any]]:
    """One entry per aligned launch pair: ncu IDs, names and signal."""
    return [
        {
            "phase": row["phase"],
            "signal": row["signal"],
            "a": {"id": row["id_a"], "name": row["name_a"]},
            "b": {"id": row["id_b"], "name": row["name_b"]},
        }
        for row in launches.to_dict("records")
    ]


def _table_json(frame: pd.DataFrame, keys: tuple[str, ...], values: tuple[str, ...]) -> list[dict]:
    rows = []
    for row in frame.to_dict("records"):
        entry = {k: row[k] for k in keys}
        for side in ("a", "b"):
            present = finite(row.get(f"time_s_{side}")) is not None or finite(row.get(f"kernels_{side}"))
            entry[side] = (
                {v: _int(row.get(f"{v}_{side}")) if v in _COUNTS else row.get(f"{v}_{side}") for v in values}
                if present
                else None
            )
        entry["time_ratio"] = row.get("time_ratio")
        rows.append(entry)
    return rows


_COUNTS = ("kernels", "count", "zero_ai")


def _int(value: Any) -> int | None:
    value = finite(value)
    return None if value is None else int(value)


def ratio(b: Any, a: Any) -> float | None:
    """B / A; None where either is missing or A is 0."""
    a, b = finite(a), finite(b)
    return b / a if a and b is not None else None


def _difference(b: Any, a: Any) -> float | None:
    a, b = finite(a), finite(b)
    return b - a if a is not None and b is not None else None


def to_csv(comparison: Comparison) -> str:
    """One row per matched pair or one-sided kernel, every column of ``Comparison.kernels``."""
    return comparison.kernels.to_csv(index=False)


# ---------------------------------------------------------------- text


def render(comparison: Comparison, console: Console, top: int = 15, level: str = "hbm") -> None:
    """Everything a person reads first, heaviest first, sized for 80 columns."""
    _render_header(comparison, console)
    _render_operations(comparison, console, top)
    _render_matched(comparison, console, top, level)
    _render_one_side(comparison, console, top)
    _render_totals(comparison, console)
    _render_table3(comparison, console)
    _render_ceilings(comparison, console)


def _describe(run: Run, label: str) -> str:
    kernels = run.kernels
    launches = int(zero_ai.launch_counts(kernels).sum())
    return (
        f"{label}: {', '.join(run.devices)}, {kernels.groupby(['device', 'name']).ngroups} kernels, "
        f"{launches} launches, {seconds(float(kernels['time_s'].sum()))}"
    )


def _render_header(comparison: Comparison, console: Console) -> None:
    console.print(plain("A " + _describe(comparison.run_a, comparison.label_a)))
    console.print(plain("B " + _describe(comparison.run_b, comparison.label_b)))
    total_a, total_b = comparison.total_time("a"), comparison.total_time("b")
    kernels = comparison.kernels
    counts = kernels["method"].value_counts()
    console.print(
        Text.assemble(
            ("GPU time ", "bold"),
            f"{seconds(total_a)} → {seconds(total_b)} ",
            (f"({change(total_b / total_a if total_a else None)})", "bold"),
            f"; matched {len(comparison.matched)} kernels "
            f"({int(counts.get('exact', 0))} same name, {int(counts.get('parameters', 0))} by parameters, "
            f"{int(counts.get('operation', 0))} by operation, "
            f"{int(counts.get('similar', 0))} by similar name; "
            f"{int((kernels['how'] == 'name').sum())} of them by name alone), "
            f"{len(comparison.only_a)} only in A, {len(comparison.only_b)} only in B; "
            f"{len(comparison.launches)} launch pairs aligned",
        )
    )


def _table(title: str) -> Table:
    return Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=None,
        header_style="bold",
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
        padding=(0, 1, 0, 0),
    )


def _name_width(console: Console, widths: tuple[int, ...]) -> int:
    """What is left of the console for a name column beside columns of ``widths``."""
    return max(14, console.width - sum(widths) - len(widths))


def _render_operations(comparison: Comparison, console: Console, top: int) -> None:
    table = _table("By operation (all kernels of each phase and operation)")
    columns = (("phase", 9), ("n", 6), ("time A", 6), ("time B", 6), ("Δt", 5), ("pipeline", 15))
    table.add_column("phase", no_wrap=True, width=9, overflow="ellipsis")
    table.add_column(
        "operation",
        no_wrap=True,
        overflow="ellipsis",
        width=_name_width(console, tuple(w for _, w in columns)),
    )
    for title, width in columns[1:]:
        table.add_column(
            title,
            justify="left" if title == "pipeline" else "right",
            width=width,
            no_wrap=True,
            overflow="ellipsis",
        )
    for row in comparison.operations.head(top).to_dict("records"):
        table.add_row(
            plain(row["phase"] or "(none)"),
            plain(row["operation"]),
            both(count_text(row["count_a"]), count_text(row["count_b"])),
            time_text(row["time_s_a"]),
            time_text(row["time_s_b"]),
            change(row["time_ratio"]),
            both(pipeline_text(row["pipeline_a"]), pipeline_text(row["pipeline_b"])),
        )
    console.print(table)
    _more(console, len(comparison.operations), top)


def count_text(value: Any) -> str:
    value = finite(value)
    return "" if value is None else str(int(value))


_MATCHED_COLUMNS = (
    ("how", 6, "<"),
    ("n", 5, ">"),
    ("time A", 7, ">"),
    ("time B", 7, ">"),
    ("Δt", 5, ">"),
    ("FLOP/s", 11, ">"),
    ("AI", 11, ">"),
    ("pipeline", 15, "<"),
)


def _render_matched(comparison: Comparison, console: Console, top: int, level: str) -> None:
    """Fixed-width lines, so a pair's names can run the whole width under its numbers."""
    matched = comparison.matched
    console.print()
    console.print(
        Text(f"Matched kernels ({len(matched)}), heaviest first; AI at {LEVEL_LABELS[level]}", style="bold")
    )
    console.print(Text(_line([title for title, _, _ in _MATCHED_COLUMNS]), style="bold"))
    name_width = max(20, console.width)
    rows = matched.head(top).to_dict("records")
    shown = short_names({row[f"name_{side}"] for row in rows for side in "ab"}, name_width - 2)
    for row in rows:
        console.print(
            Text(
                _line(
                    [
                        METHOD_WORDS[row["method"]] + ("*" if row["how"] == "name" else ""),
                        both(count_text(row["count_a"]), count_text(row["count_b"])),
                        time_text(row["time_s_a"]),
                        time_text(row["time_s_b"]),
                        change(row["time_ratio"]),
                        both(rate_text(row["flop_rate_a"]), rate_text(row["flop_rate_b"])),
                        both(intensity(row[f"ai_{level}_a"]), intensity(row[f"ai_{level}_b"])),
                        both(pipeline_text(row["pipeline_a"]), pipeline_text(row["pipeline_b"])),
                    ]
                )
            )
        )
        if row["name_a"] == row["name_b"]:
            names = ["  " + shown[row["name_a"]]]
        else:
            names = ["A " + shown[row["name_a"]], "B " + shown[row["name_b"]]]
        for name in names:
            console.print(Text(name, style="dim"), no_wrap=True, crop=True)
    _more(console, len(matched), top)
    console.print(
        Text(
            "how: launches aligned per phase in launch order, kernels paired by their aligned "
            "launches; same = same name; params = same name but template, precision or tile "
            "parameters; op = same operation; ~name = similar name; * = not aligned, matched "
            "by name alone (fuzzy ones in the same phase, by time rank)",
            style="dim",
        )
    )


def _line(cells: list[str]) -> str:
    parts = []
    for text, (_, width, align) in zip(cells, _MATCHED_COLUMNS):
        text = shorten(text, width)
        parts.append(f"{text:{align}{width}}")
    return " ".join(parts).rstrip()


def _render_one_side(comparison: Comparison, console: Console, top: int) -> None:
    for side, frame in (("a", comparison.only_a), ("b", comparison.only_b)):
        label = comparison.label_a if side == "a" else comparison.label_b
        console.print()
        table = _table(
            f"Only in {side.upper()} ({markup_escaped(label)}): {len(frame)} kernels, "
            f"{seconds(float(frame[f'time_s_{side}'].sum()))}"
        )
        columns = (("n", 4), ("time", 6), ("FLOP/s", 6), ("pipeline", 8), ("phase", 9))
        name_width = _name_width(console, tuple(w for _, w in columns))
        table.add_column("kernel", no_wrap=True, overflow="ellipsis", width=name_width)
        rows = frame.head(top).to_dict("records")
        shown = short_names([row[f"name_{side}"] for row in rows], name_width)
        for title, width in columns:
            justify: Literal["left", "right"] = "left" if title in ("pipeline", "phase") else "right"
            table.add_column(title, width=width, justify=justify, no_wrap=True, overflow="ellipsis")
        for row in rows:
            table.add_row(
                Text(shown[row[f"name_{side}"]]),
                count_text(row[f"count_{side}"]),
                time_text(row[f"time_s_{side}"]),
                rate_text(row[f"flop_rate_{side}"]),
                pipeline_text(row[f"pipeline_{side}"]),
                plain(row[f"phase_{side}"]),
            )
        console.print(table)
        _more(console, len(frame), top)


def _render_totals(comparison: Comparison, console: Console) -> None:
    for table in (phase_totals(comparison), pipeline_totals(comparison)):
        console.print()
        console.print(table)


def phase_totals(comparison: Comparison) -> Table:
    """Launches, time and FLOPs per phase in A and B."""
    return _totals("Per phase", comparison.phases, "phase")


def pipeline_totals(comparison: Comparison) -> Table:
    """Launches, time and FLOPs per dominant pipeline in A and B."""
    return _totals("Per pipeline (the one with most FLOPs in each launch)", comparison.pipelines, "pipeline")


def _totals(title: str, frame: pd.DataFrame, key: str) -> Table:
    table = _table(title)
    table.add_column(key, no_wrap=True, width=11)
    for column in ("launches", "time A", "time B", "Δt", "share A", "share B", "FLOP A", "FLOP B"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in frame.to_dict("records"):
        name = pipeline_text(row[key]) if key == "pipeline" else (row[key] or "(none)")
        table.add_row(
            plain(name),
            both(count_text(row["kernels_a"]), count_text(row["kernels_b"])),
            time_text(row["time_s_a"]),
            time_text(row["time_s_b"]),
            change(row["time_ratio"]),
            percent(finite(row["time_share_a"])),
            percent(finite(row["time_share_b"])),
            si(finite(row["flops_a"]), "").replace(" ", ""),
            si(finite(row["flops_b"]), "").replace(" ", ""),
        )
    return table


def _render_table3(comparison: Comparison, console: Console) -> None:
    console.print()
    console.print(zero_ai_totals(comparison))


def zero_ai_totals(comparison: Comparison) -> Table:
    """Table III side by side: zero-AI launches, their share of launches and of time."""
    table = _table("Zero-AI launches (Table III)")
    table.add_column("phase", no_wrap=True, width=9)
    for column in ("launches", "zero-AI A", "%", "time %", "zero-AI B", "%", "time %"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in comparison.zero_ai.to_dict("records"):
        launches = both(count_text(row["kernels_a"]), count_text(row["kernels_b"]))
        table.add_row(
            plain(row["phase"] or "(none)"),
            launches,
            count_text(row["zero_ai_a"]),
            percent(finite(row["zero_ai_share_a"])),
            percent(finite(row["zero_ai_time_share_a"])),
            count_text(row["zero_ai_b"]),
            percent(finite(row["zero_ai_share_b"])),
            percent(finite(row["zero_ai_time_share_b"])),
        )
    return table


def _render_ceilings(comparison: Comparison, console: Console) -> None:
    console.print()
    lines: dict[str, list[str]] = {}
    for side, run in (("A", comparison.run_a), ("B", comparison.run_b)):
        for device, ceilings in run.ceilings_by_device.items():
            parts = [f"{c.name.split(' (')[0]} {si(c.value, c.unit)}" for c in ceilings.ceilings]
            lines.setdefault(f"{device}: " + ", ".join(parts), []).append(side)
    for line, sides in lines.items():
        console.print(plain(f"Ceilings {' and '.join(sides)}, {line}", style="dim"))
    for note in comparison.notes:
        if note.startswith("different GPUs"):
            console.print(plain(note, style="italic"))


def _more(console: Console, total: int, shown: int) -> None:
    if total > shown:
        console.print(
            Text(f"{shown} of {total}, by time; --top N for more, --format csv for all", style="dim")
        )
