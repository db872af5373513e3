"""The details reader spreads each launch's metric rows into one row per launch
(``details_csv.first_value_per_launch``): it must give what pandas' own ``pivot_table``
gives, index, columns, names and dtypes included, on what ncu writes and on rows
repeated, blank, out of order or missing."""

import numpy as np
import pandas as pd

from rooftui.ingest.details_csv import first_value_per_launch


def _pivot(scaled):
    return scaled.pivot_table(index="ID", columns="name", values="value", aggfunc="first", dropna=False)


def _rows(rng, launches, names):
    ids, metric, values = [], [], []
    for launch in rng.permutation(launches):
        for name in names:
            for _ in range(rng.choice([0, 1, 1, 1, 2])):  # missing, once, or repeated
                ids.append(int(launch))
                metric.append(name)
                values.append(np.nan if rng.random() < 0.2 else float(rng.integers(0, 10**6)) / 8)
    names = pd.Series(metric, dtype=str)
    return pd.DataFrame({"ID": np.array(ids, dtype=np.int64), "name": names, "value": values})


def test_each_launchs_first_value_of_each_metric_is_pandas_pivot_table():
    names = ["dram__bytes_read.sum", "gpu__time_duration.sum", "sm__inst_executed.sum", "b__x", "a__y"]
    for seed in range(20):
        rng = np.random.default_rng(seed)
        scaled = _rows(rng, rng.integers(1, 30), names[: rng.integers(1, len(names) + 1)])
        pd.testing.assert_frame_equal(
            first_value_per_launch(scaled),
            _pivot(scaled),
            check_index_type=True,
            check_column_type=True,
            obj=f"seed {seed}",
        )


def test_an_empty_table_gives_what_pivot_table_gives():
    scaled = _rows(np.random.default_rng(0), 0, ["a__x"])
    pd.testing.assert_frame_equal(first_value_per_launch(scaled), _pivot(scaled))
