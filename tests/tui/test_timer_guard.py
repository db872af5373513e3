"""A timer asked to fire in the past fires at once, and a toast built from a notification
that ran out a moment before goes away, instead of freezing the app
(rooftui/views/tui/timer_guard.py).

A frozen app never returns to the event loop, so no asyncio timeout could end these
tests: an interval timer's signal (SIGALRM, delivered to the main thread, where pytest
and its xdist workers run tests) ends the spinning instead, and says so."""

from __future__ import annotations

import contextlib
import signal

import pytest
from textual.app import App, ComposeResult
from textual.notifications import Notification
from textual.timer import Timer
from textual.widgets import Static
from textual.widgets._toast import Toast

from rooftui.views.tui.base_app import RooftuiBaseApp
from rooftui.views.tui.screens.explorer import ExplorerScreen
from rooftui.views.tui.screens.help import HelpScreen
from tests.tui.conftest import loaded, screen_text

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM to end a frozen app")


class Frozen(Exception):
    """Raised by the alarm in whatever runs when it goes off: the spinning timer, whose
    task then ends with it (asyncio keeps a task's exception), which frees the loop."""


@contextlib.contextmanager
def alarm(seconds: float):
    """Raise ``Frozen`` in the main thread after ``seconds``, unless the block ended;
    yields a list that holds True once the alarm went off."""
    rang: list[bool] = []

    def ring(signum, frame):
        rang.append(True)
        raise Frozen

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield rang
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Late(App):
    """Shows a toast for a notification that ran out 10 ms before the toast was built
    (``toast``), or sets a timer 10 ms in the past (``past``) or due now (``now``); then
    counts a key."""

    def __init__(self, late: str) -> None:
        super().__init__()
        self.late = late
        self.fired = False
        self.keys = 0

    def compose(self) -> ComposeResult:
        yield Static("x")

    def on_mount(self) -> None:
        if self.late in ("past", "now"):
            self.set_timer(-0.01 if self.late == "past" else 0, lambda: setattr(self, "fired", True))
        else:
            notification = Notification("late", timeout=2)
            notification.raised_at -= 2.01
            self.mount(Toast(notification))

    def on_key(self) -> None:
        self.keys += 1


async def run_late(late: str | Late) -> Late:
    app = Late(late) if isinstance(late, str) else late
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
    return app


def test_importing_the_apps_base_installs_the_guard():
    assert RooftuiBaseApp is not None  # importing it installed the guard
    assert getattr(Timer.__init__, "rooftui_guard", False)


@pytest.mark.parametrize("late", ["past", "now", "toast"])
async def test_what_was_due_in_the_past_happens_at_once_and_the_app_answers_keys(late):
    with alarm(10) as rang:  # far longer than the app needs (~0.1 s): only a frozen app
        app = await run_late(late)
    assert not rang
    assert app.keys == 1
    if late != "toast":
        assert app.fired
    else:
        assert not app.query(Toast)  # expired at once, removed


async def test_help_opened_as_the_explorers_toast_runs_out_opens_and_closes(sample_app, monkeypatch):
    # ``1`` says which memory levels are shown in a toast; ``?`` builds the help screen's
    # toasts. The race, made certain: the toast's notification passes the check as not
    # expired, and its time left, read a moment later, is past its end.
    app = sample_app()
    with alarm(20) as rang:
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await loaded(pilot)
            await pilot.press("1")
            assert "memory levels on the roofline" in screen_text(app)
            monkeypatch.setattr(Notification, "has_expired", property(lambda self: False))
            monkeypatch.setattr(Notification, "time_left", property(lambda self: -0.01))
            await pilot.press("question_mark")
            helped = isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            back = isinstance(app.screen, ExplorerScreen)
            await pilot.pause()
            toasts_left = len(app.screen.query(Toast))
    assert not rang
    assert helped and back
    assert toasts_left == 0  # each expired at once, on either screen


async def test_textual_still_freezes_on_a_past_timer_and_drops_one_due_now_without_the_guard():
    """Fails once Textual's own timers fire these: the guard can then go."""
    guarded = Timer.__init__
    Timer.__init__ = guarded.__wrapped__  # Textual's own
    try:
        past = Late("past")
        # the timer's task ended by the alarm: its Frozen may surface as the app closes
        with alarm(0.5) as rang, contextlib.suppress(Frozen):
            await run_late(past)
        # due now: never fired, the timer's task ends in ZeroDivisionError, raised as
        # the app closes and awaits it
        with alarm(10) as rang_now, pytest.raises(ZeroDivisionError):
            await run_late("now")
    finally:
        Timer.__init__ = guarded
    assert rang and not past.fired  # frozen until the alarm ended the timer's task
    assert not rang_now
