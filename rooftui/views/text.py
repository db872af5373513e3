"""Text from files made safe for a terminal: the one place names are escaped or cut.

Imports nothing from rooftui, so every layer may use it (see the import contract).

Kernel, NVTX, device and trace names come from other people's programs. Before any of
them reaches a terminal (tables, the TUI, error messages, notes) control characters are
shown escaped, so a profile can never move the cursor, retitle the window or write to
the clipboard (ESC, CSI, OSC 0/52). JSON and CSV outputs keep the exact text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich is imported where used: this module stays cheap to import
    from rich.console import Console
    from rich.text import Text

# C0 controls (tab kept as a visible escape too: it breaks column layouts), DEL, and C1.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    return _NAMED.get(ch, f"\\x{ord(ch):02x}")


def printable(text: object) -> str:
    """`text` with every control character shown as an escape: "\\e]52;c;..." not ESC ]52."""
    s = text if isinstance(text, str) else str(text)
    return _CONTROL.sub(_escape, s)


# One ASCII character for each non-ASCII one rooftui prints, so that a table keeps its
# columns when folded after layout (``ascii_fold``).
_ASCII_ONE_FOR_ONE = str.maketrans(
    {
        "µ": "u",
        "–": "-",
        "—": "-",
        "·": "/",
        "×": "x",
        "…": "~",
        "▲": "^",
        "▼": "v",
        "→": ">",
        "Δ": "d",
        "○": "o",
        "●": "*",
        "≥": ">",
        "≤": "<",
        "±": "+",
        "°": "o",
        "’": "'",
        "“": '"',
        "”": '"',
    }
)


def ascii_fold(text: str) -> str:
    """``text`` in ASCII, one character for one: rooftui's few symbols by their look-alikes
    ("µs" -> "us", "·" -> "/"), anything else from a file as "?". Lines keep their width,
    so a table laid out before folding keeps its columns."""
    folded = text.translate(_ASCII_ONE_FOR_ONE)
    return folded if folded.isascii() else "".join(ch if ch.isascii() else "?" for ch in folded)


def ellipsis_mark(ascii_mode: bool) -> str:
    """What marks text left out: "…", or "..." where the screen draws ASCII only."""
    return "..." if ascii_mode else "…"


def shorten(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` cut to ``width`` characters, its end replaced by ``ellipsis`` when cut
    ("~" in ASCII mode); "" for a width below one."""
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return ellipsis[: max(width, 0)]
    return text[: width - len(ellipsis)] + ellipsis


# What a person recognises in a kernel name (``kernel_label``). The names are as
# rooftui.model.names.short_name leaves them: no return type, namespaces or casts.
# PyTorch's launch wrappers and the metadata around an operator: never what a user says.
_WRAPPERS = frozenset(
    {
        "elementwise_kernel",
        "vectorized_elementwise_kernel",
        "unrolled_elementwise_kernel",
        "gpu_kernel_impl",
        "gpu_kernel_impl_nocast",
        "gpu_kernel_with_scalars",
        "multi_tensor_apply_kernel",
        "reduce_kernel",
        "ReduceOp",
        "func_wrapper_t",
        "BinaryFunctor",
        "BUnaryFunctor",
        "AUnaryFunctor",
        "UnaryFunctor",
        "Kernel",
        "Kernel2",
        "ImplicitGemmMultistage",
        "ImplicitGemmPipelined",
        "TensorListMetadata",
        "TensorListScalarListMetadata",
        "OpaqueType",
        "unsigned",
        "signed",
        "const",
    }
)
# Element types, shown as the operator's template arguments: "direct_copy_kernel_cuda<float>".
_DTYPES = frozenset(
    {
        "float",
        "double",
        "half",
        "Half",
        "__half",
        "__half2",
        "half_t",
        "BFloat16",
        "__nv_bfloat16",
        "__nv_bfloat162",
        "bfloat16_t",
        "tfloat32_t",
        "float2",
        "int",
        "long",
        "bool",
        "short",
        "int8_t",
        "uint8_t",
        "int32_t",
        "int64_t",
        "float_e4m3_t",
        "float_e5m2_t",
        "__nv_fp8_e4m3",
        "__nv_fp8_e5m2",
    }
)
# A wrapper named where it tells two kernels apart, in the word PyTorch's sources use for it.
_WRAPPER_WORDS = {
    "elementwise_kernel": "elementwise",
    "vectorized_elementwise_kernel": "vectorized",
    "unrolled_elementwise_kernel": "unrolled",
    "multi_tensor_apply_kernel": "multi_tensor",
    "reduce_kernel": "reduce",
}
_LAMBDA = re.compile(r"(?:::| )?\[lambda\(([^)]*)\) \(instance \d+\)\]")
_INDEX_LAMBDA = re.compile(r"\(TensorIteratorBase &, const T1 &\)::\[lambda\(int\) \(instance \d+\)\]")
_PARAMETERS = re.compile(r"(?<=[\w>])\([^()]*\)")
_NOISE_ARGUMENTS = re.compile(
    r",\s*(?:array<char \*, \d+>|(?:Trivial)?OffsetCalculator<[^<>]*>|LoadWithCast<\d+>|StoreWithCast<\d+>"
    r"|LoadWithoutCast|StoreWithoutCast)"
)
# cuDNN/cuBLAS (xmma) and CUTLASS kernels say everything in one word: the launch details
# go first, then the layouts and variants (kept where two kernels differ only there).
_XMMA = re.compile(r"xmma|cutlass")
_XMMA_BOILERPLATE = re.compile(r"_(?:execute|kernel__5x_(?:cudnn|cublas)|warpgroupsize1x1x1|g1)(?=_|$)")
_XMMA_DETAIL = re.compile(
    r"_(?:implicit_gemm|indexed|wo_smem|nhwckrsc|nchwkcrs|nhwc|nchw|stage\d+|warpsize\d+x\d+x\d+"
    r"|warpgroupsize\d+x\d+x\d+|tensor\d+x\d+x\d+|t\dr\ds\d|align[ac]?\d+|ffma|strided|unity_stride"
    r"|optimized|tensorop|segment_k_(?:on|off)|split_k)(?=_|$)"
)
_CONV_DIRECTION = re.compile(r"(Fprop|Dgrad|Wgrad)")
_CUTLASS_PARTS = re.compile(r"Iterator|ThreadMap|Shape|Array|Policy|Epilogue|Swizzle")
_GEMM_SHAPE = re.compile(r"GemmShape<(\d+), (\d+), (\d+)>")
_WORD = re.compile(r"[A-Za-z_]\w*")
_LAUNCH = re.compile(r"([A-Za-z_]\w*)<((?:\d+, )*)")  # a wrapper and its leading launch numbers


def _without_lambda_noise(name: str) -> str:
    """``name`` without PyTorch's lambda wrappers and parameter lists; the first lambda
    with arguments, the one that holds the element types, becomes template arguments:
    ``direct_copy_kernel_cuda(TensorIteratorBase &)::[lambda() (instance 3)]::operator ()()
    [lambda(float) (instance 1)]`` -> ``direct_copy_kernel_cuda<float>``."""
    text = _INDEX_LAMBDA.sub("", name).replace("::operator ()()", "").replace("::operator ()", "")
    kept = False

    def lambda_types(match: re.Match[str]) -> str:
        nonlocal kept
        if kept or not match.group(1):
            return ""
        kept = True
        return f"<{match.group(1)}>"

    text = _LAMBDA.sub(lambda_types, text)
    while True:
        shorter = _PARAMETERS.sub("", text)
        if shorter == text:
            break
        text = shorter
    return _NOISE_ARGUMENTS.sub("", text.replace("void ", ""))


def kernel_label(name: str, detail: int = 0) -> str:
    """``name`` as a person recognises it, at a ``detail`` from 0 (shortest) to 4 (``name``).

    0: the operator(s), element types, conv direction and tile, without launch wrappers,
    metadata and lambda noise (``elementwise_kernel<128, 4, gpu_kernel_impl_nocast<
    direct_copy_kernel_cuda(TensorIteratorBase &)::[lambda() ...] [lambda(float) ...]>
    ...>`` -> ``direct_copy_kernel_cuda<float>``; an xmma kernel keeps its arch, library,
    direction, types and tile: ``sm90_xmma_fprop_f16f16_f16f32_f32_tilesize128x64x32``).
    1: and the launch wrapper (``direct_copy_kernel_cuda<float> elementwise``), or an
    xmma kernel's variants (segment-k, layouts, alignment).
    2: and the wrapper's launch shape (``direct_copy_kernel_cuda<float> elementwise<128,4>``).
    3: the whole name without lambda noise, parameter lists and metadata arguments.
    4: ``name`` itself.
    """
    if detail >= 4:
        return name
    return _labels(name)[min(detail, 3)]


@lru_cache(maxsize=65536)
def _labels(name: str) -> tuple[str, str, str, str]:
    """``kernel_label`` of ``name`` at details 0 to 3, worked out once per name (a table
    is shortened again at every width)."""
    if "<" not in name and "(" not in name:
        if not _XMMA.search(name):
            return name, name, name, name
        text = _XMMA_BOILERPLATE.sub("", name)
        return _XMMA_DETAIL.sub("", text), text, text, text
    text = _without_lambda_noise(name)
    operators: list[str] = []
    dtypes: list[str] = []
    for word in _WORD.findall(text.replace("unsigned int", "unsigned")):
        if word in _DTYPES:
            if word not in dtypes:
                dtypes.append(word)
        elif word not in _WRAPPERS and "Shape" not in word and word not in operators:
            operators.append(word)
    if not operators:
        return text, text, text, text
    # A second operator is the functor a wrapper applies ("BinaryOpScalarFunctor plus"),
    # not one of CUTLASS's iterators.
    operators = operators[:1] + [op for op in operators[1:2] if not _CUTLASS_PARTS.search(op)]
    direction = _CONV_DIRECTION.search(text)
    shape = _GEMM_SHAPE.search(text)
    outer = _LAUNCH.match(text)
    wrapper = outer.group(1) if outer and outer.group(1) in _WRAPPERS else ""
    launch = outer.group(2).rstrip(", ").replace(" ", "") if wrapper and outer else ""
    labels = []
    for detail in range(3):  # each operator at the same detail (an xmma one keeps its variants)
        label = " ".join(_labels(op)[detail] for op in operators)
        if direction and direction.group(1).lower() not in label.lower():
            label += " " + direction.group(1).lower()
        if dtypes:
            label += f"<{','.join(dtypes)}>"
        if shape:
            label += " " + "x".join(shape.groups())
        if detail >= 1 and wrapper:
            label += " " + _WRAPPER_WORDS.get(wrapper, wrapper)
            if detail == 2 and launch:
                label += f"<{launch}>"
        labels.append(label)
    return labels[0], labels[1], labels[2], text


def distinct_labels(names: Iterable[str], width: int) -> dict[str, str]:
    """``{name: label}``: each name whole where it fits ``width``, else its
    ``kernel_label`` at the least detail that no other name's label shares."""
    names = list(dict.fromkeys(names))
    detail = {name: -1 if len(name) <= width else 0 for name in names}
    labels = {name: name if detail[name] < 0 else kernel_label(name) for name in names}
    for _ in range(6):
        alike: dict[str, list[str]] = {}
        for name, text in labels.items():
            alike.setdefault(text, []).append(name)
        confused = [
            name for group in alike.values() if len(group) > 1 for name in group if 0 <= detail[name] < 4
        ]
        if not confused:
            break
        for name in confused:
            detail[name] += 1
            labels[name] = kernel_label(name, detail[name])
    return labels


def short_names(names: Iterable[str], width: int, ellipsis: str = "…") -> dict[str, str]:
    """Each of ``names`` (kernel names) as it fits ``width`` characters, printable: the one
    shortener of every view (tables, figures, compare, the explorer).

    A name that fits is shown whole. A longer one is first told by what a person
    recognises (``kernel_label``): its operator, data types, conv direction and tile,
    without the launch wrappers and lambda noise around them, with more of the name
    back only where two labels would read the same. A label that still does not fit
    is cut at the end when its first ``width - 1`` characters are its own; otherwise it
    shares its start with another (``sm90_xmma_fprop_..._tilesize64x64x64`` and
    ``..._tilesize128x64x32``) and is shown as its start, an ellipsis, and the text from
    the word where it first differs: ``sm90_xmma_fprop…tilesize128x64x32``.
    Returns ``{name: shown}``.
    """
    texts = {printable(name): name for name in names}
    labels = distinct_labels(texts, width)
    fitted = _fit(list(labels.values()), width, ellipsis)
    shown = {text: fitted[label] for text, label in labels.items()}
    # Labels still alike once cut are numbered, so that no two rows ever read the same.
    count: dict[str, int] = {}
    for text in shown.values():
        count[text] = count.get(text, 0) + 1
    alike: dict[str, list[str]] = {}
    for text in sorted(shown):
        if count[shown[text]] > 1:
            alike.setdefault(shorten(labels[text], width - 3, ellipsis), []).append(text)
    for start, group in alike.items():
        for number, text in enumerate(group, 1):
            shown[text] = f"{start}#{number}" if len(group) > 1 else start
    return {name: shown[text] for text, name in texts.items()}


def _fit(texts: list[str], width: int, ellipsis: str) -> dict[str, str]:
    """Each of ``texts`` (distinct) cut to ``width``, keeping where it differs from the others."""
    room = width - len(ellipsis)

    def shorten(text: str, differs: int) -> str:
        if len(text) <= width:
            return text
        if differs < room:
            return text[:room] + ellipsis
        start = differs  # back to the start of that word (tile shapes are long words)
        while start > max(0, differs - 16) and text[start - 1].isalnum():
            start -= 1
        if start > 1 and text[start - 1] in "<(":  # and to the template it is an argument
            template = start - 1  # of, if that leaves room for the word that differs
            while template > 0 and (text[template - 1].isalnum() or text[template - 1] == "_"):
                template -= 1
            if differs - template <= (room - room * 2 // 5) // 2:
                start = template
        tail = text[start:]
        head = max(room * 2 // 5, room - len(tail))
        if head + len(tail) > room:
            tail = tail[: max(0, room - head - len(ellipsis))] + ellipsis
        return text[:head] + ellipsis + tail

    def first_difference(group: list[str]) -> dict[str, int]:
        # Sorted, a text shares its longest start with one of its two neighbours.
        group = sorted(group)
        differs = {}
        for i, text in enumerate(group):
            near = [group[j] for j in (i - 1, i + 1) if 0 <= j < len(group)]
            differs[text] = max((len(os.path.commonprefix([text, other])) for other in near), default=0)
        return differs

    shown = {text: shorten(text, at) for text, at in first_difference(texts).items()}
    # Two names that differ again after their first difference may still look the
    # same: compare those among themselves, from where they differ, a few times.
    for _ in range(3):
        alike: dict[str, list[str]] = {}
        for text, short in shown.items():
            alike.setdefault(short, []).append(text)
        groups = [group for group in alike.values() if len(group) > 1]
        if not groups:
            break
        for group in groups:
            for text, at in first_difference(group).items():
                shown[text] = shorten(text, at)
    return shown


def plain(text: object, style: str = "") -> Text:
    """``text`` from a file as a rich Text: control characters escaped, never read as markup.

    Use it for every table cell or line that holds a name; a plain ``str`` handed to rich
    is parsed as markup (``[lambda(int) (instance 1)]`` would vanish, ``[/x]`` would raise).
    """
    from rich.text import Text

    return Text(printable(text), style=style)


def markup_escaped(text: object) -> str:
    """``text`` from a file made safe to put inside a rich markup string."""
    from rich.markup import escape

    return escape(printable(text))


def safe_console(**kwargs: Any) -> Console:
    """A rich Console for command output that cannot pass a control character through.

    The views escape names before layout (``plain``); this is the net under them:
    every text segment rich is about to write has its control characters (newlines
    aside) escaped, and emoji codes such as ``:fire:`` in names stay text.
    """
    from rich.console import Console
    from rich.segment import Segment

    class _SafeConsole(Console):
        def render(self, renderable, options=None):  # type: ignore[override]
            for segment in super().render(renderable, options):
                if segment.control or not _CONTROL_BUT_NEWLINE.search(segment.text):
                    yield segment
                else:
                    yield Segment(_CONTROL_BUT_NEWLINE.sub(_escape, segment.text), segment.style)

    kwargs.setdefault("emoji", False)
    return _SafeConsole(**kwargs)
