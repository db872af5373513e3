"""Every CSV reader fills every identity column (rooftui.ingest.report.IDENTITY_COLUMNS):
a ``--print-summary per-kernel`` export has no Stream column, and one without Block Size
and Grid Size columns leaves those blank too, saying why, rather than absent."""

import csv
import io

import numpy as np

from rooftui.ingest.report import IDENTITY_COLUMNS
from rooftui.ingest.summary_csv import read_summary_csv
from tests.ingest.summary_layout import HEADER, SAXPY, write_counts

WITHOUT_SHAPE = [c for c in HEADER if c not in ("Block Size", "Grid Size")]


def _without_shape_columns(path):
    """The same export with ncu's Block Size and Grid Size columns cut out."""
    rows = list(csv.reader(io.StringIO(path.read_text().split("\n", 1)[1])))
    keep = [HEADER.index(c) for c in WITHOUT_SHAPE]
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerows([[row[i] for i in keep] for row in rows if row])
    path.write_text(out.getvalue())
    return path


def test_a_summary_export_has_every_identity_column_with_stream_blank(tmp_path):
    report = read_summary_csv(write_counts(tmp_path / "counts.csv"))
    kernels = report.kernels.set_index("kernel_name", drop=False)
    assert set(IDENTITY_COLUMNS) <= set(kernels.columns)
    assert np.isnan(kernels["stream"]).all()  # a row groups every stream's launches
    assert kernels.loc[SAXPY, "grid"] == "(65536, 1, 1)" and kernels.loc[SAXPY, "block"] == "(256, 1, 1)"
    assert any("nor their stream" in note for note in report.notes)
    assert not any("left blank" in note for note in report.notes)


def test_a_summary_export_without_launch_shapes_leaves_them_blank_and_says_why(tmp_path):
    report = read_summary_csv(_without_shape_columns(write_counts(tmp_path / "counts.csv")))
    kernels = report.kernels
    assert set(IDENTITY_COLUMNS) <= set(kernels.columns)
    assert (kernels["grid"] == "").all() and (kernels["block"] == "").all()
    assert np.isnan(kernels["stream"]).all()
    blank = [note for note in report.notes if "left blank" in note]
    assert blank == ["per-kernel summary: Grid Size and Block Size left blank: the export has no such column"]
