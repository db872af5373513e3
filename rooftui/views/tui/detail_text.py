"""The detail pane's content: everything known about the selected kernel, with units —
no Textual (``widgets/detail.py`` shows it; the explorer model asks for it)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from rooftui.analysis.capped_bounds import BASES, COMPLETE
from rooftui.analysis.deduplicated import counters_line
from rooftui.model import shared_memory as smem
from rooftui.model.byte_sources import l2_counts
from rooftui.model.ceilings import CeilingSet
from rooftui.model.columns import FLOP_COLUMNS, LEVEL_LABELS, LEVELS, PARTIAL_MARK, PIPELINE_LABELS
from rooftui.model.metrics import BYTES
from rooftui.views.formats import intensity_with_magnitude, percent, seconds, si
from rooftui.views.text import printable
from rooftui.views.tui.format import MISSING, ascii_safe, literal


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _text_or_dash(value: object) -> str:
    return value if isinstance(value, str) and value else "–"


def raw_value(value: object) -> str:
    """A value as read, exactly, for people: 693633024.0 -> "693,633,024", the string
    '9.0' -> 9.0, 3.77e-04 stays 0.000377 (Python's shortest exact form)."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "–"
        if value.is_integer() and abs(value) < 1e18:
            return f"{int(value):,}"
        return repr(float(value))
    return printable(value)


def _pairs_table(title: str, rows: list[tuple[str, str]], ascii_mode: bool) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        show_header=False,
        expand=True,
        box=None if ascii_mode else box.SIMPLE,
        padding=(0, 1),
    )
    table.add_column("what", style="dim", no_wrap=True)
    table.add_column("value", overflow="fold")
    for what, value in rows:
        table.add_row(what, literal(value, ascii_mode))  # values may be names from files
    return table


def _name_lines(title: str, rows: list[tuple[str, str]], width: int, ascii_mode: bool) -> Text:
    """Long names (ncu metrics, kernel-table columns) with their values: side by side
    when both fit, else the value on the next line; a name longer than the pane is
    broken after a dot or an underscore, never inside a word."""
    text = Text(title + "\n", style="italic")
    indent = "    "
    for name, value in rows:
        name, value = printable(name), printable(value)
        if ascii_mode:
            name, value = ascii_safe(name), ascii_safe(value)
        if len(name) + 2 + len(value) <= width - 2:
            text.append("  " + name, style="dim")
            text.append(value.rjust(width - 2 - len(name)) + "\n")
            continue
        for line in _break_name(name, width - 2):
            text.append("  " + line + "\n", style="dim")
        text.append(indent + value + "\n")
    return text


def _break_name(name: str, width: int) -> list[str]:
    lines = []
    while len(name) > width:
        cut = max(name.rfind(".", 0, width), name.rfind("_", 0, width))
        cut = cut + 1 if cut > 0 else width  # one unbroken word longer than a line
        lines.append(name[:cut])
        name = name[cut:]
    return [*lines, name]


def _is_partial(row: pd.Series) -> bool:
    """The row's FLOP total is partial (``flops_partial``: a Python or numpy bool)."""
    partial = row.get("flops_partial")
    return isinstance(partial, (bool, np.bool_)) and bool(partial)


def levels_table(row: pd.Series, ceilings: CeilingSet, ascii_mode: bool) -> Table:
    """Per memory level: AI, the roof that binds there, how close the kernel is, headroom."""
    table = Table(
        title="roofs per level: AI in FLOP/B, BW in B/s, roof (attainable) in FLOP/s,"
        " headroom = roof / achieved",
        title_justify="left",
        box=None if ascii_mode else box.SIMPLE_HEAD,
        show_edge=False,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
    )
    headers = ("level", "AI", "BW", "roof", "binds", "%roof", "headroom")
    for header in headers:
        table.add_column(header, justify="left" if header in ("level", "binds") else "right", no_wrap=True)
    compact = lambda value: si(value, missing=MISSING).replace(" ", "")  # noqa: E731  the units are in the title
    rate = _number(row.get("flop_rate"))
    times = "x" if ascii_mode else "×"
    # On a partial FLOP total each AI is a lower bound (the true one is higher): marked.
    lower = PARTIAL_MARK if _is_partial(row) else ""
    if lower:
        table.title = f"{table.title}; {lower} after AI: a lower bound (FLOP total partial)"
    for level in LEVELS:
        bandwidth = ceilings.bandwidth(level)
        roof = _number(row.get(f"roof_{level}"))
        headroom = roof / rate if rate > 0 and roof == roof else math.nan
        cells = (
            LEVEL_LABELS[level],
            intensity_with_magnitude(_number(row.get(f"ai_{level}")), missing=MISSING)
            + (lower if row.get(f"ai_{level}") == row.get(f"ai_{level}") else ""),
            compact(bandwidth.value) if bandwidth else "–",
            compact(roof),
            _text_or_dash(row.get(f"bound_{level}")),
            percent(_number(row.get(f"roof_fraction_{level}")), missing=MISSING),
            "–" if headroom != headroom else f"{headroom:.3g}{times}",
        )
        table.add_row(*(ascii_safe(c) for c in cells) if ascii_mode else cells)
    return table


def describe(
    row: pd.Series,
    ceilings: CeilingSet,
    metrics: pd.Series | None = None,
    ascii_mode: bool = False,
    width: int = 80,
) -> RenderableType:
    """The detail pane's content for one kernel row (an invocation or a group);
    ``metrics`` are the ncu metrics of its launch (of the heaviest, for a group)."""
    grouped = "count" in row.index and "time_mean_s" in row.index
    identity = [("kernel", str(row["name"]))]
    signature = row.get("demangled")
    if isinstance(signature, str) and signature and signature != row["name"]:
        identity.append(("signature", signature))
    if grouped:
        identity.append(("invocations", f"{int(row['count']):,}"))
    else:
        identity += [("report", str(row.get("report", ""))), ("ncu ID", str(row.get("ncu_id", "")))]
        identity += [("counters", line)] if (line := counters_line(row)) else []  # profile --dedup
    identity += [
        ("device", f"{row.get('device', '')} (cc {row.get('cc', '')})"),
        ("launch", f"grid {row.get('grid', '–')} block {row.get('block', '–')}"),
        (
            "phase",
            f"{row.get('phase', '–')}" + (" (inferred)" if row.get("phase_inferred") else ""),
        ),
        ("NVTX", str(row.get("nvtx") or "–")),
    ]
    time_s = _number(row["time_s"])
    source = str(row.get("time_source") or "")  # "derived: ..." when the report had no duration
    derived = f" ({source})" if source.startswith("derived") else ""
    work = [("time", seconds(time_s, missing=MISSING) + derived)]
    if "time_share" in row.index:
        work.append(("share of run time", percent(_number(row["time_share"]), missing=MISSING)))
    if grouped:
        work.append(("mean time", seconds(_number(row["time_mean_s"]), missing=MISSING)))
    work.append(("FLOP/s achieved", si(_number(row["flop_rate"]), "FLOP/s", missing=MISSING)))
    partial = " (partial: some not collected, see notes)" if _is_partial(row) else ""
    work.append(("FLOPs (all)", si(_number(row["flops"]), "FLOP", missing=MISSING) + partial))
    for column in FLOP_COLUMNS:
        value = _number(row.get(column))
        if value > 0:
            pipeline = column.removeprefix("flops_")
            work.append((f"  {PIPELINE_LABELS.get(pipeline, pipeline)}", si(value, "FLOP", missing=MISSING)))
    # HFMA2.MMA register moves (metrics.REGISTER_MOVES): ncu counted each as an hfma;
    # rooftui counted them from the SASS and took them out of the FP16 FLOPs above.
    moves = _number(row.get("register_moves"))
    if moves == moves:
        work.append(
            ("  HFMA2.MMA moves", f"{moves:,.0f} thread instructions (from the SASS), not in the FP16 FLOPs")
        )
    elif _number(row.get("flops_fp16")) > 0:
        work.append(("  HFMA2.MMA moves", "unknown (no per-opcode SASS counts): counted in FP16"))
    int8 = _number(row.get("ops_tensor_int8"))
    if int8 > 0:
        work.append(("  Tensor INT8", si(int8, "OP", missing=MISSING)))
    for level in LEVELS:
        counted = row.get(f"bytes_{level}_source")  # what they count, where not the usual metric
        usual = BYTES[level].split(".")[0] if level in BYTES else smem.WHAT
        other = isinstance(counted, str) and counted and not counted.startswith(usual)
        moved = si(_number(row.get(f"bytes_{level}")), "B", missing=MISSING)
        work.append((f"bytes {LEVEL_LABELS[level]}", moved + (f" ({counted})" if other else "")))
    work += shared_memory_lines(row)
    if l2 := l2_counts(row.get("bytes_l2_source"), str(row.get("cc", ""))):
        work.append(("  L2 counts", l2))
    pipeline = str(row.get("pipeline", "none"))
    work.append(("pipeline", PIPELINE_LABELS.get(pipeline, pipeline)))
    zero = row.get("zero_ai")
    work.append(
        (
            "zero AI",
            "unknown"
            if zero is None or pd.isna(zero)
            else "yes — no floating-point operation"
            if zero
            else "no",
        )
    )
    binding = row.get("bound")
    if isinstance(binding, str) and binding:
        reached = percent(_number(row.get("roof_fraction")), missing=MISSING)
        work.append(("binding roof", f"{binding} at {reached}"))
        basis = row.get("bound_basis")  # what it rests on (analysis.capped_bounds.BASES)
        if isinstance(basis, str) and basis in BASES and basis != COMPLETE:
            work.append(("bound basis", BASES[basis]))
    else:  # blank, never a guess: say what is missing (analysis.roofline.bound_reasons)
        reason = row.get("bound_reason")
        work.append(("binding roof", f"none: {reason}" if isinstance(reason, str) and reason else MISSING))

    # The verdict, the binding roofs and headroom first: they are what the pane is opened for.
    parts: list[RenderableType] = [
        *verdict_line(row, ascii_mode),
        _pairs_table("kernel", identity, ascii_mode),
        levels_table(row, ceilings, ascii_mode),
    ]
    if row.get("fp16_approximate"):
        from rooftui.model.metrics import FP16_NOTE

        parts.append(Text(f"FP16 note: {FP16_NOTE}", style="italic yellow"))
    parts.append(_pairs_table("work (base units scaled for display)", work, ascii_mode))
    instruction = instruction_pairs(row)
    if len(instruction) > 1:  # collected (else the instruction roofline's own note says how)
        parts.append(_pairs_table("instruction roofline (Ding & Williams, PMBS'19)", instruction, ascii_mode))
    if metrics is not None:
        launch = "its heaviest launch" if grouped else "this launch"
        measured = [(str(name), raw_value(value)) for name, value in metrics.items()]
        title = f"ncu metrics of {launch}, as read (ncu's units)"
        parts.append(_name_lines(title, measured, width, ascii_mode))
    raw = [(str(key), raw_value(value)) for key, value in row.items()]
    title = "kernel-table row (base units: FLOP, byte, second)"
    parts.append(_name_lines(title, raw, width, ascii_mode))
    return Group(*parts)


def instruction_pairs(row: pd.Series) -> list[tuple[str, str]]:
    """The instruction roofline's numbers of one row: intensity per level, warp efficiency,
    transactions per request and the binding roof; one line saying how to collect them
    where the report has none (never 0)."""
    from rooftui.analysis.instruction_roofline import bound_label, wall_verdicts
    from rooftui.model.instructions import WARP_INSTRUCTIONS

    warp = _number(row.get("warp_instructions"))
    if warp != warp:
        return [("not collected", f"no {WARP_INSTRUCTIONS}: rooftui profile --instructions collects it")]
    pairs = [
        ("warp instructions", f"{warp:,.0f}"),
        ("warp rate", si(_number(row.get("warp_instruction_rate")), "IPS", missing=MISSING)),
        ("warp efficiency", percent(_number(row.get("warp_efficiency")), missing=MISSING)),
        ("  predicated on", percent(_number(row.get("warp_efficiency_pred_on")), missing=MISSING)),
    ]
    for level in LEVELS:
        moved = _number(row.get(f"transactions_{level}"))
        if moved != moved:
            text = "not collected"
        elif moved == 0:
            text = "no transaction"
        else:
            ratio = _number(row.get(f"instruction_intensity_{level}"))
            text = f"{ratio:.3g} inst/transaction ({moved:,.0f} transactions)"
        pairs.append((f"intensity {LEVEL_LABELS[level]}", text))
    for line in wall_verdicts(row.to_dict()):
        where, said = line.split(": ", 1)
        pairs.append((f"{where} wall", said))
    bound = str(row.get("instruction_bound") or "")
    if bound:
        reached = percent(_number(row.get("instruction_roof_fraction")), missing=MISSING)
        pairs.append(("binding roof", f"{bound_label(bound)} at {reached}"))
    else:
        pairs.append(("binding roof", f"{MISSING} (no level has transactions and a roof)"))
    return pairs


def verdict_line(row: pd.Series, ascii_mode: bool = False) -> list[Text]:
    """What binds the kernel and what it would gain, in words (``rooftui advise``), if known."""
    said = row.get("verdict")
    if not isinstance(said, str) or not said:
        return []
    gain = _number(row.get("gain_s"))
    if gain == gain:
        share = percent(_number(row.get("gain_share")), missing=MISSING)
        said += f"; {seconds(gain, missing=MISSING)} to gain ({share} of the run)"
    line = literal(said, ascii_mode)
    line.stylize("bold")
    return [line]


def shared_memory_lines(row: pd.Series) -> list[tuple[str, str]]:
    """What the L1 and SMEM bytes above count and miss (model.shared_memory), and why a
    kernel's L1 point is on the right edge when its traffic went around L1."""
    lines = [("  L1 counts", "L1TEX tag requests (l1tex__t_bytes, the paper's L1): no TMA, no shared memory")]
    if bool(row.get("l1_bypassed", False)):
        lines.append(("  L1 bypassed", smem.L1_BYPASS_NOTE.removeprefix("L1 bypassed: ")))
    if _number(row.get("bytes_smem")) == _number(row.get("bytes_smem")):
        tma = _number(row.get("bytes_tma"))
        into = f"; {si(tma, 'B', missing=MISSING)} of it written by TMA" if tma > 0 else ""
        lines.append(("  SMEM counts", smem.WHAT.removeprefix("shared-memory bytes: ") + into))
        lines.append(("  SMEM misses", smem.NOT_SEEN.removeprefix("not seen: ")))
    else:
        lines.append(("  SMEM", "not collected (Hopper's counters: rooftui profile collects them there)"))
    return lines
