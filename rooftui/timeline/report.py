"""The timeline findings as text: a rich table for the terminal, with units at the edge."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from rooftui.timeline.analysis import TimelineAnalysis
from rooftui.timeline.finding import Finding
from rooftui.views import formats


def format_steps(steps: list[int | None]) -> str:
    """ "steps 3–6" for a consecutive run, "steps 3, 5" otherwise."""
    if steps == [None]:
        return "whole trace"
    numbers = [s for s in steps if s is not None]
    if len(numbers) == 1:
        return f"step {numbers[0]}"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"steps {numbers[0]}–{numbers[-1]}"
    return "steps " + ", ".join(map(str, numbers))


def where_text(finding: Finding) -> str:
    """Where a finding happens, in one line: steps · range · stream."""
    parts = [format_steps(finding.steps), finding.range]
    if finding.stream is not None:
        parts.append(f"stream {finding.stream}")
    return " · ".join(part for part in parts if part)


def costliest_text(analysis: TimelineAnalysis, finding: Finding) -> str:
    """Where its costliest occurrence is, from its step's start: "step 2, +31.2 ms, 431 µs"."""
    if not finding.places:
        return ""
    place = finding.places[0]
    step = next((s for s in analysis.steps if s.number == place.step), analysis.steps[0])
    return (
        f"costliest: {step.label}, +{formats.seconds(place.start - step.start)}, "
        f"lasting {formats.seconds(place.end - place.start)}"
    )


def detail_text(finding: Finding) -> str:
    """The numbers behind a finding, one line, kind by kind."""
    d = finding.details
    if finding.kind in ("pageable_copy", "blocking_copy"):
        text = (
            f"{d['copy']}: {finding.count_per_step:g} per step, {_bytes(d['bytes_per_step'])}"
            f"/step, copying {formats.seconds(d['copy_time_per_step_s'])}/step"
        )
        if d["blocks_host"]:
            text += f", host blocked {formats.seconds(d['host_blocked_per_step_s'])}/step"
        return text
    if finding.kind == "sync_call":
        return f"{finding.count_per_step:g} call(s)/step"
    if finding.kind == "gpu_idle":
        ranges = ", ".join(
            f"{name} {formats.seconds(s)}" for name, s in list(d["idle_per_step_s_by_range"].items())[:4]
        )
        return (
            f"idle per step by host range: {ranges}; in gaps under 100 µs "
            f"{formats.seconds(d['idle_in_short_gaps_per_step_s'])}, across step boundaries "
            f"{formats.seconds(d['idle_across_step_boundaries_per_step_s'])}"
        )
    if finding.kind == "data_loading_overlap":
        return (
            f"data loading {formats.seconds(d['data_loading_per_step_s'])}/step, "
            f"{d['overlapped_share']:.0%} of it overlapped by GPU work"
        )
    if finding.kind == "launch_bound":
        return (
            f"median kernel {formats.seconds(d['median_kernel_s'])}, median gap "
            f"{formats.seconds(d['median_gap_s'])}"
        )
    return ""


def _bytes(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count} B"


def summary_line(analysis: TimelineAnalysis) -> str:
    s = analysis.summary()
    devices = ", ".join(s["devices"]) or "GPU"
    steps = (
        f"{s['steps']} steps"
        if analysis.has_step_markers
        else "no ProfilerStep ranges: the whole trace counts as one step"
    )
    return (
        f"{s['trace']} · {devices} · {steps}, mean {formats.seconds(s['mean_step_s'])} · "
        f"GPU idle {s['gpu_idle_share']:.0%} of step time"
    )


def findings_table(analysis: TimelineAnalysis, ascii_mode: bool = False) -> Group:
    """The summary line, the per-step idle shares and one row per finding; with
    ``ascii_mode`` the table is drawn with ASCII lines (fold the text with
    ``views.text.ascii_fold`` once laid out)."""
    header = Text(summary_line(analysis), style="bold")
    steps = Text(
        "GPU idle by step: "
        + ", ".join(
            f"{step.label} {idle / step.duration:.0%}"
            for step, idle in zip(analysis.steps, analysis.idle_s, strict=True)
        )
    )
    if not analysis.findings:
        return Group(header, steps, Text("No stalls found.", style="green"))
    table = Table(show_lines=True, expand=False, box=box.ASCII if ascii_mode else box.HEAVY_HEAD)
    table.add_column("#", justify="right")
    table.add_column("cost/step", justify="right", no_wrap=True)
    table.add_column("% step", justify="right")
    table.add_column("finding · where · host call")
    for number, finding in enumerate(analysis.findings, start=1):
        cell = Text.assemble((finding.title, "bold"), "\n", ("where: ", "dim"), where_text(finding))
        if finding.host_call:
            cell.append_text(Text.assemble("\n", ("host call: ", "dim"), (finding.host_call, "cyan")))
        cell.append_text(Text.assemble("\n", (detail_text(finding), "dim")))
        cell.append_text(Text.assemble("\n", (costliest_text(analysis, finding), "dim")))
        table.add_row(
            str(number), formats.seconds(finding.cost_per_step_s), f"{finding.share_of_step:.0%}", cell
        )
    return Group(header, steps, table)
