"""Filtering, sorting and totals over a kernel table — pure pandas, no UI.

The explorer's filter bar and ``rooftui plot`` both describe what to show with a
``KernelFilter`` and get the rows back from ``apply_filter``. User text is only
ever matched as a substring or compiled as a regular expression; it is never
evaluated.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rooftui.analysis import zero_ai
from rooftui.model.columns import LEVEL_LABELS, LEVELS

if TYPE_CHECKING:  # imported where used: `rooftui --help` reads this module's choices
    import numpy as np
    import pandas as pd

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

    def cleared(self) -> KernelFilter:
        return replace(KernelFilter(), ai_level=self.ai_level)


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


def _factorized(frame: pd.DataFrame, column: str, cache: dict | None):
    """``pd.factorize`` of a text column, from ``cache`` when the caller keeps one."""
    import pandas as pd

    if cache is not None and column in cache:
        return cache[column]
    result = pd.factorize(frame[column])
    if cache is not None:
        cache[column] = result
    return result


def _matching(codes: np.ndarray, distinct, predicate) -> np.ndarray:
    """Rows whose value satisfies ``predicate``, testing each distinct value once.

    Text columns repeat a handful of values over 100k rows, so this is much
    faster than comparing every row's string.
    """
    import numpy as np

    hits = np.fromiter((bool(predicate(str(v))) for v in distinct), bool, len(distinct))
    return np.append(hits, False)[codes]  # code -1 (missing) never matches


def name_mask(names: pd.Series, pattern: re.Pattern[str]) -> np.ndarray:
    """Which ``names`` match ``pattern``."""
    import pandas as pd

    codes, distinct = pd.factorize(names)
    return _matching(codes, distinct, pattern.search)


def filter_positions(frame: pd.DataFrame, spec: KernelFilter, factorized: dict | None = None) -> np.ndarray:
    """Positions (``iloc``) of the rows ``spec`` keeps, in their original order.

    ``factorized`` is an optional dict the caller keeps between calls on the
    same frame; it caches the distinct values of the text columns.
    """
    import numpy as np

    keep = np.ones(len(frame), dtype=bool)

    def text_is(column: str, predicate) -> np.ndarray:
        return _matching(*_factorized(frame, column, factorized), predicate)

    if spec.name:
        keep &= text_is("name", name_pattern(spec.name, spec.regex).search)
    if spec.pipeline is not None:
        keep &= text_is("pipeline", spec.pipeline.__eq__)
    if spec.zero_ai != "all":
        keep &= zero_ai.filter_mask(frame, spec.zero_ai)
    if spec.phase is not None:
        keep &= text_is("phase", spec.phase.__eq__)
    if spec.ai_min is not None or spec.ai_max is not None:
        ai = frame[f"ai_{spec.ai_level}"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            if spec.ai_min is not None:
                keep &= ai >= spec.ai_min
            if spec.ai_max is not None:
                keep &= ai <= spec.ai_max
    if spec.bound is not None:
        if spec.bound in BOUND_KINDS:
            wanted = spec.bound
            keep &= text_is("bound", lambda b: b not in NO_BOUND and bound_kind(b) == wanted)
        else:
            keep &= text_is("bound", spec.bound.__eq__)
    positions = np.flatnonzero(keep)
    if spec.top_n is not None and len(positions) > spec.top_n:
        time = frame["time_s"].to_numpy(dtype=float)[positions]
        heaviest = np.argsort(-time, kind="stable")[: spec.top_n]
        positions = np.sort(positions[heaviest])
    return positions


def apply_filter(frame: pd.DataFrame, spec: KernelFilter) -> pd.DataFrame:
    """The rows of ``frame`` that ``spec`` keeps, in their original order."""
    return frame.iloc[filter_positions(frame, spec)]


def sort_keys(values: pd.Series) -> np.ndarray:
    """Float keys that order ``values``: the numbers themselves, or for text the
    rank of each distinct string (comparing ranks is far faster than strings);
    NaN where a value is missing."""
    import numpy as np
    import pandas as pd

    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float)
    codes, _ = pd.factorize(values, sort=True)
    keys = codes.astype(float)
    keys[codes < 0] = np.nan
    return keys


def sort_positions(keys: np.ndarray, positions: np.ndarray, descending: bool) -> np.ndarray:
    """``positions`` reordered by ``keys`` (one per row of the whole frame); ties
    keep their order and missing keys go last in both directions."""
    import numpy as np

    selected = keys[positions]
    missing = np.isnan(selected)
    ordered = np.where(missing, 0.0, -selected if descending else selected)
    # lexsort sorts by the last key first: missing values last, then by key.
    return positions[np.lexsort((ordered, missing))]


def sort_rows(frame: pd.DataFrame, column: str, descending: bool) -> pd.DataFrame:
    """``frame`` sorted by ``column``; ties keep their order, missing values go last."""
    import numpy as np

    order = sort_positions(sort_keys(frame[column]), np.arange(len(frame)), descending)
    return frame.iloc[order]


@dataclass(frozen=True)
class Totals:
    """What a set of rows adds up to, for the status line and the summary."""

    rows: int
    invocations: int
    time_s: float
    flops: float
    zero_ai_rows: int  # rows holding a zero-AI launch
    zero_ai_invocations: int  # zero-AI launches, as Table III counts them
    zero_ai_time_s: float


def totals(frame: pd.DataFrame) -> Totals:
    """Totals of ``frame``; grouped frames count their ``count`` invocations and
    their ``zero_ai_launches`` (``rooftui.analysis.zero_ai``)."""
    zero = zero_ai.launches(frame)
    return Totals(
        rows=len(frame),
        invocations=int(zero_ai.launch_counts(frame).sum()),
        time_s=float(frame["time_s"].to_numpy(dtype=float).sum()),
        flops=float(frame["flops"].sum()),
        zero_ai_rows=int((zero > 0).sum()),
        zero_ai_invocations=int(zero.sum()),
        zero_ai_time_s=float(zero_ai.time_s(frame).sum()),
    )


def top_by_time(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    """The ``n`` rows with the most time, heaviest first."""
    order = np.argsort(-frame["time_s"].to_numpy(dtype=float), kind="stable")[:n]
    return frame.iloc[order]
