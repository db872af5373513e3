"""Dialogs, toasts, checkboxes and the timeline in ASCII draw no box-drawing or block
character, and a checkbox says ticked or not with its character, in ASCII and in Unicode
(NO_COLOR leaves only the character to tell them apart)."""

from __future__ import annotations

from rooftui.views.tui.ascii import box
from tests.tui.conftest import loaded, open_the_timeline, screen_text


def non_ascii(text: str) -> list[str]:
    return sorted({ch for ch in text if ord(ch) > 127})


def test_a_box_reads_ticked_or_not_without_colour_in_both_modes():
    assert (box(True, True), box(False, True)) == ("[X]", "[ ]")
    assert (box(True, False), box(False, False)) == ("▐X▌", "▐ ▌")


async def test_two_dialogs_a_toast_a_checkbox_and_the_timeline_in_ascii(sample_app):
    # one app, with a trace: the dialogs, a toast, the filter bar's checkbox and the
    # timeline opened from the explorer (test_ascii.py: the timeline on its own). The same
    # in Unicode, in the apps that already open them: the export dialog's words and the
    # compute roofs' boxes in test_keys.py (export, compute roofs dialog), the timeline's
    # finding in test_keys.py (t), the regex box in test_explorer.py, the toast's words in
    # test_explorer.py (number keys)
    ascii_mode = True
    from textual.widgets import Checkbox

    from rooftui.views.tui.screens.timeline import TimelineScreen
    from tests.tui.conftest import TRACE

    app = sample_app(ascii_mode=ascii_mode, trace=TRACE)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await loaded(pilot)
        await pilot.press("e")
        await pilot.pause()
        text = screen_text(app)
        assert "Save SVG of this view to:" in text and "rooftui-view.svg" in text
        if ascii_mode:
            assert non_ascii(text) == [] and "enter save | esc cancel | F1 keys" in text
        await pilot.press("escape", "p")
        await pilot.pause()
        await pilot.press("space")  # the first roof, FP64, unticked
        await pilot.pause()
        text = screen_text(app)
        assert f"{box(False, ascii_mode)} FP64" in text and f"{box(True, ascii_mode)} FP32" in text
        if ascii_mode:
            assert non_ascii(text) == []
        await pilot.press("escape", "1")  # a toast: the memory levels shown
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "memory levels on the roofline" in text
        if ascii_mode:
            assert non_ascii(text) == []
        await pilot.press("1", "f")  # the filter bar, hidden at 24 rows, with its checkbox
        await pilot.pause()
        assert f"{box(False, ascii_mode)} regex" in screen_text(app)
        app.explorer.query_one("#filter-regex", Checkbox).value = True
        await pilot.pause()
        assert f"{box(True, ascii_mode)} regex" in screen_text(app)
        app.explorer.query_one("#filter-regex", Checkbox).value = False
        await pilot.press("escape")
        # the trace is analysed first; its toast in ASCII too
        said = await open_the_timeline(pilot)
        assert said == ["analysing naive.json.gz" + ("..." if ascii_mode else "…")]
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("enter")  # a finding: its marker and detail
        await pilot.pause()
        text = screen_text(app)
        assert "GPU idle" in text
        if ascii_mode:
            assert "#" in text and non_ascii(text) == []  # the Gantt, in ASCII shades
            await pilot.press("question_mark")
            await pilot.pause()
            assert non_ascii(screen_text(app)) == []
