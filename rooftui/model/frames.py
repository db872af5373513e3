"""Small pandas helpers shared by the layers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd


def map_unique(column: pd.Series, function: Callable[[Any], Any]) -> pd.Series:
    """``column.map(function)``, calling ``function`` once per distinct value."""
    mapping = {value: function(value) for value in column.unique()}
    return column.map(mapping)
