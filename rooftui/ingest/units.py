"""ncu's unit labels -> factors to rooftui's base units (second, byte, cycle, Hz, ...).

ncu prints auto-scaled units by default (``Kbyte``, ``usecond``, ``Ghz``, ...) and
base ones with ``--print-units base`` (``byte``, ``ns``/``nsecond``, ``hz``).
Inside rooftui every time is in nanoseconds until the model turns it into
seconds, every size in bytes, every rate per second or per cycle.
"""

from __future__ import annotations

import re

_TIME = {
    "ns": 1.0,
    "nsecond": 1.0,
    "us": 1e3,
    "usecond": 1e3,
    "ms": 1e6,
    "msecond": 1e6,
    "s": 1e9,
    "second": 1e9,
}
_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
# ncu's count units: the scaled ones, and counts it never prefixes (block, SM, pass...)
_SCALED = re.compile(
    r"^(?P<prefix>[kKmMgGtTpP]?)(?P<base>byte|hz|cycle|inst|warp|sector|request|op|flop"
    r"|block|thread|register|cluster|sm|pass)"
    r"(?P<rest>(/.*)?)$",
    re.IGNORECASE,
)


def factor(unit: str) -> float | None:
    """The factor that turns a value printed in ``unit`` into base units.

    ``None`` means the unit is not one rooftui knows how to scale.
    """
    unit = (unit or "").strip()
    if not unit or unit in ("%", "#"):
        return 1.0
    if unit in _TIME:
        return _TIME[unit]
    numerator, _, denominator = unit.partition("/")
    if numerator == "%":  # "%/register": a percentage per something, never prefixed
        return 1.0
    match = _SCALED.match(numerator)
    if match is None:
        return None
    scale = _PREFIX[match.group("prefix").lower()]
    if not denominator:
        return scale
    if denominator in ("second", "s"):
        return scale
    if denominator in _TIME:  # e.g. byte/nsecond -> byte/second
        return scale * 1e9 / _TIME[denominator]
    scaled = _SCALED.match(denominator)
    if scaled and not scaled.group("prefix"):
        return scale  # per cycle, per inst, ...
    return None


def to_base(value: float, unit: str) -> float:
    """``value`` printed in ``unit``, in base units (unknown units pass through)."""
    f = factor(unit)
    return value if f is None else value * f


def nanoseconds_per(unit: str) -> float | None:
    """How many nanoseconds one ``unit`` of time is ("ns" 1, "usecond" 1e3); None if not a time."""
    return _TIME.get((unit or "").strip())
