"""Two runs side by side: which kernel in A is which kernel in B, and what changed.

Kernels are compared grouped by name (all invocations of one kernel as one row,
as in ``grouped_kernels``), each side against its own GPU's ceilings, so A may
come from a V100 and B from an H200.

Matching is done in three tiers, most certain first; a kernel matched in one
tier is out of the later ones, and every match says how it was made:

``exact``
    the same kernel name.
``parameters``
    the same name once its parameters are erased: type and number template
    arguments (``<float, 512>`` and ``<__half, 512>``) and the namespaces inside
    them (``at::``, ``cutlass__5x_cudnn::``), precision codes
    (``f32f32_tf32f32`` and ``f16f16_f16f32``), tile shapes, alignments and
    architecture numbers (``sm80``, ``tilesize128x64x32``, ``align8``); other
    digits (``step1``, ``step2``) still tell kernels apart. Same phase only.
``operation``
    the same operation in the same phase: a convolution direction (cuDNN xmma,
    cutlass, cuDNN engine or other convolution kernels with ``fprop``/``dgrad``/
    ``wgrad``), a GEMM
    (``gemm``, cuBLAS ``nvjet``), a PyTorch elementwise or reduction launcher
    with the same functor (``elementwise MulFunctor``), or else the same base
    name (template arguments dropped). Different code doing the same job.

Within one tier several kernels may share a key (three fprop convolutions in A,
four in B); they are paired one-to-one by time rank, heaviest with heaviest, and
the rest stay unmatched. Ranks are recorded so a reader can judge the pairing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from rooftui.analysis import Run, grouped_kernels
from rooftui.analysis.summary import ALL, phase_table, pipeline_table, zero_ai_table

METHODS = ("exact", "parameters", "operation")

# Per-kernel quantities carried into the comparison, once for each side.
SIDE_COLUMNS = ("name", "device", "phase", "count", "time_s", "time_mean_s", "flops", "flop_rate",
                "ai_l1", "ai_l2", "ai_hbm", "pipeline", "bound", "roof_fraction", "zero_ai")

# ---------------------------------------------------------------- name keys

_TYPE = (r"(?:unsigned |signed )?(?:long long|long|int|short|char)|u?int(?:8|16|32|64)_t|bool|float|double"
         r"|__half|__nv_half|__nv_bfloat16|half|Half|BFloat16|half_t|bfloat16_t|tfloat32_t")
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
_LAUNCHERS = {"elementwise_kernel": "elementwise", "vectorized_elementwise_kernel": "elementwise",
              "unrolled_elementwise_kernel": "elementwise", "elementwise_kernel_with_index": "elementwise",
              "reduce_kernel": "reduce", "multi_tensor_apply_kernel": "multi_tensor_apply"}
# Identifiers inside a launcher's template arguments that do not name the operation.
_NOT_FUNCTOR = re.compile(
    r"T\d*|void|const|lambda|operator|instance|array|unnamed|anon|unsigned|signed|OpaqueType|TensorIteratorBase"
    r"|TensorIterator|gpu_kernel_impl_nocast|gpu_kernel_impl|BinaryFunctor|BUnaryFunctor|UnaryFunctor"
    r"|ReduceOp|func_wrapper_t|\w*Metadata|" + _TYPE)


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
    return [m.group(0) for m in _IDENT_RE.finditer(text) if text[m.end():m.end() + 2] != "::"]


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

    ``rank`` is the pair's place by time among the ``candidates_a`` and
    ``candidates_b`` kernels that shared the key (1, 1, 1 for a unique key).
    """

    a: int
    b: int
    method: str
    key: str
    rank: int = 1
    candidates_a: int = 1
    candidates_b: int = 1


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


def _by_key(rows: dict[int, tuple[str, str, float]], key_of) -> dict[str, list[int]]:
    """Row positions per key, heaviest first (ties by name, for a stable order)."""
    groups: dict[str, list[int]] = {}
    for position, (name, phase, _) in rows.items():
        groups.setdefault(key_of(name, phase), []).append(position)
    return {key: sorted(members, key=lambda p: (-rows[p][2], rows[p][0])) for key, members in groups.items()}


# ---------------------------------------------------------------- the comparison


@dataclass
class Comparison:
    """A and B side by side. Frames use ``_a``/``_b`` suffixes for each side's value.

    kernels
        one row per matched pair and per kernel found on one side only, heaviest
        (larger of the two times) first: ``status`` (matched/only_a/only_b),
        ``method``, ``key``, ``rank``, ``candidates_a``/``_b``, ``operation_a``/``_b``,
        the ``SIDE_COLUMNS`` of each side, and ``time_ratio`` (B / A).
    operations
        per phase and operation key, every launch of each side in its own phase:
        ``kernels`` (names), ``count`` (launches), ``time_s``, ``flops``,
        ``pipeline`` (of most time).
    phases, pipelines, zero_ai
        ``phase_table``, ``pipeline_table`` and ``zero_ai_table`` of each side,
        joined on phase or pipeline.
    """

    label_a: str
    label_b: str
    run_a: Run
    run_b: Run
    kernels: pd.DataFrame
    operations: pd.DataFrame
    phases: pd.DataFrame
    pipelines: pd.DataFrame
    zero_ai: pd.DataFrame
    notes: list[str] = field(default_factory=list)

    @property
    def matched(self) -> pd.DataFrame:
        return self.kernels[self.kernels["status"] == "matched"]

    @property
    def only_a(self) -> pd.DataFrame:
        return self.kernels[self.kernels["status"] == "only_a"]

    @property
    def only_b(self) -> pd.DataFrame:
        return self.kernels[self.kernels["status"] == "only_b"]

    def total_time(self, side: str) -> float:
        run = self.run_a if side == "a" else self.run_b
        return float(run.kernels["time_s"].sum())


def compare_runs(run_a: Run, run_b: Run, label_a: str = "A", label_b: str = "B") -> Comparison:
    """Match the kernels of two runs and put every table of them side by side."""
    groups_a = grouped_kernels(run_a).reset_index(drop=True)
    groups_b = grouped_kernels(run_b).reset_index(drop=True)
    matches = match_kernels(groups_a, groups_b)
    side_a = _side(groups_a, "_a")
    side_b = _side(groups_b, "_b")
    rows = []
    for match in matches:
        rows.append({"status": "matched", "method": match.method, "key": match.key, "rank": match.rank,
                     "candidates_a": match.candidates_a, "candidates_b": match.candidates_b,
                     **side_a[match.a], **side_b[match.b]})
    paired_a = {m.a for m in matches}
    paired_b = {m.b for m in matches}
    rows += [{"status": "only_a", **side_a[i]} for i in range(len(groups_a)) if i not in paired_a]
    rows += [{"status": "only_b", **side_b[j]} for j in range(len(groups_b)) if j not in paired_b]
    kernels = pd.DataFrame(rows, columns=_kernel_columns())
    kernels["time_ratio"] = kernels["time_s_b"] / kernels["time_s_a"]
    heaviest = kernels[["time_s_a", "time_s_b"]].max(axis=1)
    kernels = kernels.iloc[heaviest.sort_values(ascending=False, kind="stable").index].reset_index(drop=True)

    notes = [f"A and B: {note}" if note in run_b.notes else f"A: {note}" for note in run_a.notes]
    notes += [f"B: {note}" for note in run_b.notes if note not in run_a.notes]
    if set(run_a.devices) != set(run_b.devices):
        notes.append(f"different GPUs: A ran on {', '.join(run_a.devices)}, B on {', '.join(run_b.devices)}; "
                     "each side is measured against its own ceilings")
    return Comparison(
        label_a, label_b, run_a, run_b, kernels,
        operations=_operations(run_a.kernels, run_b.kernels),
        phases=_join(phase_table(run_a.kernels), phase_table(run_b.kernels), "phase"),
        pipelines=_join(pipeline_table(run_a.kernels), pipeline_table(run_b.kernels), "pipeline"),
        zero_ai=_join(zero_ai_table(run_a.kernels), zero_ai_table(run_b.kernels), "phase"),
        notes=notes,
    )


def _kernel_columns() -> list[str]:
    columns = ["status", "method", "key", "rank", "candidates_a", "candidates_b"]
    for suffix in ("_a", "_b"):
        columns += [f"{c}{suffix}" for c in SIDE_COLUMNS] + [f"operation{suffix}"]
    return columns


def _side(groups: pd.DataFrame, suffix: str) -> list[dict]:
    present = [c for c in SIDE_COLUMNS if c in groups]
    records = groups[present].to_dict("records")
    for record in records:
        record["operation"] = operation_key(record["name"])
    return [{f"{k}{suffix}": v for k, v in record.items()} for record in records]


def _operations(kernels_a: pd.DataFrame, kernels_b: pd.DataFrame) -> pd.DataFrame:
    """Time, launches, FLOPs and main pipeline per (phase, operation), both sides.

    Every launch counts in its own phase (a kernel launched in forward and in
    backward is in both), unlike the matched kernels, which carry the phase of
    their most time.
    """

    def per_operation(kernels: pd.DataFrame) -> pd.DataFrame:
        names = kernels["name"].astype(str)
        keys = {name: operation_key(name) for name in names.unique()}
        frame = kernels.assign(operation=names.map(keys), phase=kernels["phase"].fillna(""))
        grouped = frame.groupby(["phase", "operation"], sort=False)
        out = pd.DataFrame({"kernels": grouped["name"].nunique(), "count": grouped.size(),
                            "time_s": grouped["time_s"].sum(), "flops": grouped["flops"].sum()})
        by_pipeline = frame.groupby(["phase", "operation", "pipeline"], sort=False)["time_s"].sum()
        out["pipeline"] = by_pipeline.groupby(level=[0, 1]).idxmax().map(lambda key: key[2])
        return out

    joined = per_operation(kernels_a).merge(per_operation(kernels_b), how="outer", left_index=True,
                                            right_index=True, suffixes=("_a", "_b"))
    joined = joined.reset_index()
    joined["time_ratio"] = joined["time_s_b"] / joined["time_s_a"]
    heaviest = joined[["time_s_a", "time_s_b"]].max(axis=1)
    return joined.iloc[heaviest.sort_values(ascending=False, kind="stable").index].reset_index(drop=True)


def _join(table_a: pd.DataFrame, table_b: pd.DataFrame, on: str) -> pd.DataFrame:
    """Two summary tables on one row per ``on`` value, in A's order then B's new ones."""
    joined = table_a.merge(table_b, on=on, how="outer", suffixes=("_a", "_b"), sort=False)
    order = list(table_a[on]) + [v for v in table_b[on] if v not in set(table_a[on])]
    order = [v for v in order if v != ALL] + [v for v in order if v == ALL]  # Table III's total row last
    joined = joined.set_index(on).loc[order].reset_index()
    if "time_s_a" in joined:
        joined["time_ratio"] = joined["time_s_b"] / joined["time_s_a"]
    return joined
