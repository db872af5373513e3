"""Host calls that wait for the GPU inside a step.

Each one drains the GPU's queue: the host stops launching work until everything
queued before it has run, and the GPU then idles until the host catches up.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from rooftui.timeline.context import TraceContext
from rooftui.timeline.finding import Finding, Place

# Runtime and driver calls that block the calling thread until the GPU (or a
# stream, or an event) has finished; cudaMemcpy without Async is synchronous.
SYNC_CALLS = frozenset(
    {
        "cudaDeviceSynchronize",
        "cudaStreamSynchronize",
        "cudaEventSynchronize",
        "cudaMemcpy",
        "cudaMemcpy2D",
        "cudaMemcpy3D",
        "cudaMemcpyFromSymbol",
        "cudaMemcpyToSymbol",
        "cudaMemset",
        "cudaMemset2D",
        "cudaMemset3D",
        "cuCtxSynchronize",
        "cuStreamSynchronize",
        "cuEventSynchronize",
        "cuMemcpyDtoH",
        "cuMemcpyDtoH_v2",
        "cuMemcpyHtoD",
        "cuMemcpyHtoD_v2",
        # ROCm's names, for Kineto traces from AMD GPUs
        "hipDeviceSynchronize",
        "hipStreamSynchronize",
        "hipEventSynchronize",
        "hipMemcpy",
    }
)
MAX_PLACES = 8


def find_sync_calls(ctx: TraceContext, already_reported: set[int]) -> list[Finding]:
    """Synchronizing calls inside steps, grouped by call, operator stack and range.

    ``already_reported`` holds host-call rows that a pageable-copy finding already
    counts (the ``cudaStreamSynchronize`` of a blocking ``.item()``).
    """
    trace = ctx.trace
    calls = trace.host_calls
    sync_codes = trace.codes_where(lambda name: name in SYNC_CALLS)
    rows = np.flatnonzero(np.isin(calls.name, sync_codes))
    steps = ctx.step_index(calls.start[rows])
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row, step in zip(rows.tolist(), steps.tolist(), strict=True):
        if step < 0 or row in already_reported:
            continue
        thread, start, end = int(calls.thread[row]), float(calls.start[row]), float(calls.end[row])
        key = (trace.names[calls.name[row]], ctx.host_call(thread, start), ctx.user_range(thread, start))
        number = ctx.steps[step].number
        groups[key].append({"step": number, "wait_s": end - start, "place": Place(number, start, end)})
    n_steps = len(ctx.steps)
    findings = []
    for (name, host_call, where), waits in groups.items():
        cost = sum(w["wait_s"] for w in waits) / n_steps
        findings.append(
            Finding(
                kind="sync_call",
                title=f"{name} inside the step: the host waits for the GPU",
                cost_per_step_s=cost,
                share_of_step=cost / ctx.mean_step_s,
                range=where,
                host_call=host_call,
                steps=sorted({w["step"] for w in waits}, key=lambda s: -1 if s is None else s),
                count_per_step=len(waits) / n_steps,
                details={"call": name},
                places=sorted((w["place"] for w in waits), key=lambda p: p.start - p.end)[:MAX_PLACES],
            )
        )
    return sorted(findings, key=lambda f: -f.cost_per_step_s)
