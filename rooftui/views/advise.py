"""``rooftui advise`` as text, for any width (80 columns and up read well): the step budget
as a waterfall, the findings ranked by gain, and a roll-up. Textual-free, so the explorer's
advise screen shows the very same lines; CSV and JSON for scripts (``docs/advise.md``)."""

from __future__ import annotations

import io
import textwrap

import numpy as np
import pandas as pd

from rooftui.analysis import Run
from rooftui.analysis.advise import group_limits, launch_floor_of, with_advice
from rooftui.analysis.advise_budget import ADJUST, REMOVED, TOTAL, Bar, StepBudget
from rooftui.analysis.advise_findings import Finding, verdict
from rooftui.analysis.advise_run import Advice
from rooftui.model.frames import heaviest_rows
from rooftui.views.formats import intensity, percent, seconds, si
from rooftui.views.text import printable, short_names, shorten

LABEL = 30  # characters of a bar's label
VALUE = 10  # characters of its value
CSV_COLUMNS = (
    "id",
    "name",
    "operation_class",
    "phase",
    "nvtx",
    "time_s",
    "achievable_s",
    "gain_s",
    "sol_fraction",
    "limit",
    "limit_source",
    "advise_reason",
    "verdict",
)


def _wrapped(text: str, width: int, indent: str) -> list[str]:
    return textwrap.wrap(
        printable(text),
        width=max(width, 20),
        initial_indent=indent,
        subsequent_indent=indent,
        break_on_hyphens=False,
    ) or [indent]


def waterfall_lines(
    budget: StepBudget, width: int, ascii_only: bool = False, explain: bool = True
) -> list[str]:
    """The budget, one line per bar (a waterfall drawn to scale), each followed by what it
    is built from when ``explain``."""
    full, removed_mark, kept_mark = ("#", "-", "=") if ascii_only else ("█", "░", "▓")
    room = max(width - LABEL - VALUE - 5, 8)
    scale = room / budget.step_s if budget.step_s > 0 else 0.0
    lines = []
    running, kept = budget.step_s, 0.0
    for bar in budget.bars:
        label = shorten(bar.label, LABEL, "~" if ascii_only else "…").ljust(LABEL)
        if bar.seconds is None:
            lines.append(f"  {label} {'n/c':>{VALUE}}")
        else:
            sign = "-" if bar.kind in (REMOVED, ADJUST) and bar.seconds else ""
            value = f"{sign}{seconds(bar.seconds)}"
            if bar.kind == TOTAL:
                drawn = full * round(bar.seconds * scale)
            elif bar.kind in (REMOVED, ADJUST):
                running -= bar.seconds
                start = round(running * scale)
                drawn = " " * max(start, 0) + removed_mark * max(round(bar.seconds * scale), 0)
            else:
                drawn = " " * round(kept * scale) + kept_mark * round(bar.seconds * scale)
                kept += bar.seconds
            if bar.seconds and not drawn.strip():
                drawn = drawn + (removed_mark if bar.kind in (REMOVED, ADJUST) else kept_mark)
            lines.append(f"  {label} {value:>{VALUE}}  {drawn[:room]}".rstrip())
        if explain:
            lines += _wrapped(bar.built_from, width - 6, "      ")
    return lines


def finding_lines(findings: list[Finding], step_s: float, width: int, top: int = 10) -> list[str]:
    """The findings, largest gain first: rank, gain per step, share of the step, what; then
    the evidence and the fix, indented."""
    lines = []
    for rank, finding in enumerate(findings[:top], 1):
        share = percent(finding.gain_s / step_s) if step_s > 0 else ""
        head = f"{rank:>2}. {seconds(finding.gain_s):>9} {share:>6}  "
        lines.append(head + shorten(printable(finding.subject or finding.title), max(width - len(head), 10)))
        if finding.subject:
            lines += _wrapped(finding.title, width - 6, "      ")
        lines += _wrapped(finding.evidence, width - 6, "      ")
        lines += _wrapped(f"fix: {finding.fix}", width - 6, "      ")
    return lines


def roll_up_lines(table: pd.DataFrame, step_s: float, width: int, what: str, top: int = 12) -> list[str]:
    """A roll-up (``Advice.roll_up``) as columns: group, launches, time, achievable time, gain
    and its share of the step, and the group's roofline point (HBM AI, FLOP/s); under 96
    columns, achievable time and AI make room for the names."""
    wide = width >= 96
    header = [
        ("launch", 6),
        ("time", 9),
        *([("achiev.", 9)] if wide else []),
        ("gain", 9),
        ("%step", 6),
        *([("AI HBM", 6)] if wide else []),
        ("FLOP/s", 12),
    ]
    numbers = " ".join(f"{title:>{size}}" for title, size in header)
    name_width = max(width - len(numbers) - 3, 12)
    shown = table.head(top)
    keys = [str(key) for key in shown.index]
    depths = [int(d) for d in shown["depth"]] if "depth" in shown else [0] * len(shown)
    leaves = [key.rsplit(" > ", 1)[-1] if depth else key for key, depth in zip(keys, depths)]
    names = short_names(leaves, name_width - 2 * max(depths, default=0))
    lines = [f"  {what[:name_width]:<{name_width}} {numbers}"]
    for (_, row), leaf, depth in zip(shown.iterrows(), leaves, depths):
        cells = [f"{int(row['launches']):>6}", f"{seconds(row['time_s']):>9}"]
        if wide:
            cells.append(f"{seconds(row['achievable_s']):>9}")
        cells += [
            f"{seconds(row['gain_s']):>9}",
            f"{percent(row['gain_s'] / step_s) if step_s > 0 else '':>6}",
        ]
        if wide:
            cells.append(f"{intensity(row['ai_hbm']):>6}")
        cells.append(f"{si(row['flop_rate'], 'FLOP/s'):>12}")
        name = "  " * depth + names[leaf]
        lines.append(f"  {name:<{name_width}} {' '.join(cells)}")
    if len(table) > top:
        lines.append(f"  ({len(table) - top} more; --format json for all)")
    return lines


ROLL_UP_TITLES = {
    "operation_class": "operation class",
    "kernel": "kernel",
    "phase": "phase",
    "nvtx": "NVTX range",
}


def advice_text(
    advice: Advice, width: int = 80, top: int = 10, by: str = "operation_class", ascii_only: bool = False
) -> str:
    """The whole of ``rooftui advise``'s table output."""
    lines: list[str] = []
    for device, budget in advice.budgets.items():
        floor = advice.floors[device]
        lines.append(f"Step budget, {printable(device)}: a bound on the step, not a forecast")
        lines += waterfall_lines(budget, width, ascii_only)
        share = percent(budget.speed_of_light_s / budget.step_s) if budget.step_s else ""
        lines += _wrapped(
            f"speed of light {seconds(budget.speed_of_light_s)} of {seconds(budget.step_s)} "
            f"({share}), never below {seconds(budget.floor_sum_s)}, the launches' floors",
            width - 2,
            "  ",
        )
        if not floor.measured:
            lines += _wrapped(f"launch floor: {floor.source}", width - 2, "  ")
        lines.append("")
    lines.append(
        f"Top {min(top, len(advice.findings))} findings, µs per step at best "
        "(they overlap: do not add them up)"
    )
    lines += finding_lines(advice.findings, advice.step_s, width, top)
    lines.append("")
    lines.append(f"By {ROLL_UP_TITLES.get(by, by)}")
    lines += roll_up_lines(advice.roll_up(by), advice.step_s, width, ROLL_UP_TITLES.get(by, by))
    return "\n".join(lines) + "\n"


def advice_csv(advice: Advice) -> str:
    """One row per launch: its achievable time, gain, binding term, source and verdict."""
    table = advice.launches.assign(verdict=advice.kernel_verdicts())
    out = io.StringIO()
    table.sort_values("id")[[c for c in CSV_COLUMNS if c in table]].to_csv(out, index=False)
    return out.getvalue()


# --- the explorer's advise screen (key `a`): its text, for a size, without Textual ------


def compact_waterfall_lines(
    budget: StepBudget, width: int, max_lines: int, ascii_only: bool = False
) -> list[str]:
    """The waterfall in at most ``max_lines`` lines, no explanations: the largest classes
    below the roofs are kept, the rest folded into one bar."""
    bars = list(budget.bars)
    below = [bar for bar in bars if bar.label.startswith("below the roofs: ")]
    others = [bar for bar in bars if bar not in below and not (bar.kind == "kept" and not bar.seconds)]
    room = max(max_lines - len(others), 1)
    if len(below) > room:
        kept, folded = below[: room - 1], below[room - 1 :]
        total = sum(bar.seconds or 0.0 for bar in folded)
        below = [*kept, Bar(f"below the roofs: {len(folded)} more", REMOVED, total, "")]
    first_kept = next(
        i for i, bar in enumerate(others) if bar.kind == "kept" or bar.label == "speed-of-light step"
    )
    ordered = [*others[:first_kept], *below, *others[first_kept:]]
    shown = StepBudget(ordered, budget.step_s, budget.speed_of_light_s, budget.floor_sum_s, budget.launches)
    return waterfall_lines(shown, width, ascii_only, explain=False)[:max_lines]


def finding_row(rank: int, finding: Finding, step_s: float, width: int) -> str:
    """One finding in one line: rank, gain per step, share of the step, what."""
    share = percent(finding.gain_s / step_s) if step_s > 0 else ""
    head = f"{rank:>2}. {seconds(finding.gain_s):>9} {share:>6}  "
    return head + shorten(printable(finding.subject or finding.title), max(width - len(head), 10))


def finding_detail_lines(finding: Finding, width: int) -> list[str]:
    """The selected finding's verdict (kernels), evidence and fix, wrapped to ``width``."""
    lines = _wrapped(finding.title, width, "") if finding.subject else []
    return lines + _wrapped(finding.evidence, width, "") + _wrapped(f"fix: {finding.fix}", width, "")


def finding_kernel(advice: Advice, finding: Finding) -> str | None:
    """The kernel name Enter jumps to: the finding's own, else its costliest launch's."""
    if finding.subject:
        return finding.subject
    if not finding.ids:
        return None
    match = advice.launches.loc[advice.launches["id"] == finding.ids[0], "name"]
    return str(match.iloc[0]) if len(match) else None


# --- the explorer's table and detail pane: each row's opportunity and verdict ------------

OPPORTUNITY_COLUMNS = ("gain_s", "gain_share", "sol_fraction", "limit", "verdict")


def with_opportunity(
    run: Run, invocations: pd.DataFrame, grouped: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``invocations`` (the run's kernel table, in its order) and ``grouped`` (by name)
    with each row's gain (s, and share of the run's time), how close it runs to its speed
    of light, what binds it and the verdict in words (``advise_findings.verdict``). A
    group's gain is its launches' summed, its limit the term that binds most of its
    achievable time (``advise.group_limits``: the launch floor where floors dominate)."""
    floors = {device: launch_floor_of(ceilings) for device, ceilings in run.ceilings_by_device.items()}
    launches = with_advice(run.kernels, run.ceilings_by_device, floors)
    total = float(launches["time_s"].sum())
    keys = [key for key in ("device", "rank", "name") if key in grouped and key in run.kernels]
    per_launch = pd.DataFrame(
        {
            "gain_s": launches["gain_s"].to_numpy(),
            "achievable_s": launches["achievable_s"].to_numpy(),
            "sol_fraction": launches["sol_fraction"].to_numpy(),
            "limit": launches["limit"].astype(str).to_numpy(),
            "limit_source": launches["limit_source"].astype(str).to_numpy(),
            "advise_reason": launches["advise_reason"].astype(str).to_numpy(),
            "id": launches["id"].to_numpy(),
            **{key: run.kernels[key].to_numpy() for key in keys},
            "time_s": launches["time_s"].to_numpy(),
        }
    )
    per_launch["verdict"] = _verdicts(per_launch)
    per_launch["gain_share"] = per_launch["gain_s"] / total if total > 0 else np.nan
    invocations = invocations.assign(**{c: per_launch[c].to_numpy() for c in OPPORTUNITY_COLUMNS})
    by_group = per_launch.groupby(keys, sort=False, dropna=False)
    sums = by_group[["gain_s", "achievable_s", "time_s"]].sum(min_count=1)
    known = by_group["gain_s"].count() == by_group.size()  # a group with an unknown launch: no gain
    heaviest = per_launch.loc[heaviest_rows(per_launch, keys)].set_index(keys)
    binding = group_limits(per_launch, keys).reindex(heaviest.index)
    summary = pd.DataFrame(
        {
            "gain_s": sums["gain_s"].where(known),
            "sol_fraction": (sums["achievable_s"] / sums["time_s"]).where(known),
            "limit": binding["limit"].where(known, ""),
            "advise_reason": heaviest["advise_reason"].where(~known, ""),
        }
    )
    summary["gain_share"] = summary["gain_s"] / total if total > 0 else np.nan
    summary["verdict"] = _verdicts(summary)
    grouped = grouped.merge(summary[list(OPPORTUNITY_COLUMNS)].reset_index(), on=keys, how="left")
    return invocations, grouped


def _verdicts(frame: pd.DataFrame) -> list[str]:
    # Verdicts differ only by limit, whole percent and reason: word each combination once.
    combos = list(
        zip(
            frame["limit"].astype(str),
            (frame["sol_fraction"] * 100).round(),
            frame["advise_reason"].astype(str),
        )
    )
    worded = {combo: verdict(combo[0], combo[1] / 100, combo[2]) for combo in set(combos)}
    return [worded[combo] for combo in combos]


def top_opportunity_lines(grouped: pd.DataFrame, width: int, count: int = 3) -> list[str]:
    """The ``count`` kernels with the most to gain (``with_opportunity``'s grouped rows), two
    lines each (gain, share of the run, name; then the verdict): the summary screen's block."""
    top = grouped[grouped["gain_s"] > 0].nlargest(count, "gain_s")
    head_width = 20
    names = short_names(top["name"].astype(str), max(width - head_width, 10))
    lines = [f"Top {len(top)} opportunities, µs to gain at best (a: the step budget)"]
    for _, row in top.iterrows():
        name = str(row["name"])
        shown = names.get(printable(name), name)
        lines.append(f"  {seconds(row['gain_s']):>9} {percent(row['gain_share']):>6}  {shown}")
        lines += _wrapped(str(row["verdict"]), width - 4, "    ")
    return [shorten(line, width) for line in lines]
