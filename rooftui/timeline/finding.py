"""A finding: one stall, what it costs per step, where it happens and what called it."""

from __future__ import annotations

from dataclasses import dataclass, field

# Short names of the finding kinds, for lists and legends.
KIND_LABELS = {
    "pageable_copy": "pageable copy",
    "blocking_copy": "blocking copy",
    "sync_call": "sync call",
    "gpu_idle": "GPU idle",
    "data_loading_overlap": "serial data loading",
    "launch_bound": "launch-bound",
}


@dataclass(frozen=True)
class Place:
    """One occurrence in the trace, to jump to: a time span in a step, on a stream or thread."""

    step: int | None
    start: float  # seconds from the trace's first event
    end: float
    stream: int | None = None

    def to_json(self) -> dict:
        return {
            "step": self.step,
            "start_s": _round(self.start),
            "end_s": _round(self.end),
            "stream": self.stream,
        }


@dataclass
class Finding:
    """A stall the timeline shows; ``cost_per_step_s`` is averaged over all steps in the trace."""

    kind: str  # pageable_copy, sync_call, gpu_idle, data_loading_overlap, launch_bound
    title: str  # one line in the user's words
    cost_per_step_s: float
    share_of_step: float  # cost_per_step_s / mean step time
    range: str  # record_function/NVTX ranges inside the step, "forward > ..."
    stream: int | None = None
    host_call: str = ""  # operator stack behind it, "aten::item > aten::_local_scalar_dense"
    steps: list[int | None] = field(default_factory=list)
    count_per_step: float = 0.0
    details: dict = field(default_factory=dict)  # kind-specific numbers, base units
    places: list[Place] = field(default_factory=list)  # the costliest first

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "title": self.title,
            "cost_per_step_s": _round(self.cost_per_step_s),
            "share_of_step": round(self.share_of_step, 4),
            "range": self.range,
            "stream": self.stream,
            "host_call": self.host_call,
            "steps": self.steps,
            "count_per_step": round(self.count_per_step, 3),
            "details": _round_floats(self.details),
            "places": [place.to_json() for place in self.places],
        }


def _round_floats(value):
    if isinstance(value, float):
        return _round(value)
    if isinstance(value, dict):
        return {key: _round_floats(item) for key, item in value.items()}
    return value


def _round(seconds: float) -> float:
    # Kineto times are microseconds with nanosecond digits; keep nanoseconds.
    return round(float(seconds), 9)
