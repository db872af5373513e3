"""``rooftui.model.frames.heaviest_rows``: the launch a group's columns come from."""

import math

import pandas as pd

from rooftui.model.frames import heaviest_rows


def test_each_group_gets_its_longest_launch_or_its_first_when_none_has_a_time():
    frame = pd.DataFrame(
        {
            "name": ["a", "b", "a", "a", "b", None, "c"],
            "device": ["g", "g", "g", "g", "g", "g", "g"],
            "time_s": [1.0, math.nan, 3.0, math.nan, math.nan, 2.0, 5.0],
        },
        index=[10, 11, 12, 13, 14, 15, 16],
    )
    rows = heaviest_rows(frame, ["device", "name"])
    # a: 3.0 at 12 (a blank time never wins); b: no time at all, its first launch, 11;
    # the launch with no name is a group of its own; c: its only launch
    assert list(rows) == [12, 11, 15, 16]


def test_a_tie_goes_to_the_first_launch():
    frame = pd.DataFrame({"name": ["a", "a"], "time_s": [2.0, 2.0]}, index=[7, 3])
    assert list(heaviest_rows(frame, ["name"])) == [7]
