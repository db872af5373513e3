"""Steps for Pilot tests and snapshots of the compare and timeline screens: wait until a
screen has drawn what a start, a key or a resize changed (the lists filled, the chart and
legend laid out for the size)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any


async def settled(pilot: Any) -> None:
    """Three rounds of pending messages: a resize, the layout it asks for, the redraw after it."""
    for _ in range(3):
        await pilot.pause()


def pressing(*keys: str) -> Callable[[Any], Awaitable[None]]:
    """A ``run_before`` for ``snap_compare_sizes``: settle, press ``keys``, settle."""

    async def run(pilot: Any) -> None:
        await settled(pilot)
        await pilot.press(*keys)
        await settled(pilot)

    return run
