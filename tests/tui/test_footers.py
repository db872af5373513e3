"""Footers fit at 80 columns: every key the explorer's footer offers stays in view, with
or without a trace (``t``); the help screen's footer offers no "? help" (``?`` closes
it there) and the help names keys as they are typed."""

from __future__ import annotations

from tests.tui.conftest import TRACE, loaded, screen_text

KEYS = ["/ find", "f filter", "g group", "d detail", "s summary", "e svg", "c csv", "q quit", "? help"]


async def test_every_footer_key_is_in_view_with_a_trace(sample_app):
    # one app, resized: the footer packs its keys closer when it is redrawn for a size
    # (on_resize), at the start as after a resize
    app = sample_app(trace=TRACE)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        for size in ((80, 24), (120, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            footer = screen_text(app).splitlines()[-1]
            assert len(footer) <= size[0]
            for key in [*KEYS, "t timeline"]:
                assert key in footer, (size, key, footer)
            await pilot.press("question_mark")
            await pilot.pause()
            text = screen_text(app)
            footer = text.splitlines()[-1]
            assert "esc close" in footer and "help" not in footer
            for name in ("full_stop", "comma", "question_mark", "slash", "square_bracket"):
                assert name not in text
            await pilot.press("question_mark")  # closes it
            await pilot.pause()
            assert type(app.screen).__name__ == "ExplorerScreen"
