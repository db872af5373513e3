"""Filtering, sorting and totals over a kernel table — pure pandas, no UI.

The explorer's filter bar and ``rooftui plot`` both describe what to show with a
``KernelFilter`` and get the rows back from ``apply_filter``. User text is only
ever matched as a substring or compiled as a regular expression; it is never
evaluated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rooftui.analysis import zero_ai
from rooftui.analysis.filter_spec import (  # noqa: F401 - what to keep is said with these
    BOUND_KINDS,
    MEMORY_BOUNDS,
    NO_BOUND,
    ZERO_AI_MODES,
    InvalidFilter,
    KernelFilter,
    bound_kind,
    name_pattern,
    parse_count,
    parse_number,
)

# The distinct values of text columns, per column: (codes, distinct values) from pd.factorize.
Factorized = dict[str, tuple[np.ndarray, Any]]


def _factorized(frame: pd.DataFrame, column: str, cache: Factorized | None) -> tuple[np.ndarray, Any]:
    """``pd.factorize`` of a text column, from ``cache`` when the caller keeps one."""
    if cache is not None and column in cache:
        return cache[column]
    result = pd.factorize(frame[column])
    if cache is not None:
        cache[column] = result
    return result


def _matching(codes: np.ndarray, distinct: Any, predicate: Callable[[str], object]) -> np.ndarray:
    """Rows whose value satisfies ``predicate``, testing each distinct value once.

    Text columns repeat a handful of values over 100k rows, so this is much
    faster than comparing every row's string.
    """
    hits = np.fromiter((bool(predicate(str(v))) for v in distinct), bool, len(distinct))
    return np.append(hits, False)[codes]  # code -1 (missing) never matches


def filter_positions(
    frame: pd.DataFrame, spec: KernelFilter, factorized: Factorized | None = None
) -> np.ndarray:
    """Positions (``iloc``) of the rows ``spec`` keeps, in their original order.

    ``factorized`` is an optional dict the caller keeps between calls on the
    same frame; it caches the distinct values of the text columns.
    """
    keep = np.ones(len(frame), dtype=bool)

    def text_is(column: str, predicate: Callable[[str], object]) -> np.ndarray:
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
    if spec.rank is not None:
        keep &= text_is("rank", spec.rank.__eq__)
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
    NaN where a value is missing (or blank). Text that is all whole numbers (ranks,
    stream IDs) orders by number: rank 2 before rank 10."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float)
    codes, uniques = pd.factorize(values, sort=True)
    if len(uniques) and all(isinstance(u, str) and (u.isdecimal() or u == "") for u in uniques):
        numbers = np.array([float(u) if u else np.nan for u in uniques])
        keys = numbers[np.where(codes < 0, 0, codes)]
    else:
        keys = codes.astype(float)
    keys[codes < 0] = np.nan
    return keys


def sort_positions(keys: np.ndarray, positions: np.ndarray, descending: bool) -> np.ndarray:
    """``positions`` reordered by ``keys`` (one per row of the whole frame); ties
    keep their order and missing keys go last in both directions."""
    selected = keys[positions]
    missing = np.isnan(selected)
    ordered = np.where(missing, 0.0, -selected if descending else selected)
    # lexsort sorts by the last key first: missing values last, then by key.
    return positions[np.lexsort((ordered, missing))]


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
