"""A Textual timer asked to fire in the past fires at once instead of freezing the app.

Textual 8 (8.2.8, and its main branch as of 2026-06-30) loops for ever, at 100% CPU and
without returning to the event loop, in a timer whose delay is negative: a lagging
timer skips ahead by ``count = int((now - start) / interval + 1)``, which a negative
interval makes negative, so the timer never ends (``textual/timer.py``, ``Timer._run``).
Textual makes such a timer itself: a toast's timer is its notification's time left,
read when the toast is built, and a screen that opens builds toasts for every
notification that had not expired a moment before. A screen opened as a toast runs out
(``?`` two seconds after ``1``), with a garbage collection or the machine's load in
between, froze the whole app. The suite saw it once, with every test slowed by a
profiling plugin: a worker spun for 38 minutes in the ASCII dialogs test.

A one-shot timer whose delay has passed by its first look at the clock is skipped the
same way, so never fired; with a delay of 0 that look divides by zero instead (the
timer's task ends in ZeroDivisionError, its callback never called).

``asyncio.sleep`` and ``loop.call_later`` take a delay in the past as "now"; so does a
Textual timer once ``guard_timers`` ran: a one-shot timer (``set_timer``) does not skip,
so a late one fires late rather than never, and a negative delay becomes 0 (fired at
once). Intervals (``set_interval``) and every other argument are passed on unchanged.
``textual.timer.Timer`` and its arguments are public API.
"""

from __future__ import annotations

import functools
from typing import Any

from textual.timer import Timer


def guard_timers() -> None:
    """Make every one-shot Textual timer of this process fire, late or at once, rather
    than freeze or never fire (installed once; ``RooftuiBaseApp``'s module calls it)."""
    if getattr(Timer.__init__, "rooftui_guard", False):
        return
    unguarded = Timer.__init__

    @functools.wraps(unguarded)
    def init(self: Timer, event_target: Any, interval: float, **options: Any) -> None:
        if options.get("repeat") == 0:  # one shot
            interval, options["skip"] = max(interval, 0.0), False
        unguarded(self, event_target, interval, **options)

    init.rooftui_guard = True  # type: ignore[attr-defined]
    Timer.__init__ = init  # type: ignore[method-assign]
