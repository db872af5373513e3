import numpy as np

from rooftui.timeline.intervals import IntervalSet


def test_overlapping_intervals_merge_into_disjoint_ones():
    busy = IntervalSet(np.array([5.0, 0.0, 1.0, 10.0, 2.5]), np.array([6.0, 2.0, 3.0, 12.0, 2.6]))
    assert busy.starts.tolist() == [0.0, 5.0, 10.0]
    assert busy.ends.tolist() == [3.0, 6.0, 12.0]


def test_covered_time_in_windows_counts_each_moment_once():
    busy = IntervalSet(np.array([0.0, 5.0, 10.0]), np.array([3.0, 6.0, 12.0]))
    assert busy.covered(0.0, 12.0) == 6.0
    assert busy.covered(np.array([1.5, 11.0, -5.0]), np.array([5.5, 20.0, -1.0])).tolist() == [2.0, 1.0, 0.0]


def test_gaps_are_the_uncovered_parts_of_a_window():
    busy = IntervalSet(np.array([0.0, 5.0]), np.array([3.0, 6.0]))
    assert busy.gaps_within(-1.0, 8.0) == [(-1.0, 0.0), (3.0, 5.0), (6.0, 8.0)]
    assert busy.gaps_within(0.5, 2.5) == []


def test_an_empty_set_covers_nothing():
    nothing = IntervalSet(np.array([]), np.array([]))
    assert nothing.covered(0.0, 1.0) == 0.0
    assert nothing.gaps_within(0.0, 1.0) == [(0.0, 1.0)]
