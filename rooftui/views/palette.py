"""The colours every view draws in: memory levels and the other series of the explorer,
the compare chart and the matplotlib figures. No Textual here, so the figures can use them.

The paper's convention (Wang, Yang, Williams et al., Fig. 2 onwards): L1 red, L2 green,
HBM blue; shared memory (SMEM, not in the paper) purple.
"""

from __future__ import annotations

LEVEL_COLOURS: dict[str, tuple[int, int, int]] = {
    "l1": (230, 60, 60),
    "l2": (60, 190, 80),
    "hbm": (60, 140, 230),
    "smem": (170, 90, 220),
}
# The instruction roofline's wall series (views.tui.instruction_figure).
WALL_SERIES_COLOURS: dict[str, tuple[int, int, int]] = {
    "global": (190, 120, 230),
    "shared": (230, 160, 40),
}
# Every series a roofline draws points of, in one place for the widgets and figures.
SERIES_COLOURS = {**LEVEL_COLOURS, **WALL_SERIES_COLOURS}
# The explorer's merged points (many kernels in one cell): their series' colour, dimmer.
MERGED_COLOURS: dict[str, tuple[int, int, int]] = {
    "l1": (140, 50, 50),
    "l2": (40, 110, 50),
    "hbm": (40, 80, 140),
    "smem": (100, 55, 130),
    "global": (115, 70, 140),  # the instruction roofline's wall series
    "shared": (140, 95, 25),
}
# The selected kernel (black on it in the explorer) and the compare chart's run A
# points and arrows.
SELECTED_COLOUR = (255, 215, 0)
A_COLOUR = (150, 150, 150)


def hex_colour(rgb: tuple[int, int, int]) -> str:
    """``(230, 60, 60)`` -> ``"#e63c3c"``, as matplotlib takes it."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def rgb(colour: tuple[int, int, int]) -> str:
    """A colour triplet as a Rich/Textual style: (230, 60, 60) -> "rgb(230,60,60)"."""
    return "rgb({},{},{})".format(*colour)
