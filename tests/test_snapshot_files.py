"""No snapshot file is left over from a test that is gone or renamed.

syrupy fails a serial run on a snapshot file that no test uses, but under pytest-xdist
(`-n auto`, how the suite runs) it neither reports nor removes such files; this test
does the check instead, in every mode.
"""

from __future__ import annotations

from tests.conftest import COLLECTED


def expected_files(item) -> set:
    """The snapshot files a test compares with: ``TEST.svg`` for ``snap_compare``,
    ``TEST[NAME].svg`` for each name a ``snap_compare_sizes`` test declares."""
    folder = item.path.parent / "__snapshots__" / item.path.stem
    uses = getattr(item, "fixturenames", ())
    files = {folder / f"{item.name}.svg"} if "snap_compare" in uses else set()
    if "snap_compare_sizes" in uses:
        files |= {folder / f"{item.name}[{name}].svg" for name in item.get_closest_marker("snapshots").args}
    return files


def test_every_snapshot_file_belongs_to_a_collected_snapshot_test():
    modules = {item.path for item in COLLECTED}
    expected = {svg for item in COLLECTED for svg in expected_files(item)}
    found = {
        svg for module in modules for svg in (module.parent / "__snapshots__" / module.stem).glob("*.svg")
    }
    assert sorted(str(svg) for svg in found - expected) == []
