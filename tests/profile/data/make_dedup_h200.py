"""Build tests/profile/data/dedup_h200/ from the committed H200 results of
``rooftui profile --dedup`` (4-block transformer step, 175 launches, 59 signatures):
benchmarks/results/2026-12-01-profile-dedup-onerun/results.tar.xz, members d4.raw.csv and
d4.signatures.json, as the H200 wrote them.

The table (xz-compressed, as rooftui reads it) keeps every launch and only the columns
rooftui reads (identity, device attributes, the metrics of
rooftui.model.metrics.metrics_read, NVTX, and rooftui's own ``rooftui__`` columns), so it
stays small; no value is changed. The sidecar is copied
whole. Run from the repository root: python tests/profile/data/make_dedup_h200.py
"""

from __future__ import annotations

import csv
import io
import lzma
import tarfile
from pathlib import Path

from rooftui.ingest.csv_common import RAW_IDENTITY_COLUMNS
from rooftui.model.metrics import metrics_read

RESULTS = Path("benchmarks/results/2026-12-01-profile-dedup-onerun/results.tar.xz")
OUT = Path("tests/profile/data/dedup_h200")


def kept(column: str) -> bool:
    return (
        column in RAW_IDENTITY_COLUMNS
        or column in metrics_read()
        or column.startswith(("rooftui__", "device__attribute", "thread Domain:", "launch__"))
    )


def main() -> None:
    with lzma.open(RESULTS) as packed, tarfile.open(fileobj=packed) as tar:
        table = tar.extractfile("d4.raw.csv")
        sidecar = tar.extractfile("d4.signatures.json")
        assert table is not None and sidecar is not None
        rows = list(csv.reader(io.StringIO(table.read().decode("utf-8"))))
        sidecar_text = sidecar.read().decode("utf-8")
    where = [i for i, column in enumerate(rows[0]) if kept(column)]
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerows([row[i] for i in where] for row in rows)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "d4.raw.csv.xz").write_bytes(lzma.compress(out.getvalue().encode("utf-8")))
    (OUT / "d4.signatures.json").write_text(sidecar_text, encoding="utf-8")
    print(f"{OUT}: {len(rows) - 2} launches, {len(where)} of {len(rows[0])} columns")


if __name__ == "__main__":
    main()
