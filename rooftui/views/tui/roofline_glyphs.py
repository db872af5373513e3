"""What the roofline's cells are drawn with — no Textual: the characters of each mode
(braille or ASCII), the markers of each kind of point, the dash pattern of each slope
and the style name of each kind of point. ``roofline_layout`` decides where they go.

Slopes differ by pattern too (L1 solid, L2 dashed, HBM dotted) and, in ASCII, by
character, so they stay apart without colour (``NO_COLOR``), as in the matplotlib
figure (``rooftui.views.figure``).
"""

from __future__ import annotations

from dataclasses import dataclass

# Braille dot bits by [sub-row][sub-column] (Unicode's braille patterns block).
DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
BRAILLE = 0x2800

# Dash patterns, by step along the line (sub-cell steps; whole cells in ASCII).
PATTERNS = {
    "solid": lambda k: True,
    "dashed": lambda k: k % 6 < 4,
    "dotted": lambda k: k % 3 == 0,
    "dashdot": lambda k: k % 8 < 4 or k % 8 == 6,
}
SLOPE_PATTERN = {"l1": "solid", "l2": "dashed", "hbm": "dotted", "smem": "dashdot"}


@dataclass(frozen=True)
class Glyphs:
    """The characters of one mode; ``ascii`` draws lines one character per cell."""

    ascii: bool
    markers: dict  # emphasis -> level -> character
    selected: str
    slope: dict  # level -> line character (ASCII mode)
    roofs: tuple[str, ...]  # compute roof line characters, highest roof first (ASCII mode)
    axis: dict  # "v", "h", "corner", "ytick", "xtick"
    y_title: str = "FLOP/s"
    x_title: str = "arithmetic intensity (FLOP/byte)"
    x_title_short: str = "AI (FLOP/byte)"


UNICODE = Glyphs(
    ascii=False,
    markers={
        "heavy": {"l1": "●", "l2": "■", "hbm": "▲", "smem": "◉", "global": "◇", "shared": "□"},
        "normal": {"l1": "•", "l2": "▪", "hbm": "▴", "smem": "◦", "global": "◦", "shared": "▫"},
        "merged": {"l1": "·", "l2": "·", "hbm": "·", "smem": "·"},
        "below": {"l1": "▾", "l2": "▾", "hbm": "▾", "smem": "▾"},
        # The compare chart: a kernel in run A (hollow) and in run B (filled, its level's
        # colour); the pair chosen in its list ends in the selected kernel's glyph.
        "side-a": {"l1": "○", "l2": "○", "hbm": "○", "smem": "○"},
        "side-b": {"l1": "●", "l2": "●", "hbm": "●", "smem": "●"},
        "chosen-a": {"l1": "○", "l2": "○", "hbm": "○", "smem": "○"},
        "chosen-b": {"l1": "◆", "l2": "◆", "hbm": "◆", "smem": "◆"},
        # An L1 point whose traffic went around L1 (TMA: model.shared_memory.l1_bypassed),
        # drawn on the right edge instead of at its meaningless AI.
        "bypassed": {"l1": "▸", "l2": "▸", "hbm": "▸", "smem": "▸"},
    },
    selected="◆",
    slope={},
    roofs=(),
    axis={"v": "│", "h": "─", "corner": "└", "ytick": "┤", "xtick": "┬"},
)
ASCII = Glyphs(
    ascii=True,
    markers={
        "heavy": {"l1": "O", "l2": "#", "hbm": "A", "smem": "S", "global": "G", "shared": "S"},
        "normal": {"l1": "o", "l2": "+", "hbm": "^", "smem": "s", "global": "g", "shared": "s"},
        "merged": {"l1": ".", "l2": ".", "hbm": ".", "smem": "."},
        "below": {"l1": "v", "l2": "v", "hbm": "v", "smem": "v"},
        "side-a": {"l1": "o", "l2": "o", "hbm": "o", "smem": "o"},
        "side-b": {"l1": "*", "l2": "*", "hbm": "*", "smem": "*"},
        "chosen-a": {"l1": "o", "l2": "o", "hbm": "o", "smem": "o"},
        "chosen-b": {"l1": "@", "l2": "@", "hbm": "@", "smem": "@"},
        # An L1 point whose traffic went around L1 (TMA: model.shared_memory.l1_bypassed),
        # drawn on the right edge instead of at its meaningless AI.
        "bypassed": {"l1": ">", "l2": ">", "hbm": ">", "smem": ">"},
    },
    selected="@",
    # Distinct from each other and from every point marker.
    slope={"l1": "/", "l2": ":", "hbm": "'", "smem": ";"},
    roofs=("=", "-", "~", "_", '"'),
    axis={"v": "|", "h": "-", "corner": "+", "ytick": "+", "xtick": "+"},
)

# Marker per level and emphasis (the glyphs above), the selected kernel's, and the
# character lines are drawn with where a chart asks for one (braille, "." in ASCII).
UNICODE_MARKERS = {**UNICODE.markers, "selected": UNICODE.selected, "line": "braille"}
ASCII_MARKERS = {**ASCII.markers, "selected": ASCII.selected, "line": "."}

# The style of each kind of point ("{level}": the point's level); others are "point:{level}".
POINT_STYLES = {
    "merged": "merged:{level}",
    "side-a": "compare-a",
    "chosen-a": "selected-line",
    "chosen-b": "selected-line",
}
