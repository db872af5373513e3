"""Which kernel of run A is which kernel of run B: the matching behind ``compare_runs``
(``rooftui.analysis.compare``) and the name keys ``diff`` and the step budget share.

Matching starts from the launches: per phase, the two launch sequences are aligned
(``rooftui.analysis.alignment``: Needleman-Wunsch, with a similarity from the name
signals below and the launch shape), so each launch of A is paired with the launch
of B at the same place in the model's code, or with nothing. The launch pairs then
aggregate into one-to-one kernel matches (below); ``compare_runs`` also counts them
in its per-operation table (a B launch paired with an A launch counts under A's
operation).

Name signals, strongest first (each pair of launches and each kernel match says
which one it rests on, as ``method``):

``exact``
    the same kernel name.
``parameters``
    the same name once its parameters are erased: type and number template
    arguments (``<float, 512>`` and ``<__half, 512>``) and the namespaces inside
    them (``at::``, ``cutlass__5x_cudnn::``), precision codes
    (``f32f32_tf32f32`` and ``f16f16_f16f32``), tile shapes, alignments and
    architecture numbers (``sm80``, ``tilesize128x64x32``, ``align8``); other
    digits (``step1``, ``step2``) still tell kernels apart.
``operation``
    the same operation: a convolution direction (cuDNN xmma, cutlass, cuDNN
    engine or other convolution kernels with ``fprop``/``dgrad``/``wgrad``), a GEMM
    (``gemm``, cuBLAS ``nvjet``), a PyTorch elementwise or reduction launcher
    with the same functor (``elementwise MulFunctor``), or else the same base
    name (template arguments dropped). Different code doing the same job.
``similar``
    two kernels outside those library operations whose base names share at least
    half their ``_`` words (``bn_bw_1C11_singleread`` and ``..._singleread_spec``).

Kernels (all launches of one name) are matched one-to-one by the launch pairs
between them, most pairs first (``how`` = ``aligned``, ``aligned`` = the number of
launch pairs, ``method`` = the signal most of them rest on). A pair of kernels
whose launch counts differ by more than 2x is a match only if the alignment
supports it: at least half the aligned launches of each of the two kernels are
aligned with the other one (so ``bn_bw<float>``, 59 launches, whose launches align
with ``bn_bw_spec<__half2>`` is not the match of ``bn_bw<__half>``, 1 launch, even
where that one launch aligns with one of its launches). Kernels left over are then
matched by name alone (``how`` = ``name``, the three name tiers of
``match_kernels``, same phase for the fuzzy ones), and only when their launch
counts are within 2x.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from rooftui.analysis.alignment import LaunchKeys, LaunchMatch, words_of

METHODS = ("exact", "parameters", "operation", "similar")
HOWS = ("aligned", "name")
COUNT_RATIO = 2.0  # kernels whose launch counts differ more need the alignment's support

# ---------------------------------------------------------------- name keys

_TYPE = (
    r"(?:unsigned |signed )?(?:long long|long|int|short|char)|u?int(?:8|16|32|64)_t|bool|float|double"
    r"|__half|__nv_half|__nv_bfloat16|half|Half|BFloat16|half_t|bfloat16_t|tfloat32_t"
)
# A type, with any namespace (c10::Half, cutlass::half_t), as a whole word.
_TYPE_RE = re.compile(rf"(?<![\w:])(?:\w+::)*(?:{_TYPE})(?![\w:])")
_NAMESPACE_RE = re.compile(r"\b\w+::(?=[A-Za-z_])")  # at::, cutlass__5x_cudnn::, not ::operator
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?![\w.])")
_WORD_RE = re.compile(r"\w+")
# Parts of cuDNN/cutlass/cuBLAS names that are parameters: precisions (f32f32, tf32, bf16),
# architectures (sm80), tile and warp shapes (tilesize128x64x32, 64x64, 2x4), stages,
# alignments, the cuDNN version tag (5x). Digits elsewhere ("step1") name different kernels.
_PRECISION_TOKEN_RE = re.compile(r"(?:(?:tf|bf|f)\d+)+")
_SHAPE_TOKEN_RE = re.compile(r"(?:sm|stage|align[ac]?|g|tensor|[a-z]*size)?\d+(?:x\d+)*x?")
_DIGITS_RE = re.compile(r"\d+")
_IDENT_RE = re.compile(r"[A-Za-z_]\w*")
_CONV_RE = re.compile(r"fprop|dgrad|wgrad", re.IGNORECASE)
# ... in a kernel of a convolution library or engine, not any name with "dgrad" in it.
_CONV_LIBRARY_RE = re.compile(r"xmma|cutlass|cudnn|conv|implicit_?gemm|engine", re.IGNORECASE)

# Kernel names that only wrap the real kernel, named in their first template argument.
_WRAPPERS = {"Kernel", "Kernel2", "device_kernel", "kernel"}
# PyTorch launchers: the operation is the functor they are instantiated with.
_LAUNCHERS = {
    "elementwise_kernel": "elementwise",
    "vectorized_elementwise_kernel": "elementwise",
    "unrolled_elementwise_kernel": "elementwise",
    "elementwise_kernel_with_index": "elementwise",
    "reduce_kernel": "reduce",
    "multi_tensor_apply_kernel": "multi_tensor_apply",
}
# Identifiers inside a launcher's template arguments that do not name the operation.
_NOT_FUNCTOR = re.compile(
    r"T\d*|void|const|lambda|operator|instance|array|unnamed|anon|unsigned|signed|OpaqueType|TensorIteratorBase"
    r"|TensorIterator|gpu_kernel_impl_nocast|gpu_kernel_impl|BinaryFunctor|BUnaryFunctor|UnaryFunctor"
    r"|ReduceOp|func_wrapper_t|\w*Metadata|" + _TYPE
)


def _template_start(name: str) -> int:
    at = name.find("<")
    return len(name) if at < 0 else at


def parameter_key(name: str) -> str:
    """``name`` with its parameters erased: the key of the ``parameters`` tier.

    >>> parameter_key("bn_fwtr<float, 512, 2>") == parameter_key("bn_fwtr<__half, 512, 5>")
    True
    """
    name = name.replace("<unnamed>", "anon")
    start = _template_start(name)
    base, arguments = name[:start], name[start:]
    arguments = _NUMBER_RE.sub("N", _TYPE_RE.sub("T", _NAMESPACE_RE.sub("", arguments)))
    return _WORD_RE.sub(lambda word: "_".join(map(_erase_token, word.group(0).split("_"))), base + arguments)


def _erase_token(token: str) -> str:
    """A parameter-like part of a name ("sm90", "f32f32", "tilesize64x64x32", "align8") with its
    numbers erased; any other part ("kernel1", "s1688gemm") as it is."""
    if _PRECISION_TOKEN_RE.fullmatch(token):
        return "P"
    if _SHAPE_TOKEN_RE.fullmatch(token):
        return _DIGITS_RE.sub("N", token)
    return token


def operation_key(name: str) -> str:
    """What a kernel does, independent of how: "conv fprop", "gemm", "elementwise MulFunctor"."""
    name = name.replace("<unnamed>", "anon")
    start = _template_start(name)
    base = name[:start].strip()
    subject = name if base in _WRAPPERS else base
    direction = _CONV_RE.search(subject)
    if direction and _CONV_LIBRARY_RE.search(subject):
        return f"conv {direction.group(0).lower()}"
    lowered = subject.lower()
    if "gemv" in lowered:
        return "gemv"
    if "gemm" in lowered or lowered.startswith("nvjet"):
        return "gemm"
    if base in _LAUNCHERS:
        # multi_tensor_apply names the functor, then the operation (std::divides).
        kept = 2 if _LAUNCHERS[base] == "multi_tensor_apply" else 1
        return " ".join([_LAUNCHERS[base], *_functors(name[start:])[:kept]])
    if base in _WRAPPERS:
        inner = _identifiers(name[start:])
        return inner[0] if inner else base
    return base


def _identifiers(text: str) -> list[str]:
    """Identifiers in ``text`` that are not a namespace (followed by ``::``)."""
    return [m.group(0) for m in _IDENT_RE.finditer(text) if text[m.end() : m.end() + 2] != "::"]


def _functors(arguments: str) -> list[str]:
    seen: list[str] = []
    for word in _identifiers(arguments):
        if not _NOT_FUNCTOR.fullmatch(word) and word not in seen:
            seen.append(word)
    return seen


# ---------------------------------------------------------------- matching


@dataclass(frozen=True)
class Match:
    """Row ``a`` of A's kernels is row ``b`` of B's, found by ``method`` on ``key``.

    ``how`` is ``aligned`` (``aligned`` launch pairs of the two kernels support it;
    ``candidates_a``/``_b`` count the kernels of each side that launches of the
    other kernel were aligned with) or ``name`` (no launch pair: ``rank`` is the
    pair's place by time among the ``candidates_a`` and ``candidates_b`` kernels
    that shared the key, 1, 1, 1 for a unique key).
    """

    a: int
    b: int
    method: str
    key: str
    rank: int = 1
    candidates_a: int = 1
    candidates_b: int = 1
    how: str = "name"
    aligned: int = 0


def match_kernels(a: pd.DataFrame, b: pd.DataFrame) -> list[Match]:
    """Pair rows of ``a`` with rows of ``b`` (positions), one-to-one, in the three tiers.

    Each frame needs ``name`` and ``time_s``; ``phase`` (optional) restricts the
    fuzzy tiers to kernels of the same phase.
    """
    phase_a = a["phase"].fillna("").astype(str) if "phase" in a else pd.Series("", index=a.index)
    phase_b = b["phase"].fillna("").astype(str) if "phase" in b else pd.Series("", index=b.index)
    tiers: list[tuple[str, Callable[[str, str], str]]] = [
        ("exact", lambda name, phase: name),
        ("parameters", lambda name, phase: f"{phase}\t{parameter_key(name)}"),
        ("operation", lambda name, phase: f"{phase}\t{operation_key(name)}"),
    ]
    left = dict(enumerate(zip(a["name"].astype(str), phase_a, a["time_s"].astype(float))))
    right = dict(enumerate(zip(b["name"].astype(str), phase_b, b["time_s"].astype(float))))
    matches: list[Match] = []
    for method, key_of in tiers:
        keys_a = _by_key(left, key_of)
        keys_b = _by_key(right, key_of)
        for key in keys_a:
            if key not in keys_b:
                continue
            ranked_a, ranked_b = keys_a[key], keys_b[key]
            for rank, (i, j) in enumerate(zip(ranked_a, ranked_b), start=1):
                shown = key.split("\t")[-1]
                matches.append(Match(i, j, method, shown, rank, len(ranked_a), len(ranked_b)))
                del left[i], right[j]
    return matches


def _by_key(
    rows: dict[int, tuple[str, str, float]], key_of: Callable[[str, str], str]
) -> dict[str, list[int]]:
    """Row positions per key, heaviest first (ties by name, for a stable order)."""
    groups: dict[str, list[int]] = {}
    for position, (name, phase, _) in rows.items():
        groups.setdefault(key_of(name, phase), []).append(position)
    return {key: sorted(members, key=lambda p: (-rows[p][2], rows[p][0])) for key, members in groups.items()}


def launch_keys(name: str) -> LaunchKeys:
    """The alignment's view of one kernel name (``rooftui.analysis.alignment``)."""
    operation = operation_key(name)
    base = name.replace("<unnamed>", "anon")[: _template_start(name.replace("<unnamed>", "anon"))].strip()
    return LaunchKeys(name, parameter_key(name), operation, words_of(base, operation))


def kernel_matches(
    groups_a: pd.DataFrame,
    groups_b: pd.DataFrame,
    launches_a: pd.DataFrame,
    launches_b: pd.DataFrame,
    launch_matches: list[LaunchMatch],
) -> list[Match]:
    """Kernels (rows of the grouped frames) matched one-to-one from the launch pairs,
    then the rest by name alone; see the module docstring for the rules."""
    position_a = {key: i for i, key in enumerate(zip(groups_a["device"], groups_a["name"]))}
    position_b = {key: j for j, key in enumerate(zip(groups_b["device"], groups_b["name"]))}
    group_a = [position_a[key] for key in zip(launches_a["device"], launches_a["name"])]
    group_b = [position_b[key] for key in zip(launches_b["device"], launches_b["name"])]
    support: dict[tuple[int, int], dict[str, int]] = {}
    for match in launch_matches:
        signals = support.setdefault((group_a[match.a], group_b[match.b]), {})
        signals[match.signal] = signals.get(match.signal, 0) + 1
    partners_a: dict[int, int] = {}  # kernels of B that a kernel of A has launches aligned with
    partners_b: dict[int, int] = {}
    aligned_a: dict[int, int] = {}  # launches of a kernel of A aligned with anything
    aligned_b: dict[int, int] = {}
    for (i, j), signals in support.items():
        partners_a[i] = partners_a.get(i, 0) + 1
        partners_b[j] = partners_b.get(j, 0) + 1
        aligned_a[i] = aligned_a.get(i, 0) + sum(signals.values())
        aligned_b[j] = aligned_b.get(j, 0) + sum(signals.values())
    count_a, count_b = groups_a["count"].to_numpy(), groups_b["count"].to_numpy()
    time = groups_a["time_s"].to_numpy() + 0.0

    def pairs_of(pair: tuple[int, int]) -> int:
        return sum(support[pair].values())

    matches: list[Match] = []
    taken_a: set[int] = set()
    taken_b: set[int] = set()
    for i, j in sorted(support, key=lambda p: (-pairs_of(p), -time[p[0]], p)):
        if i in taken_a or j in taken_b:
            continue
        aligned = pairs_of((i, j))
        larger, smaller = max(count_a[i], count_b[j]), min(count_a[i], count_b[j])
        if larger > COUNT_RATIO * smaller and 2 * aligned < max(aligned_a[i], aligned_b[j]):
            continue  # counts far apart, and most aligned launches of one side are elsewhere
        method = max(support[(i, j)].items(), key=lambda item: (item[1], -METHODS.index(item[0])))[0]
        matches.append(
            Match(
                i,
                j,
                method,
                _shown_key(method, groups_a["name"][i], groups_b["name"][j]),
                1,
                partners_b.get(j, 0),
                partners_a.get(i, 0),
                "aligned",
                aligned,
            )
        )
        taken_a.add(i)
        taken_b.add(j)
    rest_a = [i for i in range(len(groups_a)) if i not in taken_a]
    rest_b = [j for j in range(len(groups_b)) if j not in taken_b]
    for by_name in match_kernels(
        groups_a.iloc[rest_a].reset_index(drop=True), groups_b.iloc[rest_b].reset_index(drop=True)
    ):
        i, j = rest_a[by_name.a], rest_b[by_name.b]
        if max(count_a[i], count_b[j]) <= COUNT_RATIO * min(count_a[i], count_b[j]):
            matches.append(
                Match(
                    i,
                    j,
                    by_name.method,
                    by_name.key,
                    by_name.rank,
                    by_name.candidates_a,
                    by_name.candidates_b,
                    "name",
                    0,
                )
            )
    return matches


def _shown_key(method: str, name_a: str, name_b: str) -> str:
    if method == "exact":
        return name_a
    if method == "parameters":
        return parameter_key(name_a)
    if method == "operation":
        return operation_key(name_a)
    return f"{operation_key(name_a)} ~ {operation_key(name_b)}"
