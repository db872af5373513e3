"""Which launch of run A is which launch of run B: a global sequence alignment.

Two runs of the same model code (FP32 and AMP, say) launch nearly the same kernels
in the same order; AMP adds casts and swaps kernels for their half-precision
twins. So, per phase, the launches of each side are taken in launch order (ncu's
ID: the order the host issued them, which is stream order for a step on one
stream) and aligned with Needleman-Wunsch (global alignment by dynamic
programming, Needleman & Wunsch, J. Mol. Biol. 48, 1970): each launch is paired
with one launch of the other side or with nothing (a gap), maximising the summed
similarity of the pairs minus ``GAP`` per unpaired launch.

Similarity of two launches, from the name keys of ``rooftui.analysis.compare_match``
(``parameter_key``, ``operation_key``) plus the launch shape:

===========  =====  =====================================================
signal        score  when
===========  =====  =====================================================
exact          4     the same kernel name
parameters     3     the same name with template, precision, tile erased
operation      2     the same operation (conv fprop, gemm, elementwise
                     MulFunctor, or the same base name)
similar      1 + J   two plain kernels (no library operation) whose base
                     names share J >= 0.5 of their ``_`` words (Jaccard):
                     ``bn_bw_1C11_singleread`` and ``..._singleread_spec``
shape        +0.5    each of grid and block equal (only on top of a signal)
===========  =====  =====================================================

Launches with none of the four signals are never paired: two gaps instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

GAP = 1.0  # cost of leaving one launch unpaired
SIGNAL_SCORES = {"exact": 4.0, "parameters": 3.0, "operation": 2.0, "similar": 1.0}
SHAPE_BONUS = 0.5
SIMILAR_AT_LEAST = 0.5  # Jaccard of base-name words for the "similar" signal
# Operation keys that name a library operation, not one kernel: names within them
# are told apart by the operation, never by word overlap (fprop vs dgrad).
CATEGORY_PREFIXES = ("conv ", "gemm", "gemv", "elementwise", "reduce", "multi_tensor_apply")


@dataclass(frozen=True)
class LaunchKeys:
    """What the score compares, for one kernel name."""

    name: str
    parameters: str
    operation: str
    words: frozenset[str]  # the base name's ``_`` words, empty for a library operation


@dataclass(frozen=True)
class LaunchMatch:
    """Launch ``a`` (a position in A's kernels) is launch ``b`` of B's, by ``signal``."""

    a: int
    b: int
    signal: str
    phase: str


def name_signal(x: LaunchKeys, y: LaunchKeys) -> tuple[str, float] | None:
    """The strongest name signal two kernels share, with its score; None if none."""
    if x.name == y.name:
        return "exact", SIGNAL_SCORES["exact"]
    if x.parameters == y.parameters:
        return "parameters", SIGNAL_SCORES["parameters"]
    if x.operation == y.operation:
        return "operation", SIGNAL_SCORES["operation"]
    if x.words and y.words:
        jaccard = len(x.words & y.words) / len(x.words | y.words)
        if jaccard >= SIMILAR_AT_LEAST:
            return "similar", SIGNAL_SCORES["similar"] + jaccard
    return None


def words_of(base_name: str, operation: str) -> frozenset[str]:
    if operation.startswith(CATEGORY_PREFIXES):
        return frozenset()
    return frozenset(w for w in base_name.split("_") if w)


def align_phase(
    keys_a: list[LaunchKeys],
    keys_b: list[LaunchKeys],
    shapes_a: list[tuple[str, str]],
    shapes_b: list[tuple[str, str]],
) -> list[tuple[int, int, str]]:
    """Needleman-Wunsch over two launch sequences: (i, j, signal) per aligned pair."""
    n, m = len(keys_a), len(keys_b)
    if not n or not m:
        return []
    # Scores per pair of distinct names first (few), then per launch pair.
    names_a = list(dict.fromkeys(k.name for k in keys_a))
    names_b = list(dict.fromkeys(k.name for k in keys_b))
    key_of = {k.name: k for k in keys_a + keys_b}
    index_a = {name: i for i, name in enumerate(names_a)}
    index_b = {name: j for j, name in enumerate(names_b)}
    signals = [[name_signal(key_of[x], key_of[y]) for y in names_b] for x in names_a]
    by_name = np.array([[s[1] if s else -np.inf for s in row] for row in signals])
    code_a = np.array([index_a[k.name] for k in keys_a])
    code_b = np.array([index_b[k.name] for k in keys_b])
    score = by_name[np.ix_(code_a, code_b)]
    grid_a, block_a = (np.array(v, dtype=object) for v in zip(*shapes_a))
    grid_b, block_b = (np.array(v, dtype=object) for v in zip(*shapes_b))
    score = score + SHAPE_BONUS * (
        (grid_a[:, None] == grid_b[None, :]).astype(float)
        + (block_a[:, None] == block_b[None, :]).astype(float)
    )

    # best[i][j]: the best alignment of the first i launches of A with the first j of B.
    best = np.empty((n + 1, m + 1))
    best[0, :] = -GAP * np.arange(m + 1)
    best[:, 0] = -GAP * np.arange(n + 1)
    step = np.zeros((n + 1, m + 1), dtype=np.int8)  # 0 pair, 1 gap in B (skip A's), 2 gap in A
    step[0, 1:] = 2
    step[1:, 0] = 1
    for i in range(1, n + 1):
        row_score = score[i - 1]
        previous = best[i - 1]
        # The pair and skip-A's-launch moves depend only on the previous row: vectorised.
        diagonal = previous[:-1] + row_score
        up = previous[1:] - GAP
        candidate = np.maximum(diagonal, up)
        choice = np.where(diagonal >= up, 0, 1)
        current = best[i]
        moves = step[i]
        value = current[0]
        for j in range(1, m + 1):  # skipping B's launch depends on this row's last cell
            left = value - GAP
            if candidate[j - 1] >= left:
                value = candidate[j - 1]
                moves[j] = choice[j - 1]
            else:
                value = left
                moves[j] = 2
            current[j] = value
    pairs = []
    i, j = n, m
    while i > 0 and j > 0:
        move = step[i, j]
        if move == 0:
            signal = signals[code_a[i - 1]][code_b[j - 1]]
            pairs.append((i - 1, j - 1, signal[0]))
            i, j = i - 1, j - 1
        elif move == 1:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs


def align_launches(a: pd.DataFrame, b: pd.DataFrame, keys: dict[str, LaunchKeys]) -> list[LaunchMatch]:
    """Pair the launches of ``a`` and ``b`` (kernel-table frames), phase by phase.

    ``keys`` maps every kernel name of both frames to its ``LaunchKeys``. Rows are
    taken in ``id`` order within each phase (NaN/empty phase is one phase of its own).
    """
    phase_a = a["phase"].fillna("").astype(str) if "phase" in a else pd.Series("", index=a.index)
    phase_b = b["phase"].fillna("").astype(str) if "phase" in b else pd.Series("", index=b.index)
    order_a = a["id"].to_numpy().argsort(kind="stable")
    order_b = b["id"].to_numpy().argsort(kind="stable")
    matches: list[LaunchMatch] = []
    for phase in dict.fromkeys(list(phase_a.iloc[order_a]) + list(phase_b.iloc[order_b])):
        rows_a = [p for p in order_a if phase_a.iloc[p] == phase]
        rows_b = [p for p in order_b if phase_b.iloc[p] == phase]
        pairs = align_phase(
            [keys[a["name"].iloc[p]] for p in rows_a],
            [keys[b["name"].iloc[p]] for p in rows_b],
            [(str(a["grid"].iloc[p]), str(a["block"].iloc[p])) for p in rows_a],
            [(str(b["grid"].iloc[p]), str(b["block"].iloc[p])) for p in rows_b],
        )
        matches += [LaunchMatch(int(rows_a[i]), int(rows_b[j]), signal, phase) for i, j, signal in pairs]
    return matches
