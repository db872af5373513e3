"""No snapshot file is left over from a test that is gone or renamed.

syrupy fails a serial run on a snapshot file that no test uses, but under pytest-xdist
(`-n auto`, how the suite runs) it neither reports nor removes such files; this test
does the check instead, in every mode.
"""

from __future__ import annotations

from tests.conftest import COLLECTED


def test_every_snapshot_file_belongs_to_a_collected_snapshot_test():
    modules = {item.path for item in COLLECTED}
    expected = {item.path.parent / "__snapshots__" / item.path.stem / f"{item.name}.svg"
                for item in COLLECTED if "snap_compare" in getattr(item, "fixturenames", ())}
    found = {svg for module in modules
             for svg in (module.parent / "__snapshots__" / module.stem).glob("*.svg")}
    assert sorted(str(svg) for svg in found - expected) == []
