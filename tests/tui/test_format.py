"""Display formatting: base units in, short text out."""

from __future__ import annotations

from rooftui.views.tui.format import ascii_safe, decade, duration, intensity, percent, si


def test_si_prefixes_and_a_dash_for_missing_values():
    assert si(4.8e12, "B/s") == "4.8 TB/s"
    assert si(1.32119e14, "B/s") == "132 TB/s"
    assert si(6.6e13, "FLOP/s") == "66 TFLOP/s"
    assert si(0, "B") == "0 B"
    assert si(float("nan")) == "–"


def test_durations_pick_a_short_unit():
    assert duration(1.5) == "1.5 s"
    assert duration(0.00123) == "1.23 ms"
    assert duration(108e-6) == "108 µs"
    assert duration(5e-9) == "5 ns"


def test_intensity_percent_and_decades():
    assert intensity(0.0833333) == "0.0833"
    assert intensity(1.06188e6) == "1.06e+06"
    assert intensity(0.0) == "0"
    assert percent(0.0612) == "6.1%"
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
