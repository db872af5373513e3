"""The suite's wait after a key (tests/textual_idle.py, installed by tests/conftest.py) ends
only once what the key caused is done: a timer it set, a repaint it asked for, a thread
it started; and it ends although an interval (a cursor's blink, an auto-refresh) runs
for good."""

from __future__ import annotations

import time

import textual.app
import textual.pilot
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from tests import textual_idle


class Keys(App):
    """``t`` sets a flag after a 90 ms timer (longer than Textual's own wait after a key,
    40 ms, and within HORIZON_S); ``w`` sets it from a thread worker that works 50 ms;
    ``s`` changes the text on screen. An interval ticks every 50 ms throughout."""

    BINDINGS = [Binding("t", "timer"), Binding("w", "worker"), Binding("s", "show")]

    def __init__(self) -> None:
        super().__init__()
        self.flag = ""
        self.ticks = 0

    def compose(self) -> ComposeResult:
        yield Static("before", id="text")

    def on_mount(self) -> None:
        self.set_interval(0.05, self.tick)

    def tick(self) -> None:
        self.ticks += 1

    def action_timer(self) -> None:
        self.set_timer(0.09, lambda: setattr(self, "flag", "timer"))

    def action_worker(self) -> None:
        self.run_worker(self.busy, thread=True)

    def action_show(self) -> None:
        self.query_one("#text", Static).update("after")

    def busy(self) -> None:
        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass
        self.call_from_thread(setattr, self, "flag", "worker")


def test_the_wait_is_the_one_pilot_and_app_call():
    assert textual.pilot.wait_for_idle is textual_idle.until_idle
    assert textual.app.wait_for_idle is textual_idle.until_idle
    assert textual.pilot.Pilot._wait_for_screen is textual_idle._wait_for_screen


async def test_a_key_is_done_with_its_timer_its_thread_and_its_repaint():
    app = Keys()
    async with app.run_test(size=(40, 6)) as pilot:
        await pilot.press("t")
        assert app.flag == "timer"
        await pilot.press("w")
        assert app.flag == "worker"
        await pilot.press("s")
        # drawn without a pause: the screen's update ran within the key's wait
        assert "after" in "".join(strip.text for strip in app.screen._compositor.render_strips())
        # The interval was not waited for: the six waits of three keys would each have
        # lasted until max_sleep (1 s), 20 ticks each.
        assert app.ticks < 40
