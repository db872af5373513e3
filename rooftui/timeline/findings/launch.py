"""Launch-bound stretches: runs of short kernels with longer gaps between them.

When the host needs longer to launch a kernel than the GPU needs to run it, the
GPU finishes each kernel and waits for the next: the gaps are longer than the
kernels. A run of at least MIN_KERNELS such kernels in a row (on one device,
every stream counted) is a stretch; what it costs is the GPU idle inside it.
Typical causes: a per-parameter optimizer (``foreach=False``), many tiny
elementwise kernels that a fused or compiled kernel would replace, zero-AI
kernels that move little data.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from rooftui.timeline.context import TraceContext
from rooftui.timeline.finding import Finding, Place
from rooftui.timeline.trace import GpuKind

MIN_KERNELS = 10
# A gap longer than this is not launch latency (it is a sync, data loading, ...):
# it ends the stretch and is left to the idle and sync findings.
MAX_LAUNCH_GAP_S = 1e-3
MAX_PLACES = 8
OPERATOR_SAMPLE = 64


def find_launch_bound(ctx: TraceContext) -> list[Finding]:
    gpu = ctx.trace.gpu  # sorted by start
    stretches = []
    for device in np.unique(gpu.device).tolist():
        rows = np.flatnonzero(gpu.device == device)
        start, end, kind = gpu.start[rows], gpu.end[rows], gpu.kind[rows]
        busy_until = np.maximum.accumulate(end)
        gap = np.empty(len(rows))
        gap[0] = np.inf
        gap[1:] = start[1:] - busy_until[:-1]
        starved = (kind == GpuKind.KERNEL) & (gap > end - start) & (gap <= MAX_LAUNCH_GAP_S)
        stretches += [rows[a:b] for a, b in _runs(starved) if b - a >= MIN_KERNELS]
    groups: dict[str, list[dict]] = defaultdict(list)
    for kernels in stretches:
        first = int(kernels[0])
        call = int(ctx.launching_calls(gpu.correlation[[first]])[0])
        thread = int(ctx.trace.host_calls.thread[call]) if call >= 0 else ctx.main_thread
        issued = float(ctx.trace.host_calls.start[call]) if call >= 0 else float(gpu.start[first])
        step = ctx.step_index(issued)
        if step < 0:
            continue
        durations = gpu.end[kernels] - gpu.start[kernels]
        gaps = gpu.start[kernels[1:]] - np.maximum.accumulate(gpu.end[kernels[:-1]])
        groups[ctx.user_range(thread, issued)].append(
            {
                "step": ctx.steps[step].number,
                "kernels": len(kernels),
                "idle_s": float(np.clip(gaps, 0, None).sum()),
                "kernel_s": float(durations.sum()),
                "median_kernel_s": float(np.median(durations)),
                "median_gap_s": float(np.median(gaps)),
                "operators": _launching_operators(ctx, kernels),
                "stream": int(gpu.stream[first]),
                "place": Place(
                    ctx.steps[step].number,
                    float(gpu.start[first]),
                    float(gpu.end[kernels[-1]]),
                    int(gpu.stream[first]),
                ),
            }
        )
    n_steps = len(ctx.steps)
    findings = []
    for where, found in groups.items():
        cost = sum(s["idle_s"] for s in found) / n_steps
        kernels = sum(s["kernels"] for s in found)
        operators: Counter[str] = Counter()
        for s in found:
            operators.update(s["operators"])
        findings.append(
            Finding(
                kind="launch_bound",
                title=f"Launch-bound: {kernels / n_steps:.0f} short kernels per step with "
                "longer gaps between them",
                cost_per_step_s=cost,
                share_of_step=cost / ctx.mean_step_s,
                range=where,
                stream=Counter(s["stream"] for s in found).most_common(1)[0][0],
                host_call=", ".join(name for name, _ in operators.most_common(3)),
                steps=sorted({s["step"] for s in found}, key=lambda s: -1 if s is None else s),
                count_per_step=len(found) / n_steps,
                details={
                    "kernels_per_step": kernels / n_steps,
                    "kernel_time_per_step_s": sum(s["kernel_s"] for s in found) / n_steps,
                    "median_kernel_s": float(np.median([s["median_kernel_s"] for s in found])),
                    "median_gap_s": float(np.median([s["median_gap_s"] for s in found])),
                },
                places=sorted((s["place"] for s in found), key=lambda p: p.start - p.end)[:MAX_PLACES],
            )
        )
    return sorted(findings, key=lambda f: -f.cost_per_step_s)


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True."""
    padded = np.concatenate([[False], mask, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


def _launching_operators(ctx: TraceContext, kernels: np.ndarray) -> Counter:
    """The outermost operator that launched each kernel (``aten::add_``, ...), counted.

    A long stretch is sampled at OPERATOR_SAMPLE evenly spaced kernels.
    """
    if len(kernels) > OPERATOR_SAMPLE:
        kernels = kernels[np.linspace(0, len(kernels) - 1, OPERATOR_SAMPLE).astype(int)]
    calls = ctx.launching_calls(ctx.trace.gpu.correlation[kernels])
    counted: Counter[str] = Counter()
    for call in calls[calls >= 0].tolist():
        thread = int(ctx.trace.host_calls.thread[call])
        _, operators = ctx.stacks.describe(thread, float(ctx.trace.host_calls.start[call]))
        if operators:
            counted[operators[0]] += 1
    return counted
