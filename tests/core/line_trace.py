"""The lines of rooftui a piece of work runs: how two inputs are shown to take the same
path through the code (tests/core/test_zero_ai_agrees.py, benchmarks/zero_ai_view_paths.py,
benchmarks/fuzz_corpus_paths.py)."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

Lines = frozenset[tuple[str, int]]
_PACKAGE = f"{os.sep}rooftui{os.sep}"


def line_tracer(seen: set[tuple[str, int]]) -> Callable:
    """A ``sys.settrace`` function that adds to ``seen`` each (file under rooftui/, line) run
    in the frames it is set for (``lines_run``; the fuzz corpus' reader children)."""

    def tracer(frame, event, arg):
        name = frame.f_code.co_filename
        if _PACKAGE not in name:
            return None
        short = name.rsplit(_PACKAGE, 1)[-1]

        def line(frame, event, arg):
            if event == "line":
                seen.add((short, frame.f_lineno))
            return line

        return line

    return tracer


def lines_run(work: Callable[[], object]) -> Lines:
    """The (file under rooftui/, line) pairs that ``work()`` runs, in any thread of this
    process. Frames outside rooftui are not traced line by line (only their calls are seen)."""
    seen: set[tuple[str, int]] = set()
    tracer = line_tracer(seen)
    previous = sys.gettrace()
    sys.settrace(tracer)
    threading.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(previous)
        threading.settrace(None)  # type: ignore[arg-type]
    return frozenset(seen)
