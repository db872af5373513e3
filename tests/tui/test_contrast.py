"""The roofline's legend and the header stay readable where colours are few: a
16-colour terminal (Rich maps each colour to the nearest of the 16) and NO_COLOR
(Textual turns each colour grey)."""

from __future__ import annotations

import pytest
from rich.color import ColorSystem
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from textual.color import Color

# WCAG 2's minimum contrast for normal text.
READABLE = 4.5


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio of two sRGB colours (w3.org/TR/WCAG21, relative luminance)."""

    def luminance(rgb: tuple[int, int, int]) -> float:
        def linear(channel: int) -> float:
            c = channel / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (linear(c) for c in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_matches_the_wcag_examples():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)  # #767676


def in_16_colours(colour):
    return colour.downgrade(ColorSystem.STANDARD).get_truecolor(DEFAULT_TERMINAL_THEME)


async def the_legend_and_header_read_in_16_colours_and_without_colour(pilot) -> None:
    """In both themes, on the explorer at 80x24: test_snapshots.py's 80x24 app runs it
    after its pictures (it leaves the light theme on)."""
    app = pilot.app
    backgrounds = set()
    for theme in ("textual-dark", "textual-light"):
        app.theme = theme
        await pilot.pause()
        backgrounds.add(app.explorer.query_one("#opened").rich_style.bgcolor)
        for widget in ("#roofline-legend", "#opened"):
            style = app.explorer.query_one(widget).rich_style
            assert not style.dim, (theme, widget)
            foreground, background = style.color, style.bgcolor
            assert contrast(in_16_colours(foreground), in_16_colours(background)) >= READABLE, (
                theme,
                widget,
            )
            grey = [Color.from_rich_color(c).monochrome.rgb for c in (style.color, style.bgcolor)]
            assert contrast(*grey) >= READABLE, (theme, widget)  # what NO_COLOR shows
    assert len(backgrounds) == 2  # the second theme did restyle the screen
