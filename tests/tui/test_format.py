"""Display formatting: base units in, short text out."""

from __future__ import annotations

from rooftui.views.formats import decade, intensity_with_magnitude, percent, seconds, si
from rooftui.views.tui.format import MISSING, ascii_safe


def test_si_prefixes_and_a_dash_for_missing_values():
    assert si(4.8e12, "B/s", missing=MISSING) == "4.8 TB/s"
    assert si(1.32119e14, "B/s", missing=MISSING) == "132 TB/s"
    assert si(6.6e13, "FLOP/s", missing=MISSING) == "66 TFLOP/s"
    assert si(0, "B", missing=MISSING) == "0 B"
    assert si(float("nan"), missing=MISSING) == "–"


def test_durations_pick_a_short_unit():
    assert seconds(1.5, missing=MISSING) == "1.5 s"
    assert seconds(0.00123, missing=MISSING) == "1.23 ms"
    assert seconds(108e-6, missing=MISSING) == "108 µs"
    assert seconds(5e-9, missing=MISSING) == "5 ns"


def test_intensity_percent_and_decades():
    assert intensity_with_magnitude(0.0833333, missing=MISSING) == "0.0833"
    assert intensity_with_magnitude(1.06188e6, missing=MISSING) == "1.06e+06"
    assert intensity_with_magnitude(0.0, missing=MISSING) == "0"
    assert percent(0.0612, missing=MISSING) == "6.1%"
    assert [decade(e) for e in (-5, -3, -1, 0, 3, 12, 15)] == [
        "1e-5",
        "0.001",
        "0.1",
        "1",
        "1k",
        "1T",
        "1P",
    ]


def test_ascii_safe_replaces_every_glyph_rooftui_prints():
    # a cut ends in "...": "~" means FP16 approximate, as in `rooftui summary`
    assert ascii_safe("108 µs · 2.5× – ▲▼ …") == "108 us | 2.5x - ^v ..."
