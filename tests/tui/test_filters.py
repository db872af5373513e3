"""The pure filtering/sorting helpers behind the filter bar and `rooftui plot`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rooftui.analysis.filters import (
    InvalidFilter,
    KernelFilter,
    apply_filter,
    parse_count,
    parse_number,
    sort_keys,
    sort_positions,
    totals,
)
from tests.tui.synthetic import kernel_table


@pytest.fixture
def table():
    return kernel_table(repeat=2)


def names(frame):
    return list(frame["name"])


def test_empty_filter_keeps_every_row_in_order(table):
    assert apply_filter(table, KernelFilter()).index.tolist() == table.index.tolist()
    assert KernelFilter().is_empty


def test_name_substring_is_case_insensitive(table):
    kept = apply_filter(table, KernelFilter(name="GEMM"))
    assert names(kept) == ["dgemm", "wmma_gemm", "dgemm", "wmma_gemm"]


def test_substring_treats_regex_characters_literally(table):
    assert apply_filter(table, KernelFilter(name="d.*m")).empty


def test_regex_name_filter(table):
    kept = apply_filter(table, KernelFilter(name="^(daxpy|sgemv)$", regex=True))
    assert sorted(set(names(kept))) == ["daxpy", "sgemv"]


def test_invalid_regex_is_a_user_error_not_a_crash():
    with pytest.raises(InvalidFilter, match="regular expression"):
        KernelFilter(name="(unclosed", regex=True)


def test_pipeline_filter(table):
    assert set(names(apply_filter(table, KernelFilter(pipeline="fp64")))) == {"daxpy", "dgemm"}


def test_zero_ai_only_and_hide(table):
    assert set(names(apply_filter(table, KernelFilter(zero_ai="only")))) == {"memset_zero"}
    assert "memset_zero" not in names(apply_filter(table, KernelFilter(zero_ai="hide")))


def test_phase_filter(table):
    assert set(names(apply_filter(table, KernelFilter(phase="backward")))) == {"wmma_gemm", "sgemv"}


def test_ai_range_at_hbm_is_inclusive_and_skips_missing_ai(table):
    # HBM AI: daxpy 1/12, dgemm 50, wmma 500, memset 0, sgemv 0.5
    kept = apply_filter(table, KernelFilter(ai_level="hbm", ai_min=0.5, ai_max=50))
    assert set(names(kept)) == {"dgemm", "sgemv"}


def test_ai_range_at_l1_ignores_levels_without_bytes(table):
    # memset moved no L1 byte: its L1 AI is NaN and never inside a range.
    kept = apply_filter(table, KernelFilter(ai_level="l1", ai_min=0.0))
    assert "memset_zero" not in names(kept)


def test_bound_kind_and_exact_bound(table):
    memory = set(apply_filter(table, KernelFilter(bound="memory"))["bound"])
    compute = set(apply_filter(table, KernelFilter(bound="compute"))["bound"])
    assert memory and memory <= {"L1", "L2", "HBM"}
    assert "none" not in compute and not (compute & {"L1", "L2", "HBM"})
    exact = apply_filter(table, KernelFilter(bound="HBM"))
    assert set(exact["bound"]) == {"HBM"}


def test_top_n_by_time_keeps_original_order(table):
    kept = apply_filter(table, KernelFilter(top_n=3))
    # second invocations take twice as long: dgemm 10 ms, wmma 8 ms, sgemv 6 ms
    assert names(kept) == ["dgemm", "wmma_gemm", "sgemv"]
    assert list(kept.index) == sorted(kept.index)


def test_filters_combine(table):
    kept = apply_filter(table, KernelFilter(zero_ai="hide", phase="forward", top_n=1))
    assert names(kept) == ["dgemm"] and kept["time_s"].iloc[0] == pytest.approx(10e-3)


def sort_rows(frame, column, descending):
    """``frame`` sorted the way the explorer and ``plot --sort`` sort (sort_keys, sort_positions)."""
    return frame.iloc[sort_positions(sort_keys(frame[column]), np.arange(len(frame)), descending)]


def test_sort_by_time_descending_then_ascending(table):
    assert sort_rows(table, "time_s", descending=True)["time_s"].iloc[0] == pytest.approx(10e-3)
    assert sort_rows(table, "time_s", descending=False)["time_s"].iloc[0] == pytest.approx(1e-3)


def test_text_of_whole_numbers_sorts_by_number_and_blanks_go_last():
    import pandas as pd

    ranks = pd.Series(["10", "2", "", "0", "1", "2"])
    frame = pd.DataFrame({"rank": ranks})
    assert list(sort_rows(frame, "rank", descending=False)["rank"]) == ["0", "1", "2", "2", "10", ""]
    assert list(sort_rows(frame, "rank", descending=True)["rank"])[:4] == ["10", "2", "2", "1"]
    mixed = pd.DataFrame({"rank": pd.Series(["10", "2", "a"])})  # not all numbers: as text
    assert list(sort_rows(mixed, "rank", descending=False)["rank"]) == ["10", "2", "a"]


def test_sort_by_name_is_alphabetical_both_ways(table):
    ascending = names(sort_rows(table, "name", descending=False))
    assert ascending == sorted(ascending)
    assert names(sort_rows(table, "name", descending=True)) == sorted(ascending, reverse=True)


def test_sort_puts_missing_ai_last_in_both_directions(table):
    for descending in (False, True):
        ai = sort_rows(table, "ai_l1", descending)["ai_l1"].tolist()
        assert all(math.isnan(v) for v in ai[-2:]) and not any(math.isnan(v) for v in ai[:-2])


def test_totals_count_invocations_time_and_zero_ai_share(table):
    t = totals(table)
    assert (t.rows, t.invocations, t.zero_ai_rows, t.zero_ai_invocations) == (10, 10, 2, 2)
    assert t.time_s == pytest.approx(3 * 15e-3)
    assert t.zero_ai_time_s == pytest.approx(3e-3)


def test_totals_of_grouped_rows_use_count(table):
    grouped = table.assign(count=3)
    assert totals(grouped).invocations == 30


def test_top_n_keeps_the_heaviest(table):
    assert set(names(apply_filter(table, KernelFilter(top_n=2)))) == {"dgemm", "wmma_gemm"}


def test_parse_number_and_count_reject_text():
    assert parse_number(" 1e-2 ", "AI min") == pytest.approx(0.01)
    assert parse_number("", "AI min") is None
    assert parse_count("20", "top N") == 20
    for bad in ("abc", "nan", "inf", "__import__('os')"):
        with pytest.raises(InvalidFilter):
            parse_number(bad, "AI min")
    for bad in ("0", "-3", "2.5", "x"):
        with pytest.raises(InvalidFilter):
            parse_count(bad, "top N")
