"""Small pandas helpers shared by the layers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd


def map_unique(column: pd.Series, function: Callable[[Any], Any]) -> pd.Series:
    """``column.map(function)``, calling ``function`` once per distinct value."""
    mapping = {value: function(value) for value in column.unique()}
    return column.map(mapping)


def heaviest_rows(frame: pd.DataFrame, keys: list[str], column: str = "time_s") -> pd.Index:
    """The label of each group's row with the largest ``column`` (``groupby(keys)``, NaN
    keys kept as groups, in their order of first appearance); a group whose ``column`` is
    blank on every row (launches ncu could not replay) gets its first row, so it keeps its
    name, GPU and compute capability rather than vanishing from what groups by them.
    (pandas 3's ``idxmax`` raises on an all-blank group; pandas 2 gave NaN.)"""
    values = frame[column].astype(float).fillna(-np.inf)
    by = [frame[key] for key in keys]
    return pd.Index(values.groupby(by, sort=False, dropna=False).idxmax())
