"""Kernel names: ncu's demangled signature -> the short function name users say."""

from __future__ import annotations

import re
from functools import lru_cache

# ncu's CSV export and its report spell the same kernel differently: the report
# keeps every namespace and "(int)8"-style casts in template arguments, the CSV
# drops some. Short names drop both, so a kernel has one name in every format.
_QUALIFIER = re.compile(r"(\(anonymous namespace\)|<unnamed>|\b[A-Za-z_]\w*)::")
_CAST = re.compile(r"\([A-Za-z_][\w ]*\)(?=-?\d)")  # (int)8, (cudnnKernelDataType_t)0

_OPEN = "<(["
_CLOSE = ">)]"


def _without_parameters(demangled: str) -> str:
    """The signature without its parameter list and return type."""
    text = demangled.strip()
    if text.endswith(")"):
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            ch = text[i]
            if ch in _CLOSE:
                depth += 1
            elif ch in _OPEN:
                depth -= 1
                if depth == 0:
                    if i > 0:  # "(anonymous namespace)" alone is not a parameter list
                        text = text[:i]
                    break
    parts = _split_top_level(text, " ")
    return parts[-1] if parts else text


@lru_cache(maxsize=65536)
def qualified_name(demangled: str) -> str:
    """``void cask_cudnn::computeOffsetsKernel<int>(Params)`` -> ``cask_cudnn::computeOffsetsKernel<int>``:
    the function with its namespaces, what tells kernels of different libraries apart
    (``--group`` keys on it). Casts in template arguments dropped, as in ``short_name``."""
    return _CAST.sub("", _without_parameters(demangled).strip()) or demangled.strip()


@lru_cache(maxsize=65536)
def short_name(demangled: str) -> str:
    """``void ns::fma_loop<double>(T1, T1, T1 *)`` -> ``fma_loop<double>``.

    Drops the return type, the namespaces of the function and its parameter list;
    keeps template arguments, which tell instantiations apart.
    """
    text = _without_parameters(demangled)
    scopes = _split_top_level(text, "::")
    text = (scopes[-1] if scopes else text).strip() or demangled.strip()
    return _CAST.sub("", _QUALIFIER.sub("", text))


def _split_top_level(text: str, separator: str) -> list[str]:
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return [p for p in parts if p]
