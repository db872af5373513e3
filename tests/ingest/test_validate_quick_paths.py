"""The readers' quick paths through ``validate`` give what its full paths give, notes included.

``identity_numbers`` takes a column pandas read as numbers as it is when every cell is
blank or a whole number in range, and a compute capability column as it is when every
distinct cell is one: on such columns and on all others it must give what reading each
cell's text gives (``_blank_bad_numbers``, ``_blank_bad_cc``). ``numeric_columns`` takes
the metric columns pandas read as numbers as one block: it must give ``numeric_cells`` of
each. ``launch_ids`` takes plain whole-number IDs as they are (the details page's text read
once per launch): they must be what reading each cell's text gives (``_launch_numbers``)."""

import itertools

import numpy as np
import pandas as pd

from rooftui.errors import InputError
from rooftui.ingest import validate

COLUMNS = {
    "whole": [0, 1, 12345, 2**53],
    "whole as floats, some blank": [0.0, np.nan, 7.0, -0.0, 2.0**53],
    "too large": [1, 2**53 + 2],
    "negative": [3, -1],
    "fractions": [1.5, 2.0],
    "infinite": [1.0, np.inf],
    "unsigned past int64": np.array([1, 2**63 + 1], dtype=np.uint64),
    "booleans": [True, False],
    "text": ["1", " 2 ", "n/a", "x"],
    "text, all whole": ["1", "2"],
    "text, whole, blank or n/a": [" 0012 ", "", "n/a", None, "7", "7"],
    "text, 16 digits": ["1234567890123456", "1"],
    "text, negative": ["-1", "1"],
    "text, other digits": ["²", "1"],
    "text, fraction": ["1.0", "2"],
    "all blank": [np.nan, np.nan],
}
CCS = {
    "two GPUs": ["9.0", "8.0", "9.0"],
    "blank and one": ["", None, "9.0"],
    "damaged": ["9.0", "9.0.1", "x"],
    "a line end after it": ["9.0\n", "9.0"],
}


def _kernels(column, cc):
    cells = pd.Series(column, dtype=str if isinstance(column[0], str) else None)  # the details page's
    ccs = pd.Series((cc * 4)[: len(column)])
    return pd.DataFrame({"ncu_id": range(len(column)), "stream": cells, "cc": ccs})


def test_identity_numbers_gives_what_reading_each_cells_text_gives():
    for (name, column), (cc_name, cc) in itertools.product(COLUMNS.items(), CCS.items()):
        quick, full = _kernels(column, cc), _kernels(column, cc)
        quick_notes: list[str] = []
        full_notes: list[str] = []
        validate.identity_numbers(quick, "export.csv", quick_notes)
        validate._blank_bad_cc(full, full["cc"].fillna("").astype(str), full_notes)
        validate._blank_bad_numbers(full, "stream", full_notes)
        pd.testing.assert_frame_equal(quick, full, obj=f"{name}, {cc_name}")
        assert np.array_equal(np.signbit(quick["stream"]), np.signbit(full["stream"])), name  # -0.0 stays
        assert quick_notes == full_notes, (name, cc_name)


def test_the_quick_path_takes_the_columns_that_are_whole_numbers_and_no_other():
    taken = {name for name, cells in COLUMNS.items() if validate._whole_numbers(pd.Series(cells)) is not None}
    assert taken == {
        "whole",
        "whole as floats, some blank",
        "all blank",
        "text, all whole",
        "text, whole, blank or n/a",
    }


def test_numeric_columns_gives_each_columns_numeric_cells_and_notes_in_order():
    frame = pd.DataFrame(
        {
            "a__counts": [1, 2, 3],
            "b__blank": [np.nan, 1.5, np.nan],
            "c__negative": [1.0, -2.0, 3.0],
            "d__text": ["1,234", "n/a", "x"],
            "e__infinite": [np.inf, 1.0, 2.0],
            "f__booleans": [True, False, True],
            "g__unsigned": np.array([1, 2**64 - 1, 0], dtype=np.uint64),
            "h__negative zero": [-0.0, 0.0, 1.0],
        }
    )
    names = [
        "h__negative zero",
        "e__infinite",
        "a__counts",
        "d__text",
        "c__negative",
        "g__unsigned",
        "f__booleans",
    ]
    ids = np.array([10, 11, 12])
    quick_notes: list[str] = []
    full_notes: list[str] = []
    quick = validate.numeric_columns(frame, names, ids, "export.csv", quick_notes)
    full = {name: validate.numeric_cells(frame[name], name, ids, "export.csv", full_notes) for name in names}
    assert list(quick) == names and quick_notes == full_notes and len(full_notes) == 3
    for name in names:
        assert quick[name].dtype == np.float64
        np.testing.assert_array_equal(quick[name], full[name])
        assert np.array_equal(np.signbit(quick[name]), np.signbit(full[name]))


LAUNCH_IDS = {
    "raw page, numbers": pd.Series([0, 1, 2], dtype=np.int64),
    "raw page, unsigned": pd.Series(np.array([0, 2**63], dtype=np.uint64)),
    "raw page, a blank": pd.Series([0.0, np.nan]),
    "raw page, whole floats": pd.Series([0.0, 1.0]),
    "details page": pd.Series(["0", "0", " 1", "1 ", "2"], dtype=str),
    "details page, 16 digits": pd.Series(["1234567890123456", "0"], dtype=str),
    "details page, tool lines after": pd.Series(["0", "1", "==PROF== done"], dtype=str),
    "details page, a blank": pd.Series(["0", None, "1"], dtype=str),
    "details page, a fraction": pd.Series(["0", "1.5"], dtype=str),
    "details page, other digits": pd.Series(["0", "١"], dtype=str),
    "empty": pd.Series([], dtype=str),
}


def test_launch_ids_read_quickly_are_each_cells_text_read():
    for name, ids in LAUNCH_IDS.items():
        quick = validate._plain_launch_ids(ids)
        try:
            full = validate._launch_numbers(ids, "export.csv")
        except InputError as err:
            assert quick is None, (name, str(err))
            continue
        if quick is not None:
            assert full[1] == 0 and quick.dtype == np.int64, name
            np.testing.assert_array_equal(quick, full[0], err_msg=name)


def test_the_launch_ids_read_quickly_are_those_that_are_plain_whole_numbers():
    taken = {name for name, ids in LAUNCH_IDS.items() if validate._plain_launch_ids(ids) is not None}
    assert taken == {"raw page, numbers", "details page", "empty"}


def test_a_repeated_metric_of_a_launch_is_found_as_dataframe_duplicated_finds_it():
    found = []
    for seed in range(30):
        rng = np.random.default_rng(seed)
        rows = int(rng.integers(0, 12))
        ids = pd.Series(rng.integers(0, 4, rows), dtype=np.int64)
        names = pd.Series([rng.choice(["a__x", "b__y", "c__z", None]) for _ in range(rows)], dtype=str)
        expected = pd.DataFrame({"id": ids, "name": names}).duplicated(["id", "name"]).any()
        assert validate._some_pair_repeats(ids, names) == expected, seed
        found.append(expected)
    assert any(found) and not all(found)  # both answers were compared
