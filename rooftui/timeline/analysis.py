"""Run every timeline analyzer on one trace: the façade the CLI and the TUI use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rooftui.errors import InputError
from rooftui.timeline.context import TraceContext
from rooftui.timeline.finding import Finding
from rooftui.timeline.findings import idle, launch, overlap
from rooftui.timeline.findings.copies import find_host_device_copies
from rooftui.timeline.findings.idle import find_gpu_idle, idle_per_step
from rooftui.timeline.findings.launch import find_launch_bound
from rooftui.timeline.findings.overlap import data_loading_rows, find_serial_data_loading
from rooftui.timeline.findings.syncs import find_sync_calls
from rooftui.timeline.readers import read_trace
from rooftui.timeline.steps import Step
from rooftui.timeline.trace import Trace


@dataclass
class TimelineAnalysis:
    """A trace, its steps, the GPU idle share of each, and the findings, costliest first."""

    context: TraceContext
    findings: list[Finding]
    idle_s: list[float]  # GPU idle seconds in each step

    @property
    def trace(self) -> Trace:
        return self.context.trace

    @property
    def steps(self) -> list[Step]:
        return self.context.steps

    @property
    def idle_share(self) -> float:
        """GPU idle time over all steps, as a share of their total time."""
        return sum(self.idle_s) / sum(step.duration for step in self.steps)

    @property
    def has_step_markers(self) -> bool:
        return self.steps[0].number is not None

    def summary(self) -> dict:
        trace = self.trace
        return {
            "trace": Path(trace.source).name,
            "format": trace.format,
            "devices": sorted(set(trace.device_names.values())),
            "steps": len(self.steps),
            "step_markers": self.has_step_markers,
            "mean_step_s": round(self.context.mean_step_s, 9),
            "gpu_idle_share": round(self.idle_share, 4),
            "kernels": int((trace.gpu.kind == 0).sum()),
            "copies": int((trace.gpu.kind == 1).sum()),
            "data_loading_ranges": bool(len(data_loading_rows(self.context))),
            "thresholds": {
                "gpu_idle_share_to_report": idle.IDLE_SHARE_TO_REPORT,
                "short_gap_s": idle.SHORT_GAP_S,
                "exposed_data_loading_share_to_report": overlap.EXPOSED_SHARE_TO_REPORT,
                "launch_bound_min_kernels": launch.MIN_KERNELS,
                "launch_bound_max_gap_s": launch.MAX_LAUNCH_GAP_S,
            },
        }

    def to_json(self) -> dict:
        return {
            "summary": self.summary(),
            "steps": [
                {
                    "step": step.number,
                    "start_s": round(step.start, 9),
                    "duration_s": round(step.duration, 9),
                    "gpu_idle_share": round(idle / step.duration, 4),
                }
                for step, idle in zip(self.steps, self.idle_s, strict=True)
            ],
            "findings": [finding.to_json() for finding in self.findings],
        }


def analyze(trace: Trace) -> TimelineAnalysis:
    """Every finding on an already-read trace. InputError if it has no GPU activity."""
    if not len(trace.gpu):
        raise InputError(
            "the trace has no GPU events (kernels or copies)",
            path=trace.source,
            fix="profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]",
        )
    context = TraceContext(trace)
    copies, folded_syncs = find_host_device_copies(context)
    findings = [
        *copies,
        *find_sync_calls(context, folded_syncs),
        *find_gpu_idle(context),
        *find_serial_data_loading(context),
        *find_launch_bound(context),
    ]
    findings.sort(key=lambda finding: -finding.cost_per_step_s)
    return TimelineAnalysis(context, findings, idle_per_step(context))


def analyze_trace(path: str | Path) -> TimelineAnalysis:
    """Read a trace file (Kineto JSON, .json or .json.gz) and analyze it."""
    return analyze(read_trace(path))
