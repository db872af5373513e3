"""What rooftui's own instruction-level section did on an H200 (benchmarks/profile_lean_gpu.sh,
benchmarks/profile_dedup_depth_gpu.sh; files in benchmarks/results/2026-12-02-profile-lean/,
described in 2026-12-02-profile-lean.md). The independent answers: ncu's own SourceCounters
section for the register moves, launch by launch, and the --exhaustive profiles (ncu's
counters on every launch) for the per-phase totals."""

from __future__ import annotations

import re
import tarfile

import pandas as pd
import pytest

from rooftui.profile.deduplicated import SMALL_PROGRAM_LAUNCHES
from tests.profile.conftest import REPO
from tests.profile.test_dedup_compare import compare_script
from tests.profile.test_dedup_h200_depth import at, within_one_percent

RESULTS = REPO / "benchmarks" / "results" / "2026-12-02-profile-lean"


def kernels(load_once, name: str) -> pd.DataFrame:
    """The launches of a committed table, read once per worker (``load_once``)."""
    return load_once(RESULTS / f"{name}.raw.csv.xz").kernels.reset_index(drop=True)


def passes(log: str) -> list[int]:
    """The replay passes of every launch an ncu log names, from the logs the calls kept."""
    with tarfile.open(RESULTS / "logs.tar.xz") as kept:
        text = kept.extractfile(log).read().decode()
    return [int(n) for n in re.findall(r" - (\d+) pass(?:es)?$", text, flags=re.MULTILINE)]


def wall_seconds(console: str, output: str) -> float:
    """The wall time the device script printed for the profile writing ``output``."""
    text = (RESULTS / console).read_text()
    match = re.search(
        rf"^WALL (\d+) ms rc=0: python3 -m rooftui profile .* -o \S*/{output} ", text, re.MULTILINE
    )
    assert match, output
    return int(match[1]) / 1000


def test_rooftuis_section_reads_the_same_register_moves_as_source_counters_launch_by_launch():
    text = (RESULTS / "register_moves.txt").read_text().splitlines()
    table = [line.split("\t") for line in text[text.index("launch\tname\tsourcecounters\tlean") + 1 :]]
    assert len(table) == 37  # the first launch of every function of the 4-block step
    source_counters = [float(row[2]) for row in table]
    lean = [float(row[3]) for row in table]
    assert lean == source_counters
    assert sum(1 for moves in lean if moves > 0) == 8
    assert sum(lean) == 83_768_320


def test_rooftuis_section_takes_10_replay_passes_where_source_counters_takes_11():
    assert passes("i_sourcecounters.log") == [11] * 37
    assert passes("i_lean.log") == [10] * 37
    for step, launches in (("d4", 118), ("d16", 155), ("ddeepcam", 156)):
        assert passes(f"{step}.ncu.log") == [10] * launches  # was 11 with SourceCounters
    for step, launches in (("d4", 175), ("d16", 579), ("ddeepcam", 179)):
        assert passes(f"{step}.probe.ncu.log") == [1] * launches
    assert passes("x16.ncu.log") == [8] * 579


@pytest.mark.parametrize(
    ("step", "launches", "worst_bytes", "where"),
    [
        ("4", 175, 0.00645, "backward bytes_l2"),
        ("16", 579, 0.00755, "forward bytes_l2"),
        ("deepcam", 179, 0.00403, "backward bytes_l2"),
    ],
)
def test_default_has_every_flop_and_byte_total_of_exhaustive_within_one_percent(
    step, launches, worst_bytes, where, load_once
):
    default, exhaustive = kernels(load_once, f"d{step}"), kernels(load_once, f"x{step}")
    assert len(default) == len(exhaustive) == launches
    rows = within_one_percent(default, exhaustive, flops_within=2e-4)
    assert compare_script.worst(rows, compare_script.BYTES) == (pytest.approx(worst_bytes, abs=1e-5), where)
    # L1 bytes, 0.2 % low with the 11-pass SourceCounters run (round 8), now within 0.01 %
    for phase in ("forward", "backward", "optimizer", "all"):
        assert at(rows, phase, "bytes_l1") == pytest.approx(1, abs=1e-4)


def test_the_default_takes_061x_exhaustives_time_at_16_blocks_and_is_slower_on_the_small_steps():
    default = {s: wall_seconds("call2_console.txt", f"d{s}") for s in ("4", "16", "deepcam")}
    exhaustive = {s: wall_seconds("call2_console.txt", f"x{s}") for s in ("4", "deepcam")}
    exhaustive["16"] = wall_seconds("call3_console.txt", "x16")
    assert default == {"4": 85.031, "16": 117.143, "deepcam": 110.199}
    assert exhaustive == {"4": 63.79, "16": 193.447, "deepcam": 62.517}
    assert default["16"] / exhaustive["16"] == pytest.approx(0.606, abs=1e-3)


def test_the_small_program_hint_starts_where_the_measured_times_cross():
    default = {n: wall_seconds("call2_console.txt", f"d{s}") for n, s in ((175, "4"), (579, "16"))}
    exhaustive = {175: wall_seconds("call2_console.txt", "x4"), 579: wall_seconds("call3_console.txt", "x16")}
    slower = {n: default[n] - exhaustive[n] for n in default}  # 21.2 s, then -76.3 s
    crossing = 175 + slower[175] / (slower[175] - slower[579]) * (579 - 175)
    assert crossing == pytest.approx(263, abs=1)
    assert crossing - 10 <= SMALL_PROGRAM_LAUNCHES <= crossing
