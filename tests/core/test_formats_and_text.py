"""The one place for durations, SI prefixes, JSON cleaning and text shortening."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from rooftui.views.formats import json_safe, seconds, si
from rooftui.views.text import shorten


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.5, "2.5 s"),
        (0.00468, "4.68 ms"),
        (91.4e-6, "91.4 µs"),
        (850e-9, "850 ns"),
        (0.0, "0 s"),
        (None, ""),
        (math.nan, ""),
        (math.inf, ""),
    ],
)
def test_seconds_keep_three_digits_in_the_unit_that_fits(value, text):
    assert seconds(value) == text


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (4.8e12, "B/s", "4.8 TB/s"),
        (1.979e15, "FLOP/s", "1.98 PFLOP/s"),
        (512.0, "B", "512 B"),
        (1234.0, "", "1.23 k"),
    ],
)
def test_si_prefixes(value, unit, text):
    assert si(value, unit) == text


def test_json_safe_turns_every_missing_number_into_null_and_numpy_into_python():
    doc = {"a": np.float64("nan"), "b": [np.int64(3), math.inf, pd.NA, None], 1: (np.bool_(True), "x")}
    cleaned = json_safe(doc)
    assert cleaned == {"a": None, "b": [3, None, None, None], "1": [True, "x"]}
    assert json.loads(json.dumps(cleaned, allow_nan=False)) == cleaned  # strict JSON


@pytest.mark.parametrize(
    ("text", "width", "cut"),
    [
        ("volta_sgemm_128x64_nn", 8, "volta_s…"),
        ("short", 8, "short"),
        ("exactly8", 8, "exactly8"),
        ("abc", 1, "…"),
        ("abc", 0, ""),
    ],
)
def test_shorten_keeps_width_characters_with_the_ellipsis_last(text, width, cut):
    assert shorten(text, width) == cut
    assert len(shorten(text, width)) <= max(width, 0)


def test_shorten_in_ascii_mode_uses_the_given_ellipsis():
    assert shorten("elementwise_kernel", 6, "~") == "eleme~"


def test_a_missing_value_is_what_the_caller_says_blank_unless_told():
    from rooftui.views.formats import intensity, number, percent

    for gone in (None, float("nan"), math.inf):
        assert [si(gone), seconds(gone), percent(gone), number(gone), intensity(gone)] == [""] * 5
        assert si(gone, "B", missing="–") == seconds(gone, missing="–") == "–"
    assert si(0.0, "B", missing="–") == "0 B" and seconds(0.0, missing="–") == "0 s"  # zero is a value


def test_the_cli_and_the_explorer_write_intensity_each_its_own_way():
    from rooftui.views.formats import intensity, intensity_with_magnitude

    # the CLI's tables: at most 5 characters; the explorer's table sorts by AI, so magnitude stays
    assert [intensity(v) for v in (1.53e-4, 0.0833, 22.4, 1.06e6)] == ["<.001", "0.083", "22", "1060000"]
    assert [intensity_with_magnitude(v) for v in (1.53e-4, 0.0833, 22.4, 1.06e6)] == [
        "1.53e-04",
        "0.0833",
        "22.4",
        "1.06e+06",
    ]
