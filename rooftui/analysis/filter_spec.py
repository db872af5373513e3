"""What the explorer's filter bar and ``rooftui plot`` keep: ``KernelFilter`` and the
parsing of what the user typed. No pandas here, so ``rooftui plot --help`` (whose
choices come from here) starts fast; ``rooftui.analysis.filters`` applies a filter.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rooftui.model.columns import LEVEL_LABELS, LEVELS

ZERO_AI_MODES = ("all", "only", "hide")
BOUND_KINDS = ("memory", "compute")
# Values of the ``bound`` column that name a memory level rather than a pipeline.
MEMORY_BOUNDS = frozenset({*LEVEL_LABELS.values(), "SMEM"})
# Values meaning "no roof applies" (zero-AI kernels); neither memory nor compute.
NO_BOUND = frozenset({"", "none", "nan", "None", "<NA>"})


class InvalidFilter(ValueError):
    """A filter value the user typed cannot be used (bad regex, non-numeric range)."""


@dataclass(frozen=True)
class KernelFilter:
    """What to keep. Every field left at its default keeps everything."""

    name: str = ""  # substring (case-insensitive) or, with ``regex``, a pattern
    regex: bool = False
    pipeline: str | None = None  # a ``pipeline`` value, e.g. "fp64" or "none"
    zero_ai: str = "all"  # "all" | "only" | "hide"
    phase: str | None = None
    ai_level: str = "hbm"  # the level ``ai_min``/``ai_max`` apply to
    ai_min: float | None = None  # FLOP/byte, inclusive
    ai_max: float | None = None
    bound: str | None = None  # "memory", "compute" or an exact ``bound`` value
    top_n: int | None = None  # keep the N rows with the most time, after the rest
    rank: str | None = None  # a ``rank`` value (multi-GPU runs), e.g. "1"

    def __post_init__(self) -> None:
        if self.zero_ai not in ZERO_AI_MODES:
            raise InvalidFilter(f"zero-AI mode must be one of {', '.join(ZERO_AI_MODES)}")
        if self.ai_level not in LEVELS:
            raise InvalidFilter(f"AI level must be one of {', '.join(LEVELS)}")
        if self.top_n is not None and self.top_n < 1:
            raise InvalidFilter("top N must be a positive whole number")
        if self.regex:
            name_pattern(self.name, regex=True)  # fail at construction, not at use

    @property
    def is_empty(self) -> bool:
        return self == KernelFilter(ai_level=self.ai_level, regex=self.regex)


def name_pattern(text: str, regex: bool) -> re.Pattern[str]:
    """The compiled, case-insensitive pattern for a name filter."""
    try:
        return re.compile(text if regex else re.escape(text), re.IGNORECASE)
    except re.error as err:
        raise InvalidFilter(f"not a valid regular expression: {err}") from None


def parse_number(text: str, what: str) -> float | None:
    """``text`` as a float, ``None`` when blank; "1e-2" and "0.5" both work."""
    text = text.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise InvalidFilter(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise InvalidFilter(f"{what} must be finite, got {text!r}")
    return value


def parse_count(text: str, what: str) -> int | None:
    """``text`` as a positive int, ``None`` when blank."""
    text = text.strip()
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise InvalidFilter(f"{what} must be a positive whole number, got {text!r}")
    return int(text)


def bound_kind(bound: str) -> str:
    """ "memory" when ``bound`` names a memory level, else "compute"."""
    return "memory" if bound in MEMORY_BOUNDS else "compute"
