"""Copies between host and device that use pageable memory or block the host.

A copy to or from pageable (not pinned) memory cannot be truly asynchronous: the
driver stages it through a pinned bounce buffer, and a device→host copy returns
only when the data has arrived. Kineto names the memory in the copy's name,
"Memcpy HtoD (Pageable -> Device)". A copy *blocks the host* when the host call
that issued it, or a synchronizing call made by the same operator right after it
(PyTorch's ``copy_`` and ``item()`` call ``cudaStreamSynchronize``), returned
only after the copy finished on the GPU: the host waited for everything queued
before the copy, then for the copy.

Findings: ``pageable_copy`` for every pageable copy (blocking or not), and
``blocking_copy`` for a copy into or out of pinned memory that still blocks the
host. Recent PyTorch stages ``.item()`` through pinned memory, so its
device→host copy is a ``blocking_copy``, named with the ``aten::item`` behind it.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from rooftui.timeline.context import TraceContext
from rooftui.timeline.finding import Finding, Place
from rooftui.timeline.findings.syncs import SYNC_CALLS
from rooftui.timeline.trace import GpuKind

# The GPU end of a copy and the host call's return are timed by different clocks
# paths (CUPTI activity vs callback); allow this much skew when comparing them.
CLOCK_SLACK_S = 2e-6
MAX_PLACES = 8

_COPY_CALL_PREFIXES = ("cudaMemcpy", "cuMemcpy", "hipMemcpy")
_DIRECTIONS = {"DtoH": "device→host", "HtoD": "host→device"}


def find_host_device_copies(ctx: TraceContext) -> tuple[list[Finding], set[int]]:
    """Pageable or blocking copies, and the host-call rows folded into them (their syncs)."""
    trace = ctx.trace
    gpu, calls = trace.gpu, trace.host_calls
    host_device_codes = trace.codes_where(lambda name: "HtoD" in name or "DtoH" in name)
    rows = np.flatnonzero((gpu.kind == GpuKind.MEMCPY) & np.isin(gpu.name, host_device_codes))
    sync_codes = trace.codes_where(lambda name: name in SYNC_CALLS)
    copy_call_codes = trace.codes_where(lambda name: name.startswith(_COPY_CALL_PREFIXES))
    launches = ctx.launching_calls(gpu.correlation[rows])
    groups: dict[tuple, list[dict]] = defaultdict(list)
    folded: set[int] = set()
    for row, call in zip(rows.tolist(), launches.tolist(), strict=True):
        copy_start, copy_end = float(gpu.start[row]), float(gpu.end[row])
        thread: int | None  # None: the trace lost the launch and has no step markers
        if call >= 0:
            thread, issued, returned = (
                int(calls.thread[call]),
                float(calls.start[call]),
                float(calls.end[call]),
            )
            syncs = _syncs_in_same_operator(ctx, call, sync_codes, copy_call_codes)
            host_free = max([returned] + [float(calls.end[s]) for s in syncs])
            blocking = host_free >= copy_end - CLOCK_SLACK_S
            if blocking:
                folded.update(syncs)
            host_call = ctx.host_call(thread, issued)
            where = ctx.user_range(thread, issued)
            host_blocked = host_free - issued if blocking else 0.0
        else:  # the trace lost the launch: place the copy by its GPU time
            thread, issued, blocking, host_blocked = ctx.main_thread, copy_start, False, 0.0
            host_call, where = "", "(unknown: no host call in the trace)"
        step = ctx.step_index(issued)
        name = trace.names[gpu.name[row]]
        if step < 0 or not (blocking or "Pageable" in name):
            continue
        key = (name, host_call, where, int(gpu.stream[row]), blocking)
        groups[key].append(
            {
                "step": ctx.steps[step].number,
                "copy_s": copy_end - copy_start,
                "host_blocked_s": host_blocked,
                "bytes": int(gpu.bytes[row]),
                "place": Place(
                    ctx.steps[step].number,
                    min(issued, copy_start),
                    max(copy_end, issued + host_blocked),
                    int(gpu.stream[row]),
                ),
            }
        )
    findings = [_finding(ctx, key, copies) for key, copies in groups.items()]
    return sorted(findings, key=lambda f: -f.cost_per_step_s), folded


def _syncs_in_same_operator(
    ctx: TraceContext, call: int, sync_codes: np.ndarray, copy_call_codes: np.ndarray
) -> list[int]:
    """Synchronizing calls on the call's thread inside its innermost operator, after it
    and before the operator's next copy (which the next syncs then belong to)."""
    calls = ctx.trace.host_calls
    thread, issued = int(calls.thread[call]), float(calls.start[call])
    enclosing = ctx.stacks.enclosing(thread, issued)
    operators = [r for r in enclosing if not ctx.trace.host_ranges.is_annotation[r]]
    if not operators:
        return [call] if calls.name[call] in sync_codes else []
    op_end = float(ctx.trace.host_ranges.end[operators[-1]])
    lo = int(np.searchsorted(calls.start, issued, side="left"))
    hi = int(np.searchsorted(calls.start, op_end, side="right"))
    window = np.arange(lo, hi)
    window = window[calls.thread[window] == thread]
    later_copies = window[(window != call) & np.isin(calls.name[window], copy_call_codes)]
    if len(later_copies):
        window = window[window < later_copies[0]]
    return window[np.isin(calls.name[window], sync_codes)].tolist()


def _finding(ctx: TraceContext, key: tuple, copies: list[dict]) -> Finding:
    name, host_call, where, stream, blocking = key
    n_steps = len(ctx.steps)
    direction = next((label for tag, label in _DIRECTIONS.items() if tag in name), "")
    copy_s = sum(c["copy_s"] for c in copies)
    blocked_s = sum(c["host_blocked_s"] for c in copies)
    cost = (blocked_s if blocking else copy_s) / n_steps
    pageable = "Pageable" in name
    memory = "pageable" if pageable else "pinned"
    memory = f"into {memory} memory" if "DtoH" in name else f"from {memory} memory"
    title = f"{'Blocking ' if blocking else ''}{direction} copy {memory}".strip()
    if blocking:
        title += ": the host waits for the GPU"
    places = sorted((c["place"] for c in copies), key=lambda p: p.start - p.end)[:MAX_PLACES]
    return Finding(
        kind="pageable_copy" if pageable else "blocking_copy",
        title=title[0].upper() + title[1:],
        cost_per_step_s=cost,
        share_of_step=cost / ctx.mean_step_s,
        range=where,
        stream=stream,
        host_call=host_call,
        steps=sorted({c["step"] for c in copies}, key=lambda s: -1 if s is None else s),
        count_per_step=len(copies) / n_steps,
        details={
            "copy": name,
            "blocks_host": blocking,
            "bytes_per_step": sum(c["bytes"] for c in copies) // n_steps,
            "copy_time_per_step_s": copy_s / n_steps,
            "host_blocked_per_step_s": blocked_s / n_steps,
        },
        places=places,
    )
