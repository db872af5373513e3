"""The colours every view draws memory levels in: the explorer, the compare chart and the
matplotlib figures. No Textual here, so the figures can use them.

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


def hex_colour(rgb: tuple[int, int, int]) -> str:
    """``(230, 60, 60)`` -> ``"#e63c3c"``, as matplotlib takes it."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)
