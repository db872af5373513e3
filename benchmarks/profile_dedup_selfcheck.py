"""The self-check of a deduplicated profile, recomputed from what it left: its per-launch table
(REPORT.raw.csv, where every launch profiled in full keeps its own counters) and its sidecar
(REPORT.signatures.json: signatures and which launches were profiled), with the counters
rooftui.profile.dedup compares now. For runs made before the self-check compared the L2
bytes the summary reads (lts__t_sectors_srcunit_tex) rather than lts__t_bytes.

    python3 benchmarks/profile_dedup_selfcheck.py REPORT.raw.csv[.xz] REPORT.signatures.json
"""

from __future__ import annotations

import json
import lzma
import sys
from pathlib import Path

from rooftui.profile import dedup


def main(table_path: str, sidecar_path: str) -> None:
    opener = lzma.open if table_path.endswith(".xz") else open
    with opener(table_path, "rt", encoding="utf-8") as handle:
        table = dedup.read_export(handle.read())
    sidecar = json.loads(Path(sidecar_path).read_text(encoding="utf-8"))
    signatures = []
    for number, entry in enumerate(sidecar["signatures"], start=1):
        members = [
            launch["id"] for launch in sidecar["launches"] if launch["signature"] == entry["signature"]
        ]
        group = dedup.Signature(number, (entry["name"],), (), members)
        assert group.label == entry["signature"], (group.label, entry["signature"])
        signatures.append(group)
    profiled = {launch["id"] for launch in sidecar["launches"] if launch["profiled"]}
    sources: dedup.Sources = {i: (table, table.rows[i]) for i in profiled}
    plan = dedup.Plan(launches=[], signatures=signatures, run=None)  # type: ignore[arg-type]
    print(f"recorded: {sidecar['self_check']}")
    print(f"now:      {dedup.self_check(plan, sources, dedup.checked_counters(table.header)).line()}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
