"""Readers keep only ``metrics_read()``: nothing a formula, a rate derivation or a
report ceiling uses may be left behind.

The raw CSV exports hold every metric ncu collected (541 columns for the DeepCAM
step); loading them keeping every column must give the very same kernel table and
ceilings as keeping only rooftui's list.
"""

from __future__ import annotations

import pandas as pd
import pytest

from rooftui.analysis import load_run
from rooftui.analysis.load_options import LoadOptions
from rooftui.ingest import raw_csv
from rooftui.model import metrics as m
from tests.conftest import DEEPCAM, KNOWN

REPORTS = [
    DEEPCAM / "deepcam_amp.raw-base.csv.xz",  # rooftui's list and more
    KNOWN / "known_answer.raw-base.csv",
    KNOWN / "known_answer_roofline.raw.csv",  # ncu's roofline set: counts derived from rates
    KNOWN / "known_answer_basic.raw.csv",  # ncu's basic set: time only
]


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.name)
def test_keeping_every_metric_changes_no_number(report, monkeypatch, load_once):
    used = load_once(report)  # as every test reads it (the cache gives a report back as read)
    monkeypatch.setattr(raw_csv, "is_relevant_metric", lambda name: "__" in name)
    everything = load_run([report], LoadOptions(no_cache=True))
    assert len(everything.reports[0].kernels.columns) > len(used.reports[0].kernels.columns)
    pd.testing.assert_frame_equal(used.kernels, everything.kernels)
    assert used.ceilings_by_device == everything.ceilings_by_device
    assert used.missing_metrics == everything.missing_metrics
    # the same derivations and warnings (keeping every column adds notes on columns
    # rooftui never reads, such as the text of device__attribute_confidential_computing_mode)
    kept = set(used.reports[0].kernels.columns)
    unread = [c for c in everything.reports[0].kernels.columns if c not in kept]
    assert used.notes == [
        note for note in everything.notes if not any(f": {column}: " in note for column in unread)
    ]


def test_the_list_holds_each_formulas_counts_rates_and_peaks():
    read = set(m.metrics_read())
    hopper = m.architecture_for("9.0")
    assert set(m.required_metrics(hopper)) <= read
    assert set(m.required_metrics(m.architecture_for("7.0"))) <= read  # Volta's x512 counter too
    assert {
        "dram__bytes.sum.per_second",
        "lts__cycles_elapsed.avg",
        "sm__ops_path_tensor_src_fp16.sum.per_cycle_elapsed",
    } <= read
    assert "dram__bytes_read.sum" in read  # the full set's DRAM bytes (metrics.BYTE_SOURCES)
    assert "launch__grid_size" not in read  # collected by the sample profiles, used by nothing
