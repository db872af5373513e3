"""Dialogs, toasts and checkboxes in ASCII draw no box-drawing or block character, and a
checkbox says ticked or not with its character, in ASCII and in Unicode (NO_COLOR
leaves only the character to tell them apart)."""

from __future__ import annotations

import pytest

from rooftui.views.tui.ascii import box
from tests.tui.conftest import loaded, screen_text


def non_ascii(text: str) -> list[str]:
    return sorted({ch for ch in text if ord(ch) > 127})


def test_a_box_reads_ticked_or_not_without_colour_in_both_modes():
    assert (box(True, True), box(False, True)) == ("[X]", "[ ]")
    assert (box(True, False), box(False, False)) == ("▐X▌", "▐ ▌")


@pytest.mark.parametrize("ascii_mode", [True, False], ids=["ascii", "unicode"])
async def test_the_export_and_compute_roof_dialogs_and_a_toast(sample_app, ascii_mode):
    app = sample_app(ascii_mode=ascii_mode)
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
