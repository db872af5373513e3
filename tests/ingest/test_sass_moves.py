"""HFMA2 register moves are not FP16 work (issue 11 item 5).

Known answers: kernels/known_answer/register_moves.cu and known_answer.cu, profiled on
an H200 with rooftui's metrics plus ncu's SourceCounters section; their FLOPs were
written by the kernels' own program (register_moves.expected.json, expected.json), and
the moves each thread executes are read off the build's `cuobjdump -sass` dump.
"""

import json
import lzma
import re

import pytest

from rooftui.ingest.sass_moves import is_register_move
from tests.conftest import KNOWN, SAMPLES

MOVES = SAMPLES / "register_moves"
THREADS = 1 << 20  # every register-move and FMA-loop kernel runs 2^20 threads


def by_name(run):
    return {row["name"]: row for row in run.kernels.to_dict("records")}, run


@pytest.fixture(scope="module")
def moves_report(load_once):
    return by_name(load_once(MOVES / "register_moves_sourcecounters.ncu-rep.xz"))


# Loaded in a module fixture, as moves_report is: both read the report from the session's
# report cache (tests/conftest.py), so its reader child (~1.5 s of CPU, with the
# disassembly) runs once for both option sets.
@pytest.fixture(scope="module")
def moves_report_on_the_papers_rule(load_once):
    return by_name(load_once(MOVES / "register_moves_sourcecounters.ncu-rep.xz", fp16_rule="paper"))


@pytest.fixture(scope="module")
def known_report(load_once):
    return by_name(load_once(KNOWN / "known_answer_sourcecounters.ncu-rep.xz"))


def answers(name):
    return {k["name"]: k for k in json.loads((MOVES / name).read_text())["kernels"]}


def static_moves(function):
    """(moves, first loop address) of one function in the cuobjdump dump, read with
    plain text matching: `HFMA2... -RZ, RZ` lines, and the loop's backward branch."""
    dump = lzma.decompress((MOVES / "register_moves.sass.xz").read_bytes()).decode()
    body = dump.split(f"Function : {function}\n", 1)[1].split("Function :", 1)[0]
    moves = [
        int(a, 16)
        for a, text in re.findall(r"/\*([0-9a-f]{4})\*/\s+(.*?);", body)
        if text.startswith("HFMA2") and "-RZ, RZ," in text
    ]
    loop_start = int(re.search(r"@P0 BRA 0x([0-9a-f]+)", body).group(1), 16)
    return moves, loop_start


@pytest.mark.parametrize(
    "text, move",
    [
        ("HFMA2.MMA R12, -RZ, RZ, 1.876953125, 0", True),
        ("      HFMA2.MMA R0, -RZ, RZ, 0, 0 ;", True),
        ("@P0 HFMA2.MMA R3, -RZ, RZ, 0, 5.9604644775390625e-08", True),
        ("HFMA2 R7, R2, RZ.H0_H0, R9", True),
        ("HFMA2.MMA R5, R5, R20.reuse, R21.reuse", False),
        ("HFMA2 R37, R37, R20.reuse, R21.reuse", False),
        ("HFMA2.BF16_V2 R1, R2, R3, -RZ", False),  # adds zero: still a multiply
        ("FFMA R1, -RZ, RZ, R3", False),  # not half precision: ncu's hfma never saw it
        ("MOV R1, 0x3f800000", False),
    ],
)
def test_an_hfma2_with_a_zero_multiplicand_is_a_move(text, move):
    assert is_register_move(text) is move


@pytest.mark.parametrize(
    "kernel, function",
    [
        ("moves_fp32", "_Z10moves_fp32ffPf"),
        ("moves_fp64", "_Z10moves_fp64ddPd"),
        ("moves_and_math", "_Z14moves_and_mathff7__half2S_PfPS_"),
    ],
)
def test_moves_counted_from_the_report_are_the_dumps_moves_times_the_threads(moves_report, kernel, function):
    moves, loop_start = static_moves(function)
    assert len(moves) == 9 and max(moves) < loop_start  # before the loop: once per thread
    assert moves_report[0][kernel]["register_moves"] == 9 * THREADS


def test_fp32_and_fp64_constant_loops_have_no_fp16_flops(moves_report):
    rows, _ = moves_report
    expected = answers("register_moves.expected.json")
    for name in ("moves_fp32", "moves_fp64"):
        assert rows[name]["flops_fp16"] == 0, name
        assert rows[name]["flops_fp32"] == expected[name]["flops_fp32"], name
        assert rows[name]["flops_fp64"] == expected[name]["flops_fp64"], name
        assert rows[name]["pipeline"] == expected[name]["pipeline"]
        assert not rows[name]["fp16_approximate"]


def test_hfma2_math_keeps_exactly_its_flops_alone_and_beside_moves(moves_report):
    rows, _ = moves_report
    expected = answers("register_moves.expected.json")
    assert rows["math_hfma2"]["register_moves"] == 0
    for name in ("math_hfma2", "moves_and_math"):
        assert rows[name]["flops_fp16"] == expected[name]["flops_fp16"], name
        assert rows[name]["flops_fp32"] == expected[name]["flops_fp32"], name
        assert rows[name]["pipeline"] == expected[name]["pipeline"] == "fp16"


def test_every_known_answer_kernel_is_exact_with_moves_taken_out(known_report, expected):
    rows, _ = known_report
    for name, answer in expected.items():
        for precision in ("fp64", "fp32", "fp16"):
            assert rows[name][f"flops_{precision}"] == answer[f"flops_{precision}"], (name, precision)
        assert rows[name]["pipeline"] == answer["pipeline"], name
    # The FP32/FP64 loops and the re-read kernel load one constant with a move a thread.
    for name in ("fma_loop<float>", "fma_loop<double>", "reread_l1"):
        assert rows[name]["register_moves"] > 0 and rows[name]["flops_fp16"] == 0


def test_a_report_without_instruction_level_data_keeps_todays_rule_and_says_so(load_once):
    rows, run = by_name(load_once(KNOWN / "known_answer.ncu-rep"))
    row = rows["fma_loop<float>"]
    assert row["register_moves"] != row["register_moves"]  # NaN: not known
    assert row["flops_fp16"] == 4 * THREADS  # one move a thread, 4 FLOPs each under the rule
    assert any("no instruction-level data" in note and "SourceCounters" in note for note in run.notes)


def test_json_says_how_many_instructions_were_discarded_as_moves(moves_report):
    from rooftui.views.summary import to_json

    _, run = moves_report
    kernels = {k["name"]: k for k in to_json(run, run.kernels)["kernels"]}
    assert kernels["moves_fp32"]["register_moves"] == 9 * THREADS
    assert kernels["math_hfma2"]["register_moves"] == 0
    assert any(note.startswith("register moves: 28,311,552") for note in run.notes)


def test_under_the_papers_fp16_rule_a_move_takes_out_that_rules_hfma_weight(moves_report_on_the_papers_rule):
    """--fp16-rule paper weighs an hfma 2 FLOPs: the moves-only loop still has no FP16 FLOPs,
    and __hfma2 math keeps half its true FLOPs (one FMA counted per HFMA2), moves or not."""
    rows, _ = moves_report_on_the_papers_rule
    expected = answers("register_moves.expected.json")
    assert rows["moves_fp32"]["flops_fp16"] == 0
    for name in ("math_hfma2", "moves_and_math"):
        assert rows[name]["flops_fp16"] == expected[name]["flops_fp16"] / 2, name
