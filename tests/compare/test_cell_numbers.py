"""How diff and the compare screen read a number from a cell of the comparison: one
helper (``views.compare.finite``) for both, so a missing cell is missing everywhere."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from rooftui.views.compare import change, count_text, finite, ratio
from rooftui.views.tui.compare_model import PAIR_LINES


@pytest.mark.parametrize("cell", [None, pd.NA, np.nan, math.inf, -math.inf, "fp32"])
def test_a_cell_without_a_finite_number_is_missing_never_a_number(cell):
    assert finite(cell) is None
    assert count_text(cell) == ""
    assert ratio(cell, 2.0) is None and ratio(2.0, cell) is None
    time_line = next(line for line in PAIR_LINES if line[1] == "time_s")
    assert time_line[2](cell) == "–"  # the pair detail's dash, as the explorer's


def test_b_against_a_is_b_over_a_and_blank_where_a_is_zero():
    assert finite(np.int64(3)) == 3.0 and finite(np.float32(0.5)) == 0.5
    assert ratio(1.0, 4.0) == 0.25 and change(ratio(1.0, 4.0)) == "-75%"
    assert ratio(5.0, 2.0) == 2.5 and change(ratio(5.0, 2.0)) == "+150%"
    assert ratio(1.0, 0.0) is None and change(ratio(1.0, 0.0)) == ""
