"""The signature's DRAM-bytes rule (rooftui.profile.dedup.same_traffic) and the offline
simulation of what it does (benchmarks/profile_dedup_signature_sim.py), on pairs whose
bytes are the H200's (benchmarks/results/2026-12-02-profile-dedup-signature.md)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from rooftui.ingest.deduplicated import COUNTERS_FROM_COLUMN
from rooftui.profile import dedup
from tests.profile.conftest import REPO
from tests.profile.test_dedup import PROBE_HEADER, _export, _probe_row

# DeepCAM step, --exhaustive: forward add (launch 45) and backward add (launch 153), the
# same name, grid and instruction counts; the backward one reuses no data in L1
FORWARD_ADD, BACKWARD_ADD = 1_796_096.0, 3_565_568.0
# 16 blocks, --exhaustive: the widest spread between launches of one piece of work (S7)
SAME_WORK_LOW, SAME_WORK_HIGH = 34_366_976.0, 37_729_024.0


def _probe(traffic: list[str]) -> dedup.Export:
    return _export(
        PROBE_HEADER,
        [_probe_row(i, "add", "step", "10", "5000", t) for i, t in enumerate(traffic)],
    )


def test_two_launches_that_differ_only_in_dram_bytes_get_two_signatures():
    groups = dedup.signatures(dedup.launches(_probe([str(FORWARD_ADD), str(BACKWARD_ADD)])))
    assert [g.members for g in groups] == [[0], [1]]
    assert [g.traffic for g in groups] == [FORWARD_ADD, BACKWARD_ADD]


def test_launches_within_the_measured_spread_of_one_piece_of_work_share_a_signature():
    groups = dedup.signatures(dedup.launches(_probe([str(SAME_WORK_LOW), str(SAME_WORK_HIGH)])))
    assert [g.members for g in groups] == [[0, 1]]
    # a 14 KB launch that read 1.6x as much in another run: under the floor, not apart
    assert dedup.same_traffic(8_960.0, 14_336.0)


def test_the_rule_is_the_tolerance_of_the_larger_or_the_floor_and_nan_tells_nothing_apart():
    top = 4_000_000.0
    assert dedup.same_traffic(top * (1 - dedup.TRAFFIC_TOLERANCE), top)
    assert not dedup.same_traffic(top * (1 - dedup.TRAFFIC_TOLERANCE) - 1, top)
    assert dedup.same_traffic(0.0, dedup.TRAFFIC_FLOOR)
    assert not dedup.same_traffic(0.0, dedup.TRAFFIC_FLOOR + 1)
    assert dedup.same_traffic(float("nan"), top) and dedup.same_traffic(float("nan"), float("nan"))
    # a probe without the counter (an older report): the instruction signature alone
    groups = dedup.signatures(dedup.launches(_probe(["", ""])))
    assert [g.members for g in groups] == [[0, 1]]


def test_the_probe_and_the_full_run_collect_the_dram_bytes():
    assert dedup.TRAFFIC == "dram__bytes.sum"
    assert dedup.TRAFFIC in dedup.PROBE_METRICS and dedup.TRAFFIC in dedup.full_metrics([])


def _sim_module():
    path = REPO / "benchmarks" / "profile_dedup_signature_sim.py"
    spec = importlib.util.spec_from_file_location("profile_dedup_signature_sim", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_simulation_gives_the_reusing_twin_its_own_bytes_only_with_the_rule():
    sim = _sim_module()
    header = [*PROBE_HEADER, COUNTERS_FROM_COLUMN]
    # the default: launch 0 profiled, launch 1 inherited its counters (and its bytes)
    default = _export(
        header,
        [
            [*_probe_row(0, "add", "forward", "10", "5000", str(FORWARD_ADD)), "own"],
            [*_probe_row(1, "add", "backward", "12", "5000", str(FORWARD_ADD)), "0"],
        ],
    )
    exhaustive = _export(
        PROBE_HEADER,
        [
            _probe_row(0, "add", "forward", "10", "5000", str(FORWARD_ADD)),
            _probe_row(1, "add", "backward", "12", "5000", str(BACKWARD_ADD)),
        ],
    )
    dram = exhaustive.column(dedup.TRAFFIC)
    before = sim.simulate(default, exhaustive, traffic=False)
    assert (before.signatures, before.new) == (1, [])
    assert sum(float(r[dram]) for r in before.table.rows) == pytest.approx(2 * FORWARD_ADD)
    after = sim.simulate(default, exhaustive, traffic=True)
    assert (after.signatures, after.new) == (2, [1])  # launch 1 now needs its own profile
    assert sum(float(r[dram]) for r in after.table.rows) == pytest.approx(FORWARD_ADD + BACKWARD_ADD)
