"""HFMA2 register moves, counted from a report's SASS and per-instruction counts.

ptxas loads 32-bit constants into registers with ``HFMA2.MMA Rd, -RZ, RZ, hi, lo``
(−0·0 plus the constant's two halves), and ncu's
``smsp__sass_thread_inst_executed_op_hfma_pred_on`` counts each such move as an FP16
FMA. Real ``__hfma2`` math is issued as ``HFMA2.MMA Rd, Ra, Rb, Rc`` on the same pipe
(``pipe_tensor_op_hmma_type_hfma2``), so no counter tells the two apart; the SASS does.
Checked on an H200 (ncu 2025.3.1) with kernels/known_answer/register_moves.cu: in
every known-answer kernel the pred-on thread executions of the HFMA2s whose
multiplicand is RZ equal ncu's hfma counter exactly when the kernel has no FP16
math, and the counter minus them equals the kernel's real HFMA2s when it has
(sample_data/register_moves/, sample_data/known_answer/known_answer_sourcecounters.ncu-rep.xz,
tests/ingest/test_sass_moves.py).

The per-instruction counts come from ncu's SourceCounters section
(``--section SourceCounters``): ``thread_inst_executed_true`` holds one value per
SASS instruction, the predicated-on thread executions, with the instruction's
address as correlation ID, and ``IAction.sass_by_pc`` gives the instruction's text.
Runs inside the ``.ncu-rep`` reader's child process (``_ncu_rep_worker``).
"""

from __future__ import annotations

import re

# Predicated-on thread executions of each SASS instruction (SourceCounters).
PER_INSTRUCTION = "thread_inst_executed_true"
# The same per opcode: a quick way to skip kernels with no HFMA2 at all.
PER_OPCODE = "sass__thread_inst_executed_true_per_opcode"

_PREDICATE = re.compile(r"^@!?U?P[T\d]+\s+")


def is_register_move(sass: str) -> bool:
    """Whether one SASS instruction is an HFMA2 whose product is zero by construction.

    ``HFMA2[.MMA] Rd, A, B, C`` with A or B the zero register (``RZ``, ``-RZ``,
    ``|RZ|``, any ``.H0_H0``-style swizzle) computes 0 + C: a register move, however
    ncu counts it.
    """
    text = _PREDICATE.sub("", sass.strip()).rstrip(" ;")
    opcode, _, operands = text.partition(" ")
    if opcode.split(".")[0] != "HFMA2":
        return False
    parts = [p.strip() for p in operands.split(",")]
    return len(parts) >= 4 and (_is_zero_register(parts[1]) or _is_zero_register(parts[2]))


def _is_zero_register(operand: str) -> bool:
    return operand.strip("-|").split(".")[0] == "RZ"


class MoveCounter:
    """Counts register moves action by action, disassembling each kernel's code once.

    ``ncu_report`` disassembles an action's code at its first ``sass_by_pc`` (about
    0.2 s each on the DeepCAM step's kernels), so the addresses of a function's moves
    are kept and reused for its later launches (same function name, same code
    addresses), and kernels whose per-opcode counts show no HFMA2 are never
    disassembled.
    """

    def __init__(self) -> None:
        self._moves_at: dict[tuple, frozenset[int] | None] = {}
        self.disassembled = False  # whether this counter had ncu_report disassemble code

    def learned(self) -> dict[tuple, frozenset[int] | None]:
        """What was found so far, per kernel code (for another reader process)."""
        return dict(self._moves_at)

    def learn(self, found: dict[tuple, frozenset[int] | None]) -> None:
        """Take what another reader process found (``learned()``)."""
        self._moves_at.update(found)

    def count(self, action, mangled_name: str) -> int | None:
        """Thread executions of HFMA2 register moves in one ``ncu_report`` action.

        None when the report has no instruction-level data for it (no SourceCounters
        section, or no SASS): then nothing can be said and today's FP16 rule stands.
        """
        metric = action.metric_by_name(PER_INSTRUCTION)
        if metric is None or not metric.has_correlation_ids():
            return None
        by_opcode = action.metric_by_name(PER_OPCODE)
        if by_opcode is not None and by_opcode.has_correlation_ids() and not _has_hfma2(by_opcode):
            return 0
        ids = metric.correlation_ids()
        addresses = [ids.as_uint64(i) for i in range(metric.num_instances())]
        key = (mangled_name, min(addresses, default=0), len(addresses))
        if key not in self._moves_at:
            self._moves_at[key] = _move_addresses(action, addresses)
            self.disassembled = True
        moves_at = self._moves_at[key]
        if moves_at is None:
            return None
        return sum(metric.as_uint64(i) for i, pc in enumerate(addresses) if pc in moves_at)


def _move_addresses(action, addresses: list[int]) -> frozenset[int] | None:
    """The addresses of the register moves among ``addresses``; None without SASS."""
    moves, has_sass = set(), False
    for pc in addresses:
        text = action.sass_by_pc(pc)
        if text:
            has_sass = True
            if is_register_move(text):
                moves.add(pc)
    return frozenset(moves) if has_sass else None


def _has_hfma2(by_opcode) -> bool:
    opcodes = by_opcode.correlation_ids()
    return any(
        opcodes.as_string(i) == "HFMA2" and by_opcode.as_uint64(i) for i in range(by_opcode.num_instances())
    )
