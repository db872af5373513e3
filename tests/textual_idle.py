"""The wait a Pilot test makes after a key, a resize or a pause: until the app under test has
nothing left to do, in place of Textual's ``wait_for_idle``.

Textual's ``wait_for_idle`` (textual/_wait.py) sleeps in 20 ms steps until the process's
CPU clock advanced less than 1 ms over one step: at least 20 ms per pause, 40 ms per key
(``App._press_keys`` waits twice after each), whatever the app had to do. The suite
presses thousands of keys, so its Pilot tests spent most of their wall time asleep, and
the suite ran two workers per core to fill those sleeps (one per core since this wait:
tests/conftest.py). It is also a guess: a timer due later than the steps (the explorer's
60 ms redraw debounce) was waited for only when a step happened to be long enough.

Every key, pause and screenshot also waited for ``Pilot._wait_for_screen``: one callback
handed to each widget on the screen (~0.35 ms of CPU per widget, 61 widgets in the
explorer, once per key and seven times per screenshot), which shows that each widget
handled what was queued before it. The loop with nothing ready shows the same for every
widget at once, so that wait is replaced too.

``until_idle`` asks the event loop instead. It returns once, at the same moment:
- no callback is ready to run (every message, ``call_later`` and ``call_after_refresh``
  the keys caused has run, and those they caused in turn);
- no timer is due within ``HORIZON_S`` (Textual's timers, its animation frames, the
  app's own debounce: each is waited for until it has fired and what it caused has
  run). The screen's update timer (a repaint asked for, due 1/60 s after) is not waited
  for: its refresh is done at once, as ``Pilot.pause`` does after its wait;
- while a worker of the app is pending or running, no other thread of the process is
  running or ready to run (Linux's state of each thread, /proc/self/task/*/stat): a
  thread worker, the explorer's load, runs outside the loop and posts what it made to it
  when done. A thread that waits (an idle executor thread, a worker a test holds back,
  pytest-xdist's channel) is not waited for; one that computes is, even while the
  machine's load keeps it off the CPU, where Textual's CPU clock would take it for idle.
As Textual's wait, it gives up after ``max_sleep`` (1 s).

It reads two private attributes of asyncio's event loop (``_ready``, ``_scheduled``, both
unchanged since Python 3.4) and some of Textual's (``active_app``, a timer's ``_active``,
``_repeat`` and task, ``Screen._update_timer`` and ``_on_timer_update``; textual is
pinned in constraints.txt); ``install`` fails at once, naming what is missing, if
Textual no longer calls ``wait_for_idle`` or ``_wait_for_screen`` where they are replaced.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
import time
from typing import Any

from textual._context import active_app
from textual.pilot import Pilot
from textual.timer import Timer
from textual.worker import WorkerState

# Timers due within this are waited for: longer than any the app sets to follow a key
# (the explorer's DEBOUNCE_S, 0.06 s) and than Textual's screen update (1/60 s), shorter
# than a cursor's blink (0.5 s), which would otherwise be waited for after every key.
HORIZON_S = 0.1
# How often a running thread is looked at again.
POLL_S = 0.002
# Linux's states of a thread that is working: running or ready to run, in an
# uninterruptible wait (disk), or stopped for a moment by a tracer (a sampling profiler
# such as py-spy stops every thread of the process at each sample: the thread computes on
# once let go; read as idle, the wait ended while a worker was still busy).
WORKING = (b"R", b"D", b"t")
# The modules whose ``wait_for_idle`` is replaced: Pilot's pauses and App._press_keys.
PATCHED = ("textual.pilot", "textual.app")


def _timer_of(handle: Any) -> Any:
    """The Textual ``Timer`` whose sleep ``handle`` ends, or None: the handle wakes a
    future, whose callback wakes the timer's task, whose coroutine is ``Timer._run_timer``."""
    future = handle._args[0] if handle._args else None
    for callback, _ in getattr(future, "_callbacks", None) or ():
        task = getattr(callback, "__self__", None)
        if isinstance(task, asyncio.Task):
            frame = getattr(task.get_coro(), "cr_frame", None)
            timer = frame.f_locals.get("self") if frame is not None else None
            return timer if isinstance(timer, Timer) else None
    return None


def _waited_for(timer: Any) -> bool:
    """Whether what ``timer`` does when it fires is waited for: a plain sleep (no Textual
    timer), a ``set_timer`` (it fires once: the explorer's debounce), an animation's frames
    while one runs, the screen's update while one is asked for. Not a paused timer (its
    sleep ends in a wait for its resume), nor an interval that runs for good (a cursor's
    blink, a widget's auto-refresh): it is never done."""
    if timer is None:
        return True
    if not timer._active.is_set():
        return False
    return timer._repeat is not None or timer.name in ("Animator", "screen_update")


def _next_due(loop: Any) -> tuple[float, Any] | None:
    """The first timer due within HORIZON_S that is waited for: (seconds until it fires,
    its Textual Timer or None)."""
    now = loop.time()
    soon = [h for h in loop._scheduled if not h.cancelled() and h.when() - now <= HORIZON_S]
    for handle in sorted(soon, key=lambda handle: handle.when()):
        left = handle.when() - now
        timer = _timer_of(handle)
        if _waited_for(timer):
            return left, timer
    return None


def _working(app: Any) -> bool:
    """Whether a worker of the app is pending or running."""
    return app is not None and any(
        worker.state in (WorkerState.PENDING, WorkerState.RUNNING) for worker in app.workers
    )


def _a_thread_works() -> bool:
    """Whether a thread of this process other than this one is running or ready to run."""
    here = threading.get_native_id()
    try:
        tasks = list(os.scandir("/proc/self/task"))
    except OSError:  # not Linux: a running worker is taken as working, up to max_sleep
        return True
    for task in tasks:
        if int(task.name) == here:
            continue
        try:
            with open(f"{task.path}/stat", "rb") as stat:
                state = stat.read().rsplit(b")", 1)[1].split()[0]  # after the name, which may hold ')'
        except (OSError, IndexError):
            continue  # it ended meanwhile
        if state in WORKING:
            return True
    return False


def _screen(app: Any) -> Any:
    try:
        return app.screen
    except Exception:  # no app, or no screen yet or any more
        return None


async def until_idle(min_sleep: float = 0.0, max_sleep: float = 1.0) -> None:
    """Wait until the running app has nothing to do (see the module); the arguments are
    Textual's ``wait_for_idle``'s: ``max_sleep`` bounds the whole wait, and
    ``min_sleep`` is not needed (what it waited for is what this waits for by name)."""
    loop = asyncio.get_running_loop()
    app = active_app.get(None)
    until = time.monotonic() + max_sleep  # as Textual's wait: never longer
    while True:
        await asyncio.sleep(0)
        if time.monotonic() >= until:
            return
        if loop._ready:
            continue  # something else ran, or can: let it
        due = _next_due(loop)
        if due is not None:
            left, timer = due
            screen = _screen(app)
            if timer is not None and screen is not None and timer is screen._update_timer:
                screen._on_timer_update()  # what the update timer does when it fires
            else:
                await asyncio.sleep(max(left, 0.0))
            continue
        if _working(app) and _a_thread_works():
            await asyncio.sleep(POLL_S)
            continue
        return


async def _wait_for_screen(self: Any, timeout: float = 30.0) -> bool:
    """``Pilot._wait_for_screen``: the same wait, bounded by its timeout."""
    await until_idle(max_sleep=timeout)
    return True


def install() -> None:
    """Replace ``wait_for_idle`` where Textual's Pilot and App call it, and the Pilot's
    wait for the screen's widgets."""
    for name in PATCHED:
        module = importlib.import_module(name)
        assert hasattr(module, "wait_for_idle"), (
            f"{name} no longer calls wait_for_idle: see tests/textual_idle.py"
        )
        module.wait_for_idle = until_idle
    assert hasattr(Pilot, "_wait_for_screen"), "Pilot has no _wait_for_screen: see tests/textual_idle.py"
    Pilot._wait_for_screen = _wait_for_screen
