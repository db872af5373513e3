"""The launch floor `rooftui measure` writes: ncu's duration parsed in any unit, stored at the top level."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from rooftui.ingest.ceilings import load_ceilings
from rooftui.measure.launch_floor import LaunchFloor, ncu_durations
from rooftui.measure.results import ceilings_document
from rooftui.model.ceilings import Ceiling, CeilingSet, Device

HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
    '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'
)


def row(i: int, metric: str, unit: str, value: str) -> str:
    return (
        f'"{i}","7","python3","h","empty_kernel","1","13","(32, 1, 1)","(1, 1, 1)","0","9.0",'
        f'"Command line profiler metrics","{metric}","{unit}","{value}"'
    )


@pytest.mark.parametrize(
    ("unit", "value", "seconds"),
    [
        ("ns", "1,536", 1.536e-6),
        ("nsecond", "1536", 1.536e-6),
        ("us", "1.54", 1.54e-6),
        ("usecond", "1.54", 1.54e-6),
        ("msecond", "0.002", 2e-6),
    ],
)
def test_ncu_duration_is_read_in_seconds_whatever_unit_ncu_prints(unit, value, seconds):
    text = "\n".join(
        [
            "==PROF== Connected to process 7",
            HEADER,
            row(0, "gpu__time_duration.sum", unit, value),
            row(0, "sm__cycles_elapsed.avg.per_second", "cycle/second", "1.9e9"),
        ]
    )
    assert ncu_durations(text) == [pytest.approx(seconds)]


def test_ncu_output_without_a_table_gives_no_duration():
    assert ncu_durations("==ERROR== The application returned an error code (1).\n") == []


def test_measure_writes_the_floor_at_the_top_level_of_the_ceilings_file(tmp_path):
    floor = LaunchFloor(1.5e-6, 1.3e-6, "ncu: 50 launches profiled")
    ceilings = CeilingSet(
        Device("NVIDIA H200", "9.0", 132), (Ceiling("HBM", "bandwidth", 4.5e12, "empirical", level="hbm"),)
    )
    doc = ceilings_document(ceilings, {"launch_floor": floor.to_dict(), "seconds": 20.0})
    assert doc["launch_floor"]["empty_kernel_s"] == 1.5e-6
    assert doc["launch_floor"]["back_to_back_s"] == 1.3e-6
    assert "gpu__time_duration.sum" in doc["launch_floor"]["empty_kernel_source"]
    assert "launch_floor" not in doc["measurement"]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc))
    assert load_ceilings(path).bandwidth("hbm").value == 4.5e12  # readers ignore the new key


def test_without_ncu_the_floor_says_so_and_keeps_only_the_interval():
    out = LaunchFloor(None, 1.3e-6, "ncu is not on the PATH").to_dict()
    assert "empty_kernel_s" not in out and out["back_to_back_s"] == 1.3e-6


def test_the_bundled_h200_ceilings_carry_the_floor_measured_on_the_h200():
    for name in ("data/ceilings/nvidia-h200_cc9.0.json", "data/sample/h200_ceilings.json"):
        doc = json.loads((resources.files("rooftui") / name).read_text())
        floor = doc["launch_floor"]
        assert 1e-6 < floor["empty_kernel_s"] < 3e-6 and 1e-6 < floor["back_to_back_s"] < 3e-6
