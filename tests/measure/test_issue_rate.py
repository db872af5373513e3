"""The warp-instruction issue-rate kernel (issue_rate.cu: issue_mix): its warp instructions
counted from its SASS, its result check, and the instruction ceilings `measure` saves.

The SASS listing is the one the H200 run disassembled (cuobjdump -sass of the cubin NVRTC
built there, benchmarks/issue_rate_h200.sh); the counts it must give follow from the
kernel's source (chains × unroll, three loop-control instructions), and ncu's
smsp__inst_executed.sum for the same launch (tests/measure/ncu_counts.py) is pinned below.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rooftui.errors import GpuUnavailableError
from rooftui.measure import issue_rate as I
from rooftui.measure import kernels as K
from rooftui.measure import runner
from rooftui.measure import sass as S
from rooftui.measure.compute import CheckFailed, ComputeResult, Timing
from rooftui.measure.results import instruction_roofs
from rooftui.model.ceilings import Ceiling

FIXTURES = Path(__file__).parent / "fixtures"
LISTING = (FIXTURES / "issue_mix.sass").read_text()


def test_the_loop_holds_every_chain_step_once_plus_counter_compare_and_branch():
    loop = S.sass_loop(LISTING, I.ISSUE_FUNCTION)
    steps = I.ISSUE_UNROLL
    assert loop.body_opcodes["FFMA"] == steps * I.ISSUE_FLOAT_CHAINS == 128
    assert loop.body_opcodes["LOP3"] == steps * I.ISSUE_INT_CHAINS == 32  # the xor
    assert loop.body_opcodes["IADD3"] == steps * I.ISSUE_INT_CHAINS == 32  # the add
    assert loop.body == 128 + 32 + 32 + 3  # + trip counter, compare, backward branch
    assert loop.body_opcodes["BRA"] == 1


def test_a_launch_counts_every_warp_through_prologue_loop_and_epilogue():
    loop = S.sass_loop(LISTING, I.ISSUE_FUNCTION)
    sure, past_exit = loop.warp_instructions(warps=10, trips=7)
    assert sure == 10 * (loop.before + 7 * loop.body + loop.after)
    assert past_exit == 10 * loop.past_exit
    with pytest.raises(ValueError):
        loop.warp_instructions(10, 0)


LOOPLESS = """
        Function : straight
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   EXIT ;
        /*0020*/                   BRA 0x20;
"""
TWO_LOOPS = """
        Function : twice
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   IADD3 R1, R1, 0x1, RZ ;
        /*0020*/              @P0 BRA 0x10 ;
        /*0030*/                   IADD3 R1, R1, 0x1, RZ ;
        /*0040*/              @P1 BRA 0x30 ;
        /*0050*/                   EXIT ;
        /*0060*/                   BRA 0x60;
"""
BRANCH_INSIDE = """
        Function : branchy
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/              @P2 BRA 0x30 ;
        /*0020*/                   IADD3 R1, R1, 0x1, RZ ;
        /*0030*/              @P0 BRA 0x10 ;
        /*0040*/                   EXIT ;
        /*0050*/                   BRA 0x50;
"""


@pytest.mark.parametrize(
    "listing, function, says",
    [
        (LOOPLESS, "straight", "0 backward branches"),
        (TWO_LOOPS, "twice", "2 backward branches"),
        (BRANCH_INSIDE, "branchy", "a branch at 0x10"),
        (LISTING, "no_such_kernel", "no function no_such_kernel"),
    ],
)
def test_a_kernel_that_is_not_one_plain_loop_is_refused_not_guessed(listing, function, says):
    with pytest.raises(S.SassError, match=says):
        S.sass_loop(listing, function)


def test_the_integer_chain_replay_is_xor_then_add_modulo_two_to_the_32():
    # by hand: (0 ^ 0x9E3779B9) + 0x7F4A7C15 = 0x11D81F5CE, kept to 32 bits
    assert I.int_chain_end(0, 1) == 0x1D81F5CE
    assert I.int_chain_end(0, 2) == ((0x1D81F5CE ^ 0x9E3779B9) + 0x7F4A7C15) & 0xFFFFFFFF


def _outputs(trips: int, threads: int = 3) -> tuple[np.ndarray, np.ndarray]:
    ends = [I.int_chain_end(int(s), trips * I.ISSUE_UNROLL) for s in I.int_starts()]
    return (
        np.ones(threads * I.ISSUE_FLOAT_CHAINS, np.float32),
        np.tile(np.array(ends, np.uint32), threads),
    )


def test_the_check_passes_right_results_and_fails_a_skipped_step_or_a_stray_float():
    out_f, out_u = _outputs(trips=5)
    assert "chains equal their replay over 80 steps" in I.check_results(out_f, out_u, 5)
    with pytest.raises(CheckFailed, match="integer chains differ"):
        I.check_results(out_f, out_u, 6)  # one trip more than the kernel ran
    out_f[4] = 0.999
    with pytest.raises(CheckFailed, match="not at 1.0"):
        I.check_results(out_f, out_u, 5)


class FakeGpu:
    """What measure_issue_rate asks of a GPU, answering as a kernel issuing at a fixed rate."""

    class info:  # noqa: N801 (stands in for DeviceInfo)
        sm_count = 132

    def __init__(self, listing: Path, rate: float, clock: float):
        self.cubins: dict[str, Path] = {}
        self.listing, self.rate, self.clock, self.trips = listing, rate, clock, 0

    def compile(self, source, defines):
        self.cubins[source] = self.listing

        class Module:
            def get_kernel(self, name):
                return name

        return Module()

    def from_host(self, array):
        return array

    def allocate(self, nbytes):
        return nbytes

    def time_launch(self, kernel, grid, block, *args):
        self.trips = int(args[6])
        loop = S.sass_loop(LISTING, I.ISSUE_FUNCTION)
        return loop.warp_instructions(grid * block // 32, self.trips)[0] / self.rate

    def to_host(self, buffer, dtype, count):
        if dtype == np.uint64:  # (cycles, ns) per block: the clock
            return np.tile(np.array([int(self.clock / 1e6), 1000], np.uint64), count // 2)
        out_f, out_u = _outputs(self.trips, count // max(I.ISSUE_FLOAT_CHAINS, I.ISSUE_INT_CHAINS))
        return out_f if dtype == np.float32 else np.resize(out_u, count)


@pytest.fixture
def listing_as_cubin(monkeypatch, tmp_path):
    """``disassemble`` answers with the committed listing (no cuobjdump here)."""
    monkeypatch.setattr(I, "disassemble", lambda path: LISTING)
    return tmp_path / "issue_rate.cubin"


def test_the_rate_is_the_sass_count_over_the_median_launch_time(listing_as_cubin):
    gpu = FakeGpu(listing_as_cubin, rate=1.0e12, clock=1.98e9)
    result = I.measure_issue_rate(gpu, Timing(launch_s=0.002, repeats=3))
    assert result.warp_instructions_per_s == pytest.approx(1.0e12, rel=1e-12)
    assert result.grid == 132 * I.ISSUE_BLOCKS_PER_SM and result.block == I.ISSUE_THREADS
    assert result.per_cycle_per_sm == pytest.approx(1.0e12 / 1.98e9 / 132, rel=1e-9)
    assert result.theoretical_at_clock == pytest.approx(132 * 4 * 1.98e9, rel=1e-9)
    roof = result.roof()
    assert roof.name == "issue" and roof.unit == "warp inst/s"
    assert "counted from its SASS (cuobjdump -sass)" in roof.source
    assert roof.extra["sass"]["loop_body"] == 195


def test_without_cuobjdump_the_issue_rate_is_not_measured_and_the_run_says_why(monkeypatch, tmp_path):
    monkeypatch.setattr(S, "find_cuobjdump", lambda: None)
    gpu = FakeGpu(tmp_path / "issue_rate.cubin", rate=1.0e12, clock=1.98e9)
    why = runner._issue_rate(gpu, Timing(), runner.Progress())
    assert why == (
        "warp issue rate not measured: cuobjdump not found (on the PATH, $CUDA_HOME/bin or "
        "/usr/local/cuda/bin) — install the CUDA toolkit, or put its bin folder on the PATH"
    )
    with pytest.raises(GpuUnavailableError):
        S.disassemble(tmp_path / "issue_rate.cubin")


def test_measure_saves_each_levels_transaction_rate_derived_from_its_measured_bandwidth():
    bandwidth = [
        Ceiling("L1", "bandwidth", 32.0e12, "empirical", level="l1"),
        Ceiling("Shared memory", "bandwidth", 32.768e12, "empirical", level="smem"),
        Ceiling("L2", "bandwidth", 8.96e12, "empirical", level="l2"),
        Ceiling("HBM", "bandwidth", 4.48e12, "empirical", level="hbm"),
    ]
    roofs = {roof.name: roof for roof in instruction_roofs(None, bandwidth)}
    assert set(roofs) == {"l1", "smem", "l2", "hbm"}  # no issue roof: it was not measured
    assert roofs["l1"].value == 1.0e12  # 32 TB/s ÷ 32 B per sector
    assert roofs["smem"].value == 2.56e11  # 32.768 TB/s ÷ 128 B per wavefront
    assert roofs["l2"].value == 2.8e11
    assert roofs["hbm"].value == 1.4e11
    assert roofs["l2"].source == "derived from measured L2 bandwidth (8.96 TB/s) ÷ 32 B per sector"
    assert roofs["hbm"].extra["derived_from"] == {
        "ceiling": "HBM",
        "bytes_per_s": 4.48e12,
        "bytes_per_transaction": 32,
    }


RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "2026-12-01-issue-rate-h200"


def h200_fp32_fma() -> ComputeResult:
    """The FP32 FMA kernel's timed launches in the committed H200 run."""
    doc = json.loads((RUN / "h200_ceilings.json").read_text())
    ceiling = next(c for c in doc["ceilings"] if c["name"] == "FP32 FMA")
    spec = next(k for k in K.compute_kernels() if k.function == "fma_fp32")
    launch = ceiling["launch"]
    return ComputeResult(
        spec,
        ceiling["value"],
        ceiling["seconds"],
        ceiling["ops_per_launch"],
        ceiling["clock_hz"],
        launch["grid"],
        launch["block"],
        launch["trips"],
        ceiling["check"],
    )


def test_the_fp32_fma_loop_is_its_256_ffma_plus_the_same_three_loop_instructions():
    loop = S.sass_loop((FIXTURES / "fma_fp32.sass").read_text(), "fma_fp32")
    assert loop.body_opcodes == {"FFMA": K.FMA_CHAINS * K.FMA_UNROLL, "UIADD3": 1, "ISETP": 1, "BRA": 1}
    assert (loop.before, loop.body, loop.after) == (27, 259, 11)  # as the H200 run printed it


def test_on_the_h200_the_ffma_loop_issues_faster_than_the_mix_and_sets_the_roof(monkeypatch):
    listings = {"fma_cuda_cores.cu": (FIXTURES / "fma_fp32.sass").read_text()}
    monkeypatch.setattr(I, "disassemble", lambda path: listings[path.name])
    gpu = FakeGpu(Path("fma_cuda_cores.cu"), rate=1.0, clock=1.0)
    gpu.cubins["fma_cuda_cores.cu"] = Path("fma_cuda_cores.cu")
    fma = h200_fp32_fma()
    from_fma = I.from_fma(gpu, fma)
    # by hand: 528 blocks x 256 threads = 4224 warps, each 27 + 259 x 18886 + 11 instructions
    assert fma.trips == 18886 and from_fma.warp_instructions == 4224 * (27 + 259 * 18886 + 11)
    assert from_fma.warp_instructions_per_s == pytest.approx(
        20_661_746_688 / 0.01981612777709961, rel=1e-12
    )  # median of 5
    assert from_fma.per_cycle_per_sm == pytest.approx(3.9895, abs=1e-4)  # 99.7% of 4
    doc = json.loads((RUN / "h200_ceilings.json").read_text())
    mix = doc["instruction_ceilings"][0]  # issue_mix in the same run: 3.53 per cycle per SM
    mixed = I.IssueResult(
        mix["value"], 0, 0, [], mix["clock_hz"], 132, 528, 256, 1, S.sass_loop(LISTING, I.ISSUE_FUNCTION), ""
    )
    best = I.fastest([mixed, from_fma])
    assert best is from_fma and best.roof().source.startswith("measured by rooftui measure: fma_fp32 kernel")
    assert best.variants == {
        "issue_mix": pytest.approx(3.5307, abs=1e-4),
        "fma_fp32": from_fma.per_cycle_per_sm,
    }


def test_ncu_counted_on_the_h200_exactly_the_warp_instructions_the_sass_gives():
    """ncu_counts on the H200 (40 trips, 528 blocks of 256): smsp__inst_executed.sum equal to
    every warp's prologue + loop + epilogue, plus the clock stamp past the first EXIT that
    only warp 0 of each block runs."""
    line = next(x for x in (RUN / "ncu_counts.txt").read_text().splitlines() if "issue_mix" in x)
    assert line.startswith("ok ") and "smsp__inst_executed.sum" in line and "rel.err 0.00e+00" in line
    measured = float(line.split("measured ")[1].split()[0])
    loop = S.sass_loop(LISTING, I.ISSUE_FUNCTION)
    every_warp, _ = loop.warp_instructions(warps=528 * 256 // 32, trips=40)
    assert every_warp + 528 * loop.past_exit == 33_153_120  # 4224 x (34 + 195 x 40 + 13) + 528 x 14
    assert measured == pytest.approx(33_153_120, rel=5e-6)  # printed to 6 digits
