"""Steps for ``snap_compare_steps`` and ``snap_compare_sizes`` (tests/conftest.py): the keys
that bring an app to the state a picture or a check needs, and the wait a check makes
itself before it asserts (``settled``).

A step needs no waiting of its own: both fixtures wait after every step as Textual's
``snap_compare`` waits before its screenshot (every message the keys caused handled,
animations done: ``settle_for_screenshot``), and ``pilot.press`` waits after each key
until the app is idle (tests/textual_idle.py: until nothing is left to run, no timer is
due soon and no worker's thread computes). Steps that waited again before the fixture's
own wait paid for the same wait twice."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

Step = Callable[[Any], Awaitable[None]]


def pressing(*keys: str) -> Step:
    """A step that presses ``keys``."""

    async def run(pilot: Any) -> None:
        await pilot.press(*keys)

    return run


def resizing(width: int, height: int, *keys: str) -> Step:
    """A step that resizes the terminal, then presses ``keys``."""

    async def run(pilot: Any) -> None:
        await pilot.resize_terminal(width, height)
        await pilot.pause()  # the layout for the new size, before the keys
        await pilot.press(*keys)

    return run


async def settled(pilot: Any) -> None:
    """Inside a check, after keys, before what it asserts: three rounds of pending
    messages (a resize, the layout it asks for, the redraw after it)."""
    for _ in range(3):
        await pilot.pause()


async def as_it_opens(pilot: Any) -> None:
    """The first step of an app handed its data: nothing to do but the fixture's wait."""
    await pilot.pause()


def in_turn(*steps: Callable[[Any], Awaitable[None] | None]) -> Step:
    """One step that runs ``steps`` one after another, with no wait between them but what
    each step does itself: for a check (which reads a state the wait before it settled)
    followed by the keys to the next state. The fixture's wait after a step costs as much
    as a key (it hands every widget a message, several times), so a step saved is CPU
    saved."""

    async def run(pilot: Any) -> None:
        for step in steps:
            result = step(pilot)
            if inspect.isawaitable(result):
                await result

    return run
