"""Plateaus in a bandwidth-vs-working-set curve.

Pure functions, no GPU: a curve is a list of ``[working_set_bytes, bytes_per_s]``
sorted by working set. A plateau is a maximal run of at least ``min_points``
consecutive points whose largest and smallest bandwidth differ by at most
``tolerance`` (relative). Points at either end that stray from the run's
median by more than half the tolerance are transition points (a working set
just past a cache still gets some hits) and are trimmed off. The plateau's
value is the median of what is left, so a stray point does not move the ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

TOLERANCE = 0.10
MIN_POINTS = 3


@dataclass(frozen=True)
class Plateau:
    first: int  # index of its first point in the curve
    last: int  # index of its last point (inclusive)
    value: float  # median bandwidth over its points, B/s
    working_set_lo: int
    working_set_hi: int

    @property
    def points(self) -> int:
        """Points the plateau spans (stray points a merge stepped over included)."""
        return self.last - self.first + 1


def find_plateaus(
    curve: Sequence[Sequence[float]], tolerance: float = TOLERANCE, min_points: int = MIN_POINTS
) -> list[Plateau]:
    """Maximal flat runs of the curve, left to right (smallest working set first)."""
    values = [float(v) for _, v in curve]
    sizes = [int(ws) for ws, _ in curve]
    if any(b <= a for a, b in zip(sizes, sizes[1:], strict=False)):
        raise ValueError("curve must be sorted by strictly increasing working set")
    plateaus: list[Plateau] = []
    i = 0
    while i < len(values):
        lo = hi = values[i]
        j = i
        while j + 1 < len(values):
            nlo, nhi = min(lo, values[j + 1]), max(hi, values[j + 1])
            if nlo <= 0 or nhi / nlo > 1 + tolerance:
                break
            lo, hi, j = nlo, nhi, j + 1
        if j - i + 1 >= min_points:
            first, last = _trim(values, i, j, tolerance / 2)
            if last - first + 1 >= min_points:
                run = values[first : last + 1]
                plateaus.append(Plateau(first, last, float(median(run)), sizes[first], sizes[last]))
            i = j + 1
        else:
            i += 1
    return _merge(plateaus, values, sizes, tolerance)


def _trim(values: list[float], first: int, last: int, tolerance: float) -> tuple[int, int]:
    """Drop end points more than ``tolerance`` away from the run's median."""
    while last - first >= 1:
        m = median(values[first : last + 1])
        if abs(values[first] / m - 1) > tolerance:
            first += 1
        elif abs(values[last] / m - 1) > tolerance:
            last -= 1
        else:
            break
    return first, last


def _merge(plateaus: list[Plateau], values, sizes, tolerance: float) -> list[Plateau]:
    """Join neighbouring plateaus at the same level that one or two stray points split.

    The stray points are left out of the joined plateau's median.
    """
    merged: list[Plateau] = []
    for p in plateaus:
        if merged:
            q = merged[-1]
            same_level = max(p.value, q.value) / min(p.value, q.value) <= 1 + tolerance
            if p.first - q.last <= 3 and same_level:
                run = values[q.first : q.last + 1] + values[p.first : p.last + 1]
                merged[-1] = Plateau(q.first, p.last, float(median(run)), q.working_set_lo, sizes[p.last])
                continue
        merged.append(p)
    return merged


def first_plateau(curve: Sequence[Sequence[float]]) -> Plateau | None:
    """The plateau at the smallest working sets: the cache closest to the SMs that the loads use."""
    found = find_plateaus(curve)
    return found[0] if found else None


def last_plateau(curve: Sequence[Sequence[float]]) -> Plateau | None:
    """The plateau that reaches the largest working set measured: device memory.

    None unless it ends at the curve's last point (the sweep must go past every cache).
    """
    found = find_plateaus(curve)
    if found and found[-1].last == len(curve) - 1:
        return found[-1]
    return None
